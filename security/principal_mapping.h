#pragma once
// Kafka's ssl.principal.mapping.rules (KIP-371): the principal name of a TLS client is
// its certificate's subject, as an RFC 2253 distinguished name, turned by the first
// rule that matches it. A rule is `RULE:pattern/replacement/` with an optional `L` or
// `U` after the last slash (lower or upper case the result), or `DEFAULT` (the name
// unchanged); rules are separated by commas or newlines. A pattern must match the whole
// name; `$1`... in the replacement are its groups; `\` escapes a `/` or a `$`. A name
// that no rule matches has no principal (the connection is refused), as in Kafka.
// Thread-safe (immutable once built).

#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::security {

class PrincipalMapper {
 public:
  // rules as ssl.principal.mapping.rules holds them; INVALID_ARGUMENT naming the rule
  // that does not parse.
  static absl::StatusOr<PrincipalMapper> Parse(absl::string_view rules);
  // DEFAULT only.
  PrincipalMapper();

  // The principal name for a distinguished name; nullopt when no rule matches.
  std::optional<std::string> Map(const std::string& distinguished_name) const;

 private:
  struct Rule {
    bool is_default = false;
    std::regex pattern;
    std::string replacement;  // in std::regex_replace's format
    char case_change = 0;     // 'L', 'U' or 0
  };
  std::vector<Rule> rules_;
};

}  // namespace strata::security
