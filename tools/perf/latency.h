#pragma once
// Latency samples (one per request) and their summary, for strata-perf's reports.
// Not thread-safe: each connection keeps its own samples; merge them at the end.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace strata::tools::perf {

struct LatencySummary {
  int64_t count = 0;
  double avg_ms = 0, p50_ms = 0, p99_ms = 0, p999_ms = 0, max_ms = 0;
};

// Nearest-rank percentiles of `nanos` (sorted in place).
LatencySummary Summarize(std::vector<int64_t>& nanos);

// "avg 1.20 ms, p50 1.01, p99 3.10, p99.9 5.02, max 7.20 over 1334 requests"
std::string FormatLatency(const LatencySummary& summary, const char* noun);
nlohmann::json LatencyJson(const LatencySummary& summary);

// Megabytes as Kafka's perf tools count them (2^20 bytes).
inline double Megabytes(double bytes) { return bytes / (1024.0 * 1024.0); }

}  // namespace strata::tools::perf
