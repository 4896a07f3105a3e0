#include "tools/cli/command_config.h"

#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace strata::cli {

absl::StatusOr<CommandConfig> ReadCommandConfig(const std::string& path) {
  CommandConfig config;
  if (path.empty()) return config;
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the command config ", path));
  std::map<std::string, std::string> values;
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
    std::string value(absl::StripAsciiWhitespace(text.substr(eq + 1)));
    if (key != "security.protocol" && key != "ssl.keystore.location" && key != "ssl.truststore.location" &&
        key != "ssl.keystore.type" && key != "ssl.truststore.type") {
      return absl::InvalidArgumentError(absl::StrCat(path, " line ", number, ": '", key, "' is not a setting strata reads"));
    }
    if ((key == "ssl.keystore.type" || key == "ssl.truststore.type") && value != "PEM") {
      return absl::InvalidArgumentError(absl::StrCat(path, " line ", number, ": ", key, " must be PEM"));
    }
    values[key] = value;
  }
  std::string protocol = values.count("security.protocol") ? values["security.protocol"] : "PLAINTEXT";
  if (protocol == "SSL") {
    config.controller_tls = {.keystore = values["ssl.keystore.location"], .truststore = values["ssl.truststore.location"]};
    if (config.controller_tls.keystore.empty() || config.controller_tls.truststore.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": security.protocol=SSL needs ssl.keystore.location and ssl.truststore.location (the "
                             "controllers require a client certificate)"));
    }
    if (absl::Status files = security::CheckTlsFiles(config.controller_tls); !files.ok()) {
      return absl::Status(files.code(), absl::StrCat(path, ": ", files.message()));
    }
  } else if (protocol != "PLAINTEXT") {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": security.protocol=", protocol, " is not PLAINTEXT or SSL (the controllers' protocols)"));
  }
  return config;
}

}  // namespace strata::cli
