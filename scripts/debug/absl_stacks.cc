// Stacks for absl's deadlock reports. Debian's Abseil (20220623) captures no stack
// frames, so its "Potential Mutex deadlock" report names two mutexes and nothing else.
// Preloaded, this GetStackTrace (glibc's backtrace(), which reads the unwind tables)
// replaces the library's, and the report shows where each lock was taken:
//
//   g++ -O1 -shared -fPIC scripts/debug/absl_stacks.cc -o /tmp/libabsl_stacks.so
//   STRATA_MUTEX_DEADLOCK_DETECTION=abort LD_PRELOAD=/tmp/libabsl_stacks.so <program>
//
// The namespace is Debian's inline namespace of Abseil (nm -D on libabsl_stacktrace.so
// shows it). For debugging only: nothing builds or links this file.

#include <execinfo.h>

namespace absl {
inline namespace debian3 {

int GetStackTrace(void** result, int max_depth, int skip_count) {
  constexpr int kMaxFrames = 128;
  void* frames[kMaxFrames];
  int wanted = max_depth + skip_count + 1;
  int n = backtrace(frames, wanted < kMaxFrames ? wanted : kMaxFrames);
  int out = 0;
  for (int i = skip_count + 1; i < n && out < max_depth; ++i) result[out++] = frames[i];
  return out;
}

}  // namespace debian3
}  // namespace absl
