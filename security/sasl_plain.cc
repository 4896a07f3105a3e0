#include "security/sasl_plain.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "security/constant_time.h"

namespace strata::security {
namespace {

constexpr absl::string_view kPlainLoginModule = "org.apache.kafka.common.security.plain.PlainLoginModule";

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
  const absl::string_view expected = it == passwords_.end() ? absl::string_view() : absl::string_view(it->second);
  if (!ConstantTimeEquals(expected, parts[2]) || it == passwords_.end()) {
    return Failed();
  }
  return std::string(parts[1]);
}

}  // namespace strata::security
