#pragma once
// RequestMetrics: what the Kafka listeners saw of the requests they served, as Kafka's
// RequestMetrics (kafka.network): per API and version the requests; per API the error
// codes the responses carried (every one, as ErrorsPerSec) and the requests that closed
// their connection instead (a body that does not parse, a version outside the
// advertised range); per API histograms of
//   request queue time:  the frame was read until a handler thread took it,
//   response queue time: the handler answered until a network thread began sending,
//   total time:          the frame was read until the response was written (or, with
//                        no response, until the handler answered).
// Shared by every listener of a broker; server/broker_metrics.h shows it on /metrics.
// Counting is a few relaxed atomic adds per request; errors, which are rare, take a lock.
// Thread-safe.

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "base/latency_histogram.h"
#include "broker/network/api_response.h"

namespace strata::broker {

class RequestMetrics {
 public:
  // API keys outside 0..kApiKeys-2 (negative ones too) are counted under the last slot,
  // kUnknownApi, which no Kafka API has (a request for an unknown key still counts);
  // versions above the last under the last.
  static constexpr int kApiKeys = 128;
  static constexpr int kVersions = 32;
  static constexpr int16_t kUnknownApi = kApiKeys - 1;

  void CountRequest(int16_t api_key, int16_t version);
  void CountErrors(int16_t api_key, const ErrorCounts& errors);
  void CountConnectionClosed(int16_t api_key);
  void RecordTimes(int16_t api_key, int64_t request_queue_micros, int64_t response_queue_micros,
                   int64_t total_micros);

  // Reading, for the scrape.
  int64_t requests(int16_t api_key, int16_t version) const;
  const LatencyHistogram& request_queue(int16_t api_key) const { return per_api_[Slot(api_key)].request_queue; }
  const LatencyHistogram& response_queue(int16_t api_key) const { return per_api_[Slot(api_key)].response_queue; }
  const LatencyHistogram& total(int16_t api_key) const { return per_api_[Slot(api_key)].total; }
  // (api key, error code) -> count; error code -1 stands for "closed the connection".
  std::map<std::pair<int16_t, int16_t>, int64_t> errors() const;
  // The API keys that have seen a request.
  std::vector<int16_t> apis_seen() const;

  static constexpr int16_t kConnectionClosed = -1;

 private:
  static size_t Slot(int16_t api_key) {
    return static_cast<size_t>(api_key < 0 || api_key > kUnknownApi ? kUnknownApi : api_key);
  }
  struct PerApi {
    std::array<std::atomic<int64_t>, kVersions> requests{};
    LatencyHistogram request_queue;
    LatencyHistogram response_queue;
    LatencyHistogram total;
  };
  std::array<PerApi, kApiKeys> per_api_{};
  mutable absl::Mutex mu_;
  std::map<std::pair<int16_t, int16_t>, int64_t> errors_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
