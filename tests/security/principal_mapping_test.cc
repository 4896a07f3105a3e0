// ssl.principal.mapping.rules as Kafka's SslPrincipalMapper reads and applies them, and
// the node ids a certificate's URIs name.

#include <gtest/gtest.h>

#include "security/node_identity.h"
#include "security/principal_mapping.h"

namespace strata::security {
namespace {

std::optional<std::string> Map(const std::string& rules, const std::string& dn) {
  auto mapper = PrincipalMapper::Parse(rules);
  EXPECT_TRUE(mapper.ok()) << rules << ": " << mapper.status();
  return mapper.ok() ? mapper->Map(dn) : std::nullopt;
}

TEST(PrincipalMapping, RulesMapADistinguishedNameAsKafkaDoes) {
  struct Case {
    std::string rules;
    std::string dn;
    std::optional<std::string> principal;
  } cases[] = {
      {"DEFAULT", "CN=Duke,OU=ServiceUsers,O=Org,C=US", "CN=Duke,OU=ServiceUsers,O=Org,C=US"},
      {"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/", "CN=Duke,OU=ServiceUsers,O=Org,C=US", "Duke"},
      {"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L", "CN=Duke,OU=ServiceUsers,O=Org,C=US", "duke"},
      {"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/U", "CN=Duke,OU=ServiceUsers,O=Org,C=US", "DUKE"},
      {"RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L",
       "CN=Duke,OU=JavaSoft,O=Sun Microsystems,L=Palo Alto,ST=CA,C=US", "duke@javasoft"},
      {"RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/L", "CN=Duke,OU=JavaSoft,O=Sun Microsystems", "duke"},
      // The first rule that matches wins; DEFAULT after rules that do not match.
      {"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, DEFAULT", "CN=Duke,OU=Other,O=Org", "CN=Duke,OU=Other,O=Org"},
      {"RULE:^CN=(.*?),OU=A$/a-$1/,RULE:^CN=(.*?),OU=B$/b-$1/", "CN=x,OU=B", "b-x"},
      {"RULE:^CN=(.*?),OU=A$/a-$1/\nRULE:^CN=(.*?),OU=B$/b-$1/", "CN=x,OU=B", "b-x"},
      // No rule matches: no principal.
      {"RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/", "CN=Duke,OU=Other", std::nullopt},
      // A pattern must match the whole name.
      {"RULE:CN=(.*?),/$1/", "CN=a,OU=b", std::nullopt},
      // Escapes: a slash in the pattern, a literal dollar in the replacement.
      {"RULE:^CN=(.*?)\\/x$/\\$$1/", "CN=a/x", "$a"},
      {"RULE:^CN=(.*)$/$1/", "CN=strata-admin", "strata-admin"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Map(c.rules, c.dn), c.principal) << c.rules << " on " << c.dn;
  }
}

TEST(PrincipalMapping, MalformedRulesAreRefusedNamingTheRule) {
  for (const char* rules :
       {"DEFAULTS", "RULE:/", "RULE:^CN=(.*?),OU=ServiceUsers.*$", "RULE:^CN=(.*?),OU=ServiceUsers.*$/",
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/L/U", "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/LU", "RULE:^CN=(((/x/",
        "", "DEFAULT,,DEFAULT", "SOMETHING"}) {
    auto mapper = PrincipalMapper::Parse(rules);
    EXPECT_FALSE(mapper.ok()) << rules;
    if (!mapper.ok()) EXPECT_NE(mapper.status().message().find("ssl.principal.mapping.rules"), std::string::npos);
  }
}

TEST(NodeIdentity, ACertificatesUrisNameItsControllerAndBrokerIds) {
  NodeClaims claims = ClaimsOf({"urn:strata:controller:1", "urn:strata:broker:1", "urn:strata:broker:7",
                                "urn:strata:broker:x", "urn:strata:broker:-2", "urn:other:broker:3",
                                "urn:strata:controller:", "spiffe://cluster/ns/strata"});
  EXPECT_EQ(claims.controllers, (std::set<int32_t>{1}));
  EXPECT_EQ(claims.brokers, (std::set<int32_t>{1, 7}));
  EXPECT_TRUE(ClaimsOf({}).controllers.empty());
}

}  // namespace
}  // namespace strata::security
