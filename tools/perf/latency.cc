#include "tools/perf/latency.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace strata::tools::perf {

namespace {

double Millis(int64_t nanos) { return static_cast<double>(nanos) / 1e6; }

// The nearest-rank percentile q (0 < q <= 1) of sorted samples.
int64_t Percentile(const std::vector<int64_t>& sorted, double q) {
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

LatencySummary Summarize(std::vector<int64_t>& nanos) {
  LatencySummary s;
  if (nanos.empty()) return s;
  std::sort(nanos.begin(), nanos.end());
  double total = 0;
  for (int64_t n : nanos) total += static_cast<double>(n);
  s.count = static_cast<int64_t>(nanos.size());
  s.avg_ms = total / static_cast<double>(nanos.size()) / 1e6;
  s.p50_ms = Millis(Percentile(nanos, 0.50));
  s.p99_ms = Millis(Percentile(nanos, 0.99));
  s.p999_ms = Millis(Percentile(nanos, 0.999));
  s.max_ms = Millis(nanos.back());
  return s;
}

std::string FormatLatency(const LatencySummary& s, const char* noun) {
  if (s.count == 0) return absl::StrFormat("no %s answered", noun);
  return absl::StrFormat("avg %.2f ms, p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f over %d %s", s.avg_ms, s.p50_ms,
                         s.p99_ms, s.p999_ms, s.max_ms, s.count, noun);
}

nlohmann::json LatencyJson(const LatencySummary& s) {
  return {{"count", s.count},   {"avg_ms", s.avg_ms},   {"p50_ms", s.p50_ms},
          {"p99_ms", s.p99_ms}, {"p999_ms", s.p999_ms}, {"max_ms", s.max_ms}};
}

}  // namespace strata::tools::perf
