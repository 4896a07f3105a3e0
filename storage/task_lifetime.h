#pragma once
// TaskLifetime: lets tasks on the Scheduler outlive the object that scheduled them. The
// object holds a shared_ptr to one and each task captures a copy; a task runs only while
// `alive`, holding `mu`, and the object's destructor clears `alive` under `mu` (so it
// waits for a task running now, and later ones do nothing). Thread-safe.

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace strata::storage {

struct TaskLifetime {
  absl::Mutex mu;
  bool alive ABSL_GUARDED_BY(mu) = true;
};

}  // namespace strata::storage
