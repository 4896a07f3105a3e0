#pragma once
// The server side TLS context of an SSL listener (SSL and SASL_SSL) from its TlsOptions:
// the keystore's certificate chain and private key (one PEM file), the truststore (the
// CAs of client certificates), ssl.client.auth, TLS 1.2 and later. Made at start, and
// again when the broker's dynamic config names other files (Listener::ReloadTls), the
// new one serving the connections accepted after it. Thread-safe (no state).

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace asio::ssl {
class context;
}  // namespace asio::ssl

namespace strata::broker {

// An SSL listener (OpenSSL through Asio): TLS 1.2+, the broker's certificate chain and
// private key from one PEM file (ssl.keystore.location, ssl.keystore.type=PEM), and
// optionally client certificates checked against the CA certificates of
// ssl.truststore.location (ssl.client.auth).
struct TlsOptions {
  enum class ClientAuth { kNone, kRequested, kRequired };
  std::string keystore_pem;
  std::string truststore_pem;
  ClientAuth client_auth = ClientAuth::kNone;
};

// INVALID_ARGUMENT naming the setting (ssl.keystore.location, ssl.truststore.location)
// and the file when one cannot be loaded.
absl::StatusOr<std::shared_ptr<asio::ssl::context>> MakeServerTlsContext(const TlsOptions& options);

// A dynamic broker config that names one of a listener's TLS files, Kafka's
// listener.name.<listener>.ssl.keystore.location / .ssl.truststore.location: the listener
// (lower case, as in the key) and the setting (ssl.keystore.location...); nullopt for
// another key.
struct ListenerTlsKey {
  std::string listener;
  std::string setting;
};
std::optional<ListenerTlsKey> ParseListenerTlsKey(const std::string& key);
// Whether path loads as that setting's file (a keystore: a certificate chain and its
// private key in one PEM file; a truststore: CA certificates); INVALID_ARGUMENT naming
// the setting and the file otherwise.
absl::Status CheckTlsFile(const std::string& setting, const std::string& path);

}  // namespace strata::broker
