#include "broker/lifecycle/admin_forwarding.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace strata::broker {

std::chrono::milliseconds ForwardDeadline(int32_t timeout_ms) {
  return std::clamp(std::chrono::milliseconds(timeout_ms), kMinForwardDeadline, kMaxForwardDeadline);
}

std::optional<ForwardFailure> CountMismatch(int answered, size_t forwarded) {
  if (answered >= 0 && static_cast<size_t>(answered) == forwarded) return std::nullopt;
  return ForwardFailure{proto::kafka::ErrorCode::kUnknownServerError,
                        absl::StrCat("the controller answered ", answered, " items for ", forwarded)};
}

}  // namespace strata::broker
