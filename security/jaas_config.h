#pragma once
// Kafka's sasl.jaas.config values: one JAAS login module entry,
//   <LoginModule class> <flag> key="value" key2=value2 ... ;
// as a broker reads them for its SASL listeners (PlainLoginModule's user_<name>="<password>"
// entries are the PLAIN users; username and password are the broker's own credentials
// toward other brokers; OAuthBearerLoginModule's options). Quoted values may hold
// spaces and `\"`.
// Thread-safe (a value type and a function).

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::security {

struct JaasConfig {
  std::string login_module;  // e.g. org.apache.kafka.common.security.plain.PlainLoginModule
  std::string flag;          // required, requisite, sufficient or optional
  std::map<std::string, std::string> options;
};

// INVALID_ARGUMENT saying what does not parse (never the values: they hold passwords).
absl::StatusOr<JaasConfig> ParseJaasConfig(absl::string_view text);

}  // namespace strata::security
