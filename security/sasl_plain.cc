#include "security/sasl_plain.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace strata::security {
namespace {

constexpr absl::string_view kPlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule";

// Constant-time for equal sizes (a password must not be guessable byte by byte).
bool Same(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

absl::Status Failed() {
  return absl::UnauthenticatedError("Authentication failed: Invalid username or password");
}

}  // namespace

absl::StatusOr<PlainUsers> PlainUsers::FromJaas(const JaasConfig& jaas) {
  if (jaas.login_module != kPlainLoginModule) {
    return absl::InvalidArgumentError(
        "the PLAIN mechanism's sasl.jaas.config must use org.apache.kafka.common.security.plain.PlainLoginModule");
  }
  std::map<std::string, std::string> passwords;
  for (const auto& [key, value] : jaas.options) {
    absl::string_view name = key;
    if (absl::ConsumePrefix(&name, "user_") && !name.empty()) passwords[std::string(name)] = value;
  }
  return PlainUsers(std::move(passwords));
}

absl::StatusOr<std::string> PlainUsers::Authenticate(absl::string_view message) const {
  std::vector<absl::string_view> parts = absl::StrSplit(message, '\0');
  if (parts.size() != 3 || parts[1].empty()) return Failed();
  if (!parts[0].empty() && parts[0] != parts[1]) return Failed();
  auto it = passwords_.find(std::string(parts[1]));
  // An unknown user costs the same comparison as a known one.
  if (!Same(it == passwords_.end() ? absl::string_view() : absl::string_view(it->second), parts[2]) ||
      it == passwords_.end()) {
    return Failed();
  }
  return std::string(parts[1]);
}

}  // namespace strata::security
