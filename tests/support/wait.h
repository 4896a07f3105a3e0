#pragma once
// Waiting on a condition with a deadline, the one way tests synchronise with threads and
// processes (never a fixed sleep). Thread-safe (stateless).

#include <chrono>
#include <functional>
#include <thread>

namespace strata::testing {

// True as soon as condition() holds; false if it still does not at the deadline.
inline bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    if (condition()) return true;
    std::this_thread::yield();
  }
  return condition();
}

}  // namespace strata::testing
