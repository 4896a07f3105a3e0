#include "client/tls_session.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "absl/strings/str_cat.h"

namespace strata::client {

namespace {

// OpenSSL's reason for the last failure on this thread (and clears the queue).
std::string OpenSslReason() {
  std::string reason;
  while (unsigned long e = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(e, text, sizeof(text));
    absl::StrAppend(&reason, reason.empty() ? "" : "; ", text);
  }
  return reason.empty() ? "no reason given" : reason;
}

bool IsIpAddress(const std::string& host) {
  unsigned char address[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), address) == 1 || inet_pton(AF_INET6, host.c_str(), address) == 1;
}

// A context with the truststore and, when configured, the client's keystore.
absl::StatusOr<SSL_CTX*> MakeContext(const ClientSecurity& security) {
  SSL_CTX* context = SSL_CTX_new(TLS_client_method());
  if (context == nullptr) return absl::InternalError(absl::StrCat("SSL_CTX_new: ", OpenSslReason()));
  SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
  SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nullptr);
  absl::Status status;
  if (SSL_CTX_load_verify_locations(context, security.truststore_pem.c_str(), nullptr) != 1) {
    status = absl::InvalidArgumentError(
        absl::StrCat("ssl.truststore.location ", security.truststore_pem, ": ", OpenSslReason()));
  } else if (!security.keystore_pem.empty() &&
             (SSL_CTX_use_certificate_chain_file(context, security.keystore_pem.c_str()) != 1 ||
              SSL_CTX_use_PrivateKey_file(context, security.keystore_pem.c_str(), SSL_FILETYPE_PEM) != 1 ||
              SSL_CTX_check_private_key(context) != 1)) {
    status = absl::InvalidArgumentError(
        absl::StrCat("ssl.keystore.location ", security.keystore_pem, ": ", OpenSslReason()));
  }
  if (!status.ok()) {
    SSL_CTX_free(context);
    return status;
  }
  return context;
}

}  // namespace

absl::StatusOr<std::unique_ptr<TlsSession>> TlsSession::Handshake(int fd, const std::string& host,
                                                                  const std::string& name,
                                                                  const ClientSecurity& security,
                                                                  std::chrono::milliseconds timeout) {
  // OpenSSL writes with write(2): a broker that closed the connection would end the
  // process with SIGPIPE. The broken pipe is reported as EPIPE instead (as the listener does).
  static const bool sigpipe_ignored = [] { return std::signal(SIGPIPE, SIG_IGN) != SIG_ERR; }();
  (void)sigpipe_ignored;
  ERR_clear_error();
  auto context = MakeContext(security);
  if (!context.ok()) return context.status();
  SSL* ssl = SSL_new(*context);
  if (ssl == nullptr) {
    SSL_CTX_free(*context);
    return absl::InternalError(absl::StrCat("SSL_new: ", OpenSslReason()));
  }
  std::unique_ptr<TlsSession> session(new TlsSession(fd, name, *context, ssl));
  SSL_set_fd(ssl, fd);
  SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  if (!IsIpAddress(host)) SSL_set_tlsext_host_name(ssl, host.c_str());
  if (security.verify_hostname) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
    int set = IsIpAddress(host) ? X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str())
                                : X509_VERIFY_PARAM_set1_host(param, host.c_str(), host.size());
    if (set != 1) return absl::InvalidArgumentError(absl::StrCat("cannot check certificates for host '", host, "'"));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  absl::MutexLock lock(&session->mutex_);
  while (true) {
    ERR_clear_error();
    int r = SSL_connect(ssl);
    if (r == 1) break;
    int error = SSL_get_error(ssl, r);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if ((error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) && left.count() > 0) {
      if (!session->Wait(error == SSL_ERROR_WANT_WRITE, left)) {
        return absl::DeadlineExceededError(absl::StrCat("TLS handshake with ", name, " did not finish in time"));
      }
      continue;
    }
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      return absl::DeadlineExceededError(absl::StrCat("TLS handshake with ", name, " did not finish in time"));
    }
    long verify = SSL_get_verify_result(ssl);
    std::string reason = verify != X509_V_OK ? X509_verify_cert_error_string(verify)
                         : error == SSL_ERROR_SYSCALL && ERR_peek_error() == 0
                             ? std::string(errno != 0 ? std::strerror(errno) : "the broker closed the connection")
                             : OpenSslReason();
    return absl::UnavailableError(absl::StrCat("TLS handshake with ", name, " failed: ", reason));
  }
  return session;
}

TlsSession::~TlsSession() {
  {
    absl::MutexLock lock(&mutex_);
    SSL_free(ssl_);
  }
  SSL_CTX_free(context_);
}

bool TlsSession::Wait(bool want_write, std::chrono::milliseconds timeout) const {
  pollfd p{fd_, static_cast<short>(want_write ? POLLOUT : POLLIN), 0};
  while (true) {
    int r = poll(&p, 1, timeout.count() < 0 ? -1 : static_cast<int>(timeout.count()));
    if (r > 0) return true;  // ready, closed or failed: the next call tells which
    if (r == 0) return false;
    if (errno != EINTR) return true;
  }
}

bool TlsSession::pending() {
  absl::MutexLock lock(&mutex_);
  return SSL_pending(ssl_) > 0;
}

absl::StatusOr<size_t> TlsSession::Read(char* out, size_t n, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int r, error;
    std::string reason;
    {
      absl::MutexLock lock(&mutex_);
      ERR_clear_error();
      r = SSL_read(ssl_, out, static_cast<int>(std::min<size_t>(n, INT32_MAX)));
      error = r > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, r);
      if (error == SSL_ERROR_SSL) reason = OpenSslReason();
    }
    if (r > 0) return static_cast<size_t>(r);
    if (error == SSL_ERROR_ZERO_RETURN) return 0;
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !Wait(error == SSL_ERROR_WANT_WRITE, left)) {
        return absl::DeadlineExceededError(absl::StrCat("no response from ", name_, " within the timeout"));
      }
      continue;
    }
    if (error == SSL_ERROR_SYSCALL) {
      if (errno == 0 || errno == ECONNRESET || errno == EPIPE) return 0;  // closed without close_notify
      return absl::UnavailableError(absl::StrCat("cannot read from ", name_, ": ", std::strerror(errno)));
    }
    return absl::UnavailableError(absl::StrCat("TLS error reading from ", name_, ": ", reason));
  }
}

absl::Status TlsSession::Write(const char* data, size_t n) {
  size_t written = 0;
  while (written < n) {
    int r, error;
    std::string reason;
    {
      absl::MutexLock lock(&mutex_);
      ERR_clear_error();
      r = SSL_write(ssl_, data + written, static_cast<int>(std::min<size_t>(n - written, INT32_MAX)));
      error = r > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl_, r);
      if (error == SSL_ERROR_SSL) reason = OpenSslReason();
    }
    if (r > 0) {
      written += static_cast<size_t>(r);
      continue;
    }
    if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
      Wait(error == SSL_ERROR_WANT_WRITE, std::chrono::milliseconds(-1));
      continue;
    }
    if (error == SSL_ERROR_SYSCALL) {
      return absl::UnavailableError(absl::StrCat("cannot write to ", name_, ": ",
                                                 errno != 0 ? std::strerror(errno) : "connection closed"));
    }
    return absl::UnavailableError(absl::StrCat("TLS error writing to ", name_, ": ", reason));
  }
  return absl::OkStatus();
}

}  // namespace strata::client
