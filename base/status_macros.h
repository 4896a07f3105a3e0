#pragma once
// Early-return helpers for absl::Status / absl::StatusOr. Thread-safe (stateless).

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace strata {

// status with "context: " before its message, its code and payloads (the storage
// Errc, the Kafka error code) kept. OK stays OK.
inline absl::Status WithContext(const absl::Status& status, absl::string_view context) {
  if (status.ok()) return status;
  absl::Status out(status.code(), absl::StrCat(context, ": ", status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

}  // namespace strata

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
