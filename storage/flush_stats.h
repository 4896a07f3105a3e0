#pragma once
// FlushStats: how often the logs of a LogManager were flushed and how long each flush
// took (the fsyncs, not waiting for the flush lock), for the broker's metrics. Failed
// flushes are not counted (their dir goes offline). Thread-safe (atomics).

#include <array>
#include <atomic>
#include <cstdint>

namespace strata::storage {

class FlushStats {
 public:
  // Upper bounds of the latency buckets, in microseconds (the last bucket is +Inf).
  static constexpr std::array<int64_t, 10> kBucketMicros = {100,    500,     1'000,   5'000,   10'000,
                                                            50'000, 100'000, 250'000, 500'000, 1'000'000};

  void Record(int64_t micros) {
    flushes_.fetch_add(1, std::memory_order_relaxed);
    total_micros_.fetch_add(micros, std::memory_order_relaxed);
    size_t i = 0;
    while (i < kBucketMicros.size() && micros > kBucketMicros[i]) ++i;
    buckets_[i].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t flushes() const { return flushes_.load(std::memory_order_relaxed); }
  int64_t total_micros() const { return total_micros_.load(std::memory_order_relaxed); }
  // Flushes in bucket i alone (not cumulative); i == kBucketMicros.size() is +Inf.
  int64_t bucket(size_t i) const { return buckets_[i].load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> flushes_{0};
  std::atomic<int64_t> total_micros_{0};
  std::array<std::atomic<int64_t>, kBucketMicros.size() + 1> buckets_{};
};

}  // namespace strata::storage
