#include "tools/cli/command_config.h"

#include "absl/strings/str_cat.h"

namespace strata::cli {

absl::StatusOr<CommandConfig> ReadCommandConfig(const std::string& path) {
  CommandConfig config;
  if (path.empty()) return config;
  auto security = client::ReadClientConfig(path);
  if (!security.ok()) return security.status();
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
