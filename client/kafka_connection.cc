#include "client/kafka_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/host_port.h"
#include "proto/kafka/api.h"
#include "proto/kafka/header.h"
#include "proto/kafka/wire.h"
#include "client/sasl_client.h"

namespace strata::client {

namespace kafka = strata::proto::kafka;

namespace {

// No response strata-perf asks for comes near this; a larger size means the stream is
// out of step or the peer is not a Kafka broker.
constexpr int32_t kMaxResponseBytes = 1 << 30;

absl::Status Errno(absl::string_view what, const std::string& name) {
  return absl::UnavailableError(absl::StrCat(what, " ", name, ": ", std::strerror(errno)));
}

}  // namespace

absl::Status ParseHostPort(absl::string_view text, std::string* host, int* port) {
  absl::StatusOr<strata::HostPort> parsed = strata::ParseHostPort(text);
  if (!parsed.ok()) return parsed.status();
  *host = std::move(parsed->host);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') *host = host->substr(1, host->size() - 2);
  *port = parsed->port;
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<KafkaConnection>> KafkaConnection::Connect(const std::string& host, int port,
                                                                          std::chrono::milliseconds receive_timeout,
                                                                          const ClientSecurity& security) {
  if (absl::Status valid = ValidateClientSecurity(security); !valid.ok()) return valid;
  std::string name = absl::StrCat(host, ":", port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0) return absl::UnavailableError(absl::StrCat("cannot resolve ", name, ": ", gai_strerror(rc)));
  int fd = -1;
  int last_errno = 0;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_errno = errno;
      continue;
    }
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
    last_errno = errno;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(found);
  if (fd < 0) {
    errno = last_errno;
    return Errno("cannot connect to", name);
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  auto usec = std::chrono::duration_cast<std::chrono::microseconds>(receive_timeout).count();
  timeval timeout{static_cast<time_t>(usec / 1'000'000), static_cast<suseconds_t>(usec % 1'000'000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  std::unique_ptr<KafkaConnection> connection(new KafkaConnection(fd, name, receive_timeout));
  connection->security_ = security;
  if (security.tls()) {
    auto tls = TlsSession::Handshake(fd, host, name, security, receive_timeout);
    if (!tls.ok()) return tls.status();
    connection->tls_ = *std::move(tls);
  }
  if (security.sasl()) {
    if (absl::Status authenticated = connection->Authenticate(); !authenticated.ok()) return authenticated;
  }
  return connection;
}

absl::Status KafkaConnection::Authenticate() {
  reauthenticate_at_.reset();
  auto lifetime = SaslAuthenticate(
      [this](int16_t api_key, int16_t api_version, absl::string_view body) -> absl::StatusOr<std::string> {
        auto answer = Call(api_key, api_version, body);
        if (!answer.ok()) return answer.status();
        return std::string(answer->body());
      },
      name_, security_);
  if (!lifetime.ok()) return lifetime.status();
  if (lifetime->count() > 0) reauthenticate_at_ = std::chrono::steady_clock::now() + *lifetime * 85 / 100;
  return absl::OkStatus();
}

KafkaConnection::~KafkaConnection() { close(fd_); }

void KafkaConnection::Shutdown() { shutdown(fd_, SHUT_RDWR); }

absl::StatusOr<int32_t> KafkaConnection::Send(int16_t api_key, int16_t api_version, absl::string_view body,
                                              bool expect_response) {
  kafka::RequestHeader header;
  header.api_key = api_key;
  header.api_version = api_version;
  header.correlation_id = next_correlation_id_++;
  header.client_id = "strata-perf";
  std::string prefix;  // size + header; the body goes out from the caller's buffer
  kafka::Writer writer(&prefix);
  writer.Int32(0);
  kafka::WriteRequestHeader(header, writer);
  uint64_t frame_size = prefix.size() - 4 + body.size();
  if (frame_size > static_cast<uint64_t>(INT32_MAX)) return absl::InvalidArgumentError("request too large");
  writer.PatchInt32(0, static_cast<int32_t>(frame_size));
  if (expect_response) {
    // Queued before the bytes go out: the reader may see the response before writev returns.
    absl::MutexLock lock(&mutex_);
    awaiting_.push_back({api_key, api_version, header.correlation_id});
  }
  iovec parts[2] = {{prefix.data(), prefix.size()}, {const_cast<char*>(body.data()), body.size()}};
  if (absl::Status written = WriteAll(parts, 2); !written.ok()) return written;
  return header.correlation_id;
}

absl::Status KafkaConnection::WriteAll(iovec* parts, int count) {
  if (tls_) {
    for (int i = 0; i < count; ++i) {
      if (absl::Status s = tls_->Write(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  int first = 0;
  while (first < count) {
    msghdr message{};
    message.msg_iov = parts + first;
    message.msg_iovlen = static_cast<size_t>(count - first);
    ssize_t n = sendmsg(fd_, &message, MSG_NOSIGNAL);  // a closed peer is an error, not SIGPIPE
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("cannot write to", name_);
    }
    size_t written = static_cast<size_t>(n);
    while (first < count && written >= parts[first].iov_len) {
      written -= parts[first].iov_len;
      ++first;
    }
    if (first < count) {
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + written;
      parts[first].iov_len -= written;
    }
  }
  return absl::OkStatus();
}

absl::Status KafkaConnection::ReadExactly(char* out, size_t n) {
  size_t got = 0;
  while (tls_ && got < n) {
    auto k = tls_->Read(out + got, n - got, receive_timeout_);
    if (!k.ok()) return k.status();
    if (*k == 0) return absl::UnavailableError(absl::StrCat(name_, " closed the connection"));
    got += *k;
  }
  while (got < n) {
    ssize_t k = read(fd_, out + got, n - got);
    if (k > 0) {
      got += static_cast<size_t>(k);
    } else if (k == 0) {
      return absl::UnavailableError(absl::StrCat(name_, " closed the connection"));
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      return absl::DeadlineExceededError(absl::StrCat("no response from ", name_, " within the timeout"));
    } else if (errno != EINTR) {
      return Errno("cannot read from", name_);
    }
  }
  return absl::OkStatus();
}

void KafkaConnection::PollForResponse() {
  if (receive_poll_.count() <= 0 || (tls_ && tls_->pending())) return;
  const auto until = std::chrono::steady_clock::now() + receive_poll_;
  char byte;
  do {
    // Data, the peer's close or an error ends the polling; the blocking read sees which.
    if (recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return;
    sched_yield();
  } while (std::chrono::steady_clock::now() < until);
}

absl::StatusOr<KafkaResponse> KafkaConnection::Receive() {
  Pending pending;
  {
    absl::MutexLock lock(&mutex_);
    if (awaiting_.empty()) return absl::FailedPreconditionError("no request awaits a response");
    pending = awaiting_.front();
  }
  PollForResponse();
  char size_bytes[4];
  if (absl::Status s = ReadExactly(size_bytes, 4); !s.ok()) return s;
  kafka::Reader size_reader(absl::string_view(size_bytes, 4));
  int32_t size = size_reader.Int32("size");
  if (size < 4 || size > kMaxResponseBytes) {
    return absl::DataLossError(absl::StrCat(name_, " sent a response frame of ", size, " bytes"));
  }
  KafkaResponse response;
  response.api_key = pending.api_key;
  response.api_version = pending.api_version;
  response.frame.resize(static_cast<size_t>(size));
  if (absl::Status s = ReadExactly(response.frame.data(), response.frame.size()); !s.ok()) return s;
  kafka::Reader reader(response.frame);
  response.correlation_id = reader.Int32("correlation_id");
  if (kafka::ResponseHeaderVersion(pending.api_key, pending.api_version) >= 1) {
    reader.SkipTaggedFields("response header tagged fields");
  }
  if (!reader.ok())
    return absl::DataLossError(absl::StrCat(name_, ": bad response header: ", reader.status().message()));
  if (response.correlation_id != pending.correlation_id) {
    return absl::DataLossError(absl::StrCat(name_, " answered correlation id ", response.correlation_id, " where ",
                                            pending.correlation_id, " (", kafka::ApiName(pending.api_key),
                                            ") was due"));
  }
  response.body_offset = reader.position();
  absl::MutexLock lock(&mutex_);
  awaiting_.pop_front();
  return response;
}

absl::StatusOr<KafkaResponse> KafkaConnection::Call(int16_t api_key, int16_t api_version, absl::string_view body) {
  if (reauthenticate_at_ && std::chrono::steady_clock::now() >= *reauthenticate_at_) {
    bool idle;
    {
      absl::MutexLock lock(&mutex_);
      idle = awaiting_.empty();
    }
    if (idle) {
      if (absl::Status again = Authenticate(); !again.ok()) return again;
    }
  }
  absl::StatusOr<int32_t> sent = Send(api_key, api_version, body);
  if (!sent.ok()) return sent.status();
  return Receive();
}

}  // namespace strata::client
