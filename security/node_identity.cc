#include "security/node_identity.h"

#include "absl/strings/strip.h"
#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"

namespace strata::security {

NodeClaims ClaimsOf(const std::vector<std::string>& uris) {
  NodeClaims claims;
  for (const std::string& uri : uris) {
    for (auto [prefix, ids] : {std::pair{kControllerUriPrefix, &claims.controllers}, std::pair{kBrokerUriPrefix, &claims.brokers}}) {
      absl::string_view rest = uri;
      int32_t id = 0;
      if (absl::ConsumePrefix(&rest, prefix) && absl::SimpleAtoi(rest, &id) && id >= 0) ids->insert(id);
    }
  }
  return claims;
}

}  // namespace strata::security
