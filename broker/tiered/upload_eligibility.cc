#include "broker/tiered/upload_eligibility.h"

namespace strata::broker {

bool UploadEligible(const storage::LogConfig& config, int64_t segment_max_timestamp_ms, int64_t newer_local_bytes,
                    int64_t now_ms) {
  const int64_t lag_ms =
      config.remote_copy_lag_ms == -1 ? config.effective_local_retention_ms() : config.remote_copy_lag_ms;
  const int64_t lag_bytes =
      config.remote_copy_lag_bytes == -1 ? config.effective_local_retention_bytes() : config.remote_copy_lag_bytes;
  if (lag_ms == 0 || lag_bytes == 0) return true;
  // A segment without timestamps (max timestamp -1) is as old as can be.
  const bool old_enough = lag_ms > 0 && now_ms - segment_max_timestamp_ms >= lag_ms;
  const bool far_enough_behind = lag_bytes > 0 && newer_local_bytes >= lag_bytes;
  return old_enough || far_enough_behind;
}

}  // namespace strata::broker
