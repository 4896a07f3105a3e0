#include "tools/cli/command_config.h"

#include <fstream>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace strata::cli {

absl::StatusOr<CommandConfig> ReadCommandConfig(const std::string& path) {
  CommandConfig config;
  if (path.empty()) return config;
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the command config ", path));
  std::map<std::string, std::string> values;
  std::map<std::string, int> lines;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text.front() == '#' || text.front() == '!') continue;
    size_t eq = text.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(path, " line ", number, ": '", text, "' is not key=value"));
    }
    std::string key(absl::StripAsciiWhitespace(text.substr(0, eq)));
    values[key] = std::string(absl::StripAsciiWhitespace(text.substr(eq + 1)));
    lines[key] = number;
  }
  std::set<std::string> used;
  auto security = client::ClientSecurityFromProperties(values, &used);
  if (!security.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", security.status().message()));
  for (const auto& [key, value] : values) {
    if (!used.count(key)) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, " line ", lines[key], ": '", key, "' is not a setting strata reads"));
    }
  }
  config.broker_security = *std::move(security);
  if (config.broker_security.tls()) {
    config.controller_tls = {.keystore = config.broker_security.keystore_pem,
                             .truststore = config.broker_security.truststore_pem};
    if (config.controller_tls.keystore.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": security.protocol=", config.broker_security.protocol,
          " needs ssl.keystore.location and ssl.truststore.location (the controllers require a client certificate)"));
    }
    if (absl::Status files = security::CheckTlsFiles(config.controller_tls); !files.ok()) {
      return absl::Status(files.code(), absl::StrCat(path, ": ", files.message()));
    }
  }
  return config;
}

}  // namespace strata::cli
