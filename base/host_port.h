#pragma once
// ParseHostPort: "host:port" as Kafka's settings write an address (bootstrap.servers,
// controller.quorum.voters and .bootstrap.servers, --initial-controllers), the port
// 1-65535, split at the last colon. The host is kept as written: an IPv6 one stays in
// brackets, as gRPC targets and "host:port" strings built from it need them.

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace strata {

struct HostPort {
  std::string host;
  int port = 0;
};

inline absl::StatusOr<HostPort> ParseHostPort(absl::string_view text) {
  size_t colon = text.rfind(':');
  int port = 0;
  if (colon == absl::string_view::npos || colon == 0 || !absl::SimpleAtoi(text.substr(colon + 1), &port) ||
      port <= 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat("'", text, "' is not host:port"));
  }
  HostPort out;
  out.host = std::string(text.substr(0, colon));
  out.port = port;
  return out;
}

}  // namespace strata
