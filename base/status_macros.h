#pragma once
// Early-return helpers for absl::Status / absl::StatusOr. Thread-safe (stateless).

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define STRATA_RETURN_IF_ERROR(expr)                    \
  do {                                                  \
    absl::Status strata_status_ = (expr);               \
    if (ABSL_PREDICT_FALSE(!strata_status_.ok())) return strata_status_; \
  } while (0)

#define STRATA_CONCAT_INNER_(a, b) a##b
#define STRATA_CONCAT_(a, b) STRATA_CONCAT_INNER_(a, b)
#define STRATA_ASSIGN_OR_RETURN(lhs, expr) \
  STRATA_ASSIGN_OR_RETURN_IMPL_(STRATA_CONCAT_(strata_statusor_, __LINE__), lhs, expr)
#define STRATA_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr)           \
  auto tmp = (expr);                                            \
  if (ABSL_PREDICT_FALSE(!tmp.ok())) return std::move(tmp).status(); \
  lhs = std::move(tmp).value()
