#pragma once
// absl::Mutex deadlock detection. With it on, every lock taken while another is held
// adds an edge "held -> taken" to one process-wide graph, and the process aborts when
// an edge closes a cycle: two threads that take the same locks in opposite orders can
// deadlock, whether or not they ever did. Debian's Abseil is built with detection on
// (abort) in every build type, and it costs: a process-wide spinlock on every Lock, and
// a search of the graph on each new edge.
// Test programs (tests/support/deadlock_detection.cc) always abort on a cycle;
// strata-server and strata-perf follow STRATA_MUTEX_DEADLOCK_DETECTION, which
// scripts/test.sh sets to "abort" for every process test. Unset, detection is off, as in
// an NDEBUG build of Abseil.

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace strata {

inline constexpr char kDeadlockDetectionVariable[] = "STRATA_MUTEX_DEADLOCK_DETECTION";

// Sets the mode from value: "abort", "report" (logs each cycle and goes on), "off" or
// nullptr (off). Anything else is refused, naming the variable and the value.
inline absl::Status SetDeadlockDetection(const char* value) {
  std::string mode = value == nullptr ? "off" : value;
  absl::OnDeadlockCycle cycle;
  if (mode == "abort") {
    cycle = absl::OnDeadlockCycle::kAbort;
  } else if (mode == "report") {
    cycle = absl::OnDeadlockCycle::kReport;
  } else if (mode == "off") {
    cycle = absl::OnDeadlockCycle::kIgnore;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(kDeadlockDetectionVariable, "='", mode, "' is not one of abort, report, off"));
  }
  absl::SetMutexDeadlockDetectionMode(cycle);
  return absl::OkStatus();
}

inline absl::Status SetDeadlockDetectionFromEnvironment() {
  return SetDeadlockDetection(std::getenv(kDeadlockDetectionVariable));
}

}  // namespace strata
