#pragma once
// SASL PLAIN (RFC 4616) on the server: one client message, "authzid NUL authcid NUL
// password"; an authzid, when given, must be the authcid (Kafka acts for no one else).
// The users and passwords come from the listener's PlainLoginModule
// sasl.jaas.config (user_<name>="<password>"). A failure's message names nothing of the
// user or the password.
// Thread-safe (immutable once built).

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "security/jaas_config.h"

namespace strata::security {

class PlainUsers {
 public:
  // The user_<name> options of a PlainLoginModule entry.
  static absl::StatusOr<PlainUsers> FromJaas(const JaasConfig& jaas);
  explicit PlainUsers(std::map<std::string, std::string> passwords = {}) : passwords_(std::move(passwords)) {}

  // The authenticated user name for a PLAIN client message.
  absl::StatusOr<std::string> Authenticate(absl::string_view message) const;
  size_t size() const { return passwords_.size(); }

 private:
  std::map<std::string, std::string> passwords_;
};

}  // namespace strata::security
