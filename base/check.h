#pragma once
// Invariant assertions. Debian's Abseil (20220623) predates absl/log, so this header
// provides ABSL_CHECK / ABSL_CHECK_EQ ... / ABSL_DCHECK with the same meaning: when the
// condition is false the process prints the condition, the place and the streamed
// message to stderr and aborts. With a newer Abseil the real macros are used.
// Thread-safe.

#if __has_include("absl/log/check.h")
#include "absl/log/check.h"
#else
#include <cstdlib>
#include <iostream>
#include <sstream>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"

namespace strata::base {

// Collects the streamed message of a failed check and aborts when destroyed.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    stream_ << file << ":" << line << "] Check failed: " << condition << " ";
  }
  [[noreturn]] ~CheckFailure() {
    std::cerr << stream_.str() << std::endl;
    std::abort();
  }
  std::ostream& stream() { return stream_; }

 private:
  std::ostringstream stream_;
};

// Makes `cond ? (void)0 : Voidify() & stream` well-typed.
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace strata::base

#define ABSL_CHECK(condition)                  \
  ABSL_PREDICT_TRUE(condition)                 \
  ? (void)0                                    \
  : ::strata::base::Voidify() &                \
        ::strata::base::CheckFailure(__FILE__, __LINE__, #condition).stream()

#define STRATA_CHECK_OP_(a, op, b) \
  ABSL_CHECK((a)op(b)) << "(" << (a) << " vs " << (b) << ") "
#define ABSL_CHECK_EQ(a, b) STRATA_CHECK_OP_(a, ==, b)
#define ABSL_CHECK_NE(a, b) STRATA_CHECK_OP_(a, !=, b)
#define ABSL_CHECK_LE(a, b) STRATA_CHECK_OP_(a, <=, b)
#define ABSL_CHECK_LT(a, b) STRATA_CHECK_OP_(a, <, b)
#define ABSL_CHECK_GE(a, b) STRATA_CHECK_OP_(a, >=, b)
#define ABSL_CHECK_GT(a, b) STRATA_CHECK_OP_(a, >, b)
#define ABSL_CHECK_OK(expr)                                   \
  do {                                                        \
    const auto& strata_check_ok_status_ = (expr);             \
    ABSL_CHECK(strata_check_ok_status_.ok()) << strata_check_ok_status_; \
  } while (0)

#ifdef NDEBUG
#define ABSL_DCHECK(condition) \
  while (false) ABSL_CHECK(condition)
#else
#define ABSL_DCHECK(condition) ABSL_CHECK(condition)
#endif
#endif
