#pragma once
// TlsSession: the TLS side of a KafkaConnection (security.protocol SSL and SASL_SSL), over
// OpenSSL on a connected socket. The handshake checks the broker's chain against the
// truststore and, unless told not to, that its certificate names the host connected to
// (a DNS name or an IP address in subjectAltName); a client certificate goes with it when
// a keystore is configured. The files are read at each handshake, so that a renewed
// certificate is used by the next connection without a restart.
// The socket is non-blocking underneath: each OpenSSL call runs under one lock and a
// caller waits with poll() outside it, so that one thread may Write while another Reads
// (a producer's writer and reader) although an SSL object is not thread-safe.
// Thread-safe as that: one reader and one writer at a time.

#include <chrono>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "client/client_security.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace strata::client {

class TlsSession {
 public:
  // Handshakes on `fd` (connected; made non-blocking here) with the broker `host`
  // (`name` is host:port, for messages), within `timeout`. UNAVAILABLE for a failed
  // handshake, naming OpenSSL's reason (an unknown CA, a host the certificate does not
  // name, a protocol error).
  static absl::StatusOr<std::unique_ptr<TlsSession>> Handshake(int fd, const std::string& host, const std::string& name,
                                                               const ClientSecurity& security,
                                                               std::chrono::milliseconds timeout);
  ~TlsSession();
  TlsSession(const TlsSession&) = delete;
  TlsSession& operator=(const TlsSession&) = delete;

  // Reads up to n bytes (at least one), waiting up to `timeout` for them: 0 when the
  // broker closed the connection, DEADLINE_EXCEEDED when nothing came in time.
  absl::StatusOr<size_t> Read(char* out, size_t n, std::chrono::milliseconds timeout);
  // Writes all n bytes.
  absl::Status Write(const char* data, size_t n);
  // Decrypted bytes ready to be read without waiting.
  bool pending();

 private:
  TlsSession(int fd, std::string name, SSL_CTX* context, SSL* ssl) : fd_(fd), name_(std::move(name)), context_(context), ssl_(ssl) {}
  // Waits for the socket to be readable (want_write: writable); false on timeout.
  bool Wait(bool want_write, std::chrono::milliseconds timeout) const;

  const int fd_;
  const std::string name_;
  SSL_CTX* const context_;
  absl::Mutex mutex_;
  SSL* const ssl_ ABSL_PT_GUARDED_BY(mutex_);
};

}  // namespace strata::client
