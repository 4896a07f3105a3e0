// Linked into every test program (tests/CMakeLists.txt, strata_test): absl's deadlock
// detection aborts the test on a lock-order cycle, whatever the Abseil build's default
// (base/deadlock_detection.h).

#include "absl/synchronization/mutex.h"

namespace {

const bool kLockOrderChecked = [] {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kAbort);
  return true;
}();

}  // namespace
