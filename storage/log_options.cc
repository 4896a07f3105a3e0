#include "storage/log_options.h"

namespace strata::storage {

SegmentOptions SegmentOptionsFor(const LogOptions& options, int64_t base_offset, std::string suffix, bool active) {
  SegmentOptions s;
  s.ops = options.ops;
  s.dir = options.dir;
  s.base_offset = base_offset;
  s.index_interval_bytes = options.config.index_interval_bytes;
  s.max_index_bytes = options.config.segment_index_bytes;
  s.suffix = std::move(suffix);
  s.active = active;
  return s;
}

}  // namespace strata::storage
