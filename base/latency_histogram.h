#pragma once
// LatencyHistogram: counts of durations in fixed buckets (microseconds), recorded with
// relaxed atomics so that a hot path pays a few adds and no lock; read at a scrape as
// a Prometheus histogram (controller/metric_families.h HistogramSample). The buckets
// span 50 us to 10 s, enough for a request's queue and total times.
// Thread-safe.

#include <array>
#include <atomic>
#include <cstdint>

namespace strata {

class LatencyHistogram {
 public:
  // Upper bounds of the buckets, in microseconds (the last bucket is +Inf).
  static constexpr std::array<int64_t, 16> kBucketMicros = {
      50, 100, 250, 500, 1'000, 2'500, 5'000, 10'000, 25'000, 50'000, 100'000, 250'000, 500'000, 1'000'000,
      2'500'000, 10'000'000};

  void Record(int64_t micros) {
    if (micros < 0) micros = 0;
    total_micros_.fetch_add(micros, std::memory_order_relaxed);
    size_t i = 0;
    while (i < kBucketMicros.size() && micros > kBucketMicros[i]) ++i;
    buckets_[i].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t total_micros() const { return total_micros_.load(std::memory_order_relaxed); }
  // Durations in bucket i alone (not cumulative); i == kBucketMicros.size() is +Inf.
  int64_t bucket(size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }
  int64_t count() const {
    int64_t n = 0;
    for (const auto& b : buckets_) n += b.load(std::memory_order_relaxed);
    return n;
  }

 private:
  std::atomic<int64_t> total_micros_{0};
  std::array<std::atomic<int64_t>, kBucketMicros.size() + 1> buckets_{};
};

}  // namespace strata
