#include "broker/network/tls_context.h"

#include <asio/ssl.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace strata::broker {

absl::StatusOr<std::shared_ptr<asio::ssl::context>> MakeServerTlsContext(const TlsOptions& options) {
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  asio::error_code error;
  tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1,
                   error);
  if (!error) tls->use_certificate_chain_file(options.keystore_pem, error);
  if (!error) tls->use_private_key_file(options.keystore_pem, asio::ssl::context::pem, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("ssl.keystore.location ", options.keystore_pem, ": ", error.message()));
  }
  if (!options.truststore_pem.empty()) {
    tls->load_verify_file(options.truststore_pem, error);
    if (error) {
      return absl::InvalidArgumentError(
          absl::StrCat("ssl.truststore.location ", options.truststore_pem, ": ", error.message()));
    }
  }
  switch (options.client_auth) {
    case TlsOptions::ClientAuth::kNone: tls->set_verify_mode(asio::ssl::verify_none); break;
    case TlsOptions::ClientAuth::kRequested: tls->set_verify_mode(asio::ssl::verify_peer); break;
    case TlsOptions::ClientAuth::kRequired:
      tls->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
      break;
  }
  return tls;
}

std::optional<ListenerTlsKey> ParseListenerTlsKey(const std::string& key) {
  absl::string_view rest = key;
  if (!absl::ConsumePrefix(&rest, "listener.name.")) return std::nullopt;
  for (const char* setting : {"ssl.keystore.location", "ssl.truststore.location"}) {
    absl::string_view listener = rest;
    if (absl::ConsumeSuffix(&listener, absl::StrCat(".", setting)) && !listener.empty() &&
        !absl::StrContains(listener, '.')) {
      return ListenerTlsKey{std::string(listener), setting};
    }
  }
  return std::nullopt;
}

absl::Status CheckTlsFile(const std::string& setting, const std::string& path) {
  asio::ssl::context tls(asio::ssl::context::tls_server);
  asio::error_code error;
  if (setting == "ssl.truststore.location") {
    tls.load_verify_file(path, error);
  } else {
    tls.use_certificate_chain_file(path, error);
    if (!error) tls.use_private_key_file(path, asio::ssl::context::pem, error);
  }
  if (error) return absl::InvalidArgumentError(absl::StrCat(setting, " ", path, ": ", error.message()));
  return absl::OkStatus();
}

}  // namespace strata::broker
