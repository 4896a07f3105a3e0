#pragma once
// Wall-clock milliseconds, behind an interface so tests drive time-based roll and
// retention without sleeping. Thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>

namespace strata::storage {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMs() const = 0;
  static Clock* System();
};

class SystemClock final : public Clock {
 public:
  int64_t NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

inline Clock* Clock::System() {
  static SystemClock clock;
  return &clock;
}

class ManualClock final : public Clock {
 public:
  explicit ManualClock(int64_t now_ms = 1'700'000'000'000) : now_ms_(now_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  void Advance(int64_t ms) { now_ms_ += ms; }

 private:
  std::atomic<int64_t> now_ms_;
};

}  // namespace strata::storage
