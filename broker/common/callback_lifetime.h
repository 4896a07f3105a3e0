#pragma once
// CallbackLifetime: for an object whose callbacks can run after it is gone (an append
// to a coordinator's log completing during shutdown). The object keeps a shared_ptr to
// one and gives each callback a copy; a callback enters through IfAlive, and the object's
// destructor calls Close, which waits for the callbacks running and turns the later ones
// away. Thread-safe.

#include <functional>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace strata::broker {

class CallbackLifetime {
 public:
  // Runs fn unless Close was called. A callback may nest in another (an append failing
  // at once inside the call that made it): entries are counted, not locked.
  void IfAlive(const std::function<void()>& fn) {
    {
      absl::MutexLock lock(&mu_);
      if (!alive_) return;
      ++running_;
    }
    fn();
    absl::MutexLock lock(&mu_);
    --running_;
  }
  // After it returns no fn runs. Not from inside a callback.
  void Close() {
    absl::MutexLock lock(&mu_);
    alive_ = false;
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return running_ == 0; };
    mu_.Await(absl::Condition(&idle));
  }

 private:
  absl::Mutex mu_;
  bool alive_ ABSL_GUARDED_BY(mu_) = true;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::broker
