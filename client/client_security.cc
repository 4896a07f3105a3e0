#include "client/client_security.h"

#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "security/jaas_config.h"
#include "security/scram.h"

namespace strata::client {

namespace {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

}  // namespace

absl::Status ValidateClientSecurity(const ClientSecurity& s) {
  if (s.protocol != "PLAINTEXT" && !s.tls() && !s.sasl()) {
    return Invalid(absl::StrCat("security.protocol=", s.protocol,
                                " is not PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"));
  }
  if (s.tls()) {
    if (s.truststore_pem.empty()) {
      return Invalid(absl::StrCat("security.protocol=", s.protocol,
                                  " needs ssl.truststore.location (the CA the brokers' certificates chain to)"));
    }
    if (access(s.truststore_pem.c_str(), R_OK) != 0) {
      return Invalid(absl::StrCat("ssl.truststore.location ", s.truststore_pem, " cannot be read"));
    }
    if (!s.keystore_pem.empty() && access(s.keystore_pem.c_str(), R_OK) != 0) {
      return Invalid(absl::StrCat("ssl.keystore.location ", s.keystore_pem, " cannot be read"));
    }
  }
  if (s.sasl()) {
    if (s.sasl_mechanism != "PLAIN" && !security::ScramMechanismNamed(s.sasl_mechanism)) {
      return Invalid(absl::StrCat("sasl.mechanism '", s.sasl_mechanism,
                                  "' is not PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (the ones a strata client speaks)"));
    }
    if (s.username.empty()) {
      return Invalid(absl::StrCat("security.protocol=", s.protocol,
                                  " needs a username (sasl.username, or sasl.jaas.config's username option)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ClientSecurity> ClientSecurityFromProperties(const std::map<std::string, std::string>& properties,
                                                            std::set<std::string>* used) {
  auto get = [&](const std::string& key) -> const std::string* {
    auto it = properties.find(key);
    if (it == properties.end()) return nullptr;
    if (used) used->insert(key);
    return &it->second;
  };
  ClientSecurity s;
  if (const std::string* v = get("security.protocol")) s.protocol = *v;
  for (const char* key : {"ssl.truststore.location", "ssl.ca.location"}) {
    if (const std::string* v = get(key)) s.truststore_pem = *v;
  }
  if (const std::string* v = get("ssl.keystore.location")) s.keystore_pem = *v;
  for (const char* key : {"ssl.keystore.type", "ssl.truststore.type"}) {
    if (const std::string* v = get(key); v && *v != "PEM") return Invalid(absl::StrCat(key, " must be PEM"));
  }
  if (const std::string* v = get("ssl.endpoint.identification.algorithm")) {
    if (*v == "https") {
      s.verify_hostname = true;
    } else if (v->empty() || *v == "none") {
      s.verify_hostname = false;
    } else {
      return Invalid(absl::StrCat("ssl.endpoint.identification.algorithm '", *v, "' is not https or empty"));
    }
  }
  if (const std::string* v = get("sasl.mechanism")) s.sasl_mechanism = *v;
  if (const std::string* v = get("sasl.username")) s.username = *v;
  if (const std::string* v = get("sasl.password")) s.password = *v;
  if (const std::string* v = get("sasl.jaas.config")) {
    auto jaas = security::ParseJaasConfig(*v);
    if (!jaas.ok()) return Invalid(absl::StrCat("sasl.jaas.config: ", jaas.status().message()));
    if (auto it = jaas->options.find("username"); it != jaas->options.end()) s.username = it->second;
    if (auto it = jaas->options.find("password"); it != jaas->options.end()) s.password = it->second;
  }
  if (s.sasl() && s.sasl_mechanism.empty()) s.sasl_mechanism = "GSSAPI";  // Kafka's default, refused below
  if (absl::Status valid = ValidateClientSecurity(s); !valid.ok()) return valid;
  return s;
}

absl::StatusOr<ClientSecurity> ReadClientConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the client config ", path));
  std::map<std::string, std::string> values;
  std::map<std::string, int> lines;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text.front() == '#' || text.front() == '!') continue;
    size_t eq = text.find('=');
    if (eq == absl::string_view::npos) return Invalid(absl::StrCat(path, " line ", number, ": not key=value"));
    std::string key(absl::StripAsciiWhitespace(text.substr(0, eq)));
    values[key] = std::string(absl::StripAsciiWhitespace(text.substr(eq + 1)));
    lines[key] = number;
  }
  std::set<std::string> used;
  auto security = ClientSecurityFromProperties(values, &used);
  if (!security.ok()) return Invalid(absl::StrCat(path, ": ", security.status().message()));
  for (const auto& [key, value] : values) {
    if (!used.count(key)) {
      return Invalid(absl::StrCat(path, " line ", lines[key], ": '", key, "' is not a setting strata reads"));
    }
  }
  return security;
}

}  // namespace strata::client
