#pragma once
// TLS for the control plane's gRPC ports (controllers' Raft, ControllerService,
// AdminService and the metadata stream), from Kafka-style PEM files: a keystore that
// holds the node's private key and certificate chain in one file, and a truststore of CA
// certificates. Servers require a client certificate that chains to the truststore and
// refuse any other in the handshake; clients verify the server's certificate against
// the truststore and the address they dial. Both re-read the files every
// kTlsFilesRefresh, so rotated certificates take effect without a restart (replace a
// file by renaming over it: a key and a chain read half-way through are never paired).
// Thread-safe (free functions; the credentials gRPC keeps are its own).

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"

namespace grpc {
class ChannelCredentials;
class ServerCredentials;
}  // namespace grpc

namespace strata::security {

inline constexpr std::chrono::seconds kTlsFilesRefresh{1};

struct TlsFiles {
  std::string keystore;    // PEM: the private key and the certificate chain
  std::string truststore;  // PEM: the CA certificates peers are checked against
  bool enabled() const { return !keystore.empty(); }
};

// Reads both files and checks that they hold what they must (a key, a certificate that
// matches it, at least one CA certificate): a node checks this at start, since gRPC's
// own reloading only logs a bad file. INVALID_ARGUMENT or NOT_FOUND naming the file.
absl::Status CheckTlsFiles(const TlsFiles& files);

// Insecure credentials when files are not enabled (plaintext, for local development).
std::shared_ptr<grpc::ServerCredentials> ServerCredentials(const TlsFiles& files);
std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials(const TlsFiles& files);

}  // namespace strata::security
