#include "broker/network/request_metrics.h"

#include <algorithm>

namespace strata::broker {

void RequestMetrics::CountRequest(int16_t api_key, int16_t version) {
  size_t v = version < 0 ? 0 : static_cast<size_t>(std::min<int>(version, kVersions - 1));
  per_api_[Slot(api_key)].requests[v].fetch_add(1, std::memory_order_relaxed);
}

void RequestMetrics::CountErrors(int16_t api_key, const ErrorCounts& errors) {
  if (errors.empty()) return;
  auto key = static_cast<int16_t>(Slot(api_key));
  absl::MutexLock lock(&mu_);
  for (const auto& [code, n] : errors) errors_[{key, code}] += n;
}

void RequestMetrics::CountConnectionClosed(int16_t api_key) {
  absl::MutexLock lock(&mu_);
  ++errors_[{static_cast<int16_t>(Slot(api_key)), kConnectionClosed}];
}

void RequestMetrics::RecordTimes(int16_t api_key, int64_t request_queue_micros, int64_t response_queue_micros,
                                 int64_t total_micros) {
  PerApi& api = per_api_[Slot(api_key)];
  api.request_queue.Record(request_queue_micros);
  api.response_queue.Record(response_queue_micros);
  api.total.Record(total_micros);
}

int64_t RequestMetrics::requests(int16_t api_key, int16_t version) const {
  size_t v = version < 0 ? 0 : static_cast<size_t>(std::min<int>(version, kVersions - 1));
  return per_api_[Slot(api_key)].requests[v].load(std::memory_order_relaxed);
}

std::map<std::pair<int16_t, int16_t>, int64_t> RequestMetrics::errors() const {
  absl::MutexLock lock(&mu_);
  return errors_;
}

std::vector<int16_t> RequestMetrics::apis_seen() const {
  std::vector<int16_t> seen;
  for (int key = 0; key < kApiKeys; ++key) {
    for (const auto& n : per_api_[static_cast<size_t>(key)].requests) {
      if (n.load(std::memory_order_relaxed) > 0) {
        seen.push_back(static_cast<int16_t>(key));
        break;
      }
    }
  }
  return seen;
}

}  // namespace strata::broker
