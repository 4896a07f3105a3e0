#pragma once
// A blocking Kafka protocol connection (strata-perf, the replica fetchers, the strata
// CLI): one TCP socket to one broker, size-prefixed request frames out (header + body,
// written with sendmsg until every byte is out), response frames in (read until the
// whole frame is in). Responses come back in request order, so the connection keeps the
// queue of requests awaiting one and checks each response's correlation id against it.
// With a ClientSecurity (client_security.h) it speaks TLS (tls_session.h) and
// authenticates with SASL (sasl_client.h) before Connect returns; a SASL session with a
// lifetime (KIP-368) is re-authenticated by Call between requests, once 85% of it has
// passed (a pipelining caller of Send and Receive does not get that: its connection
// ends with the session, and it reconnects).
// Thread-safety: one thread may Send while another Receives (a producer's writer and
// reader); Send is not safe from two threads at once, nor Receive. Shutdown is safe
// from any thread and wakes both.

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <sys/uio.h>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "client/client_security.h"
#include "client/tls_session.h"

namespace strata::client {

// A response frame without its size: the response header, then the body from
// body_offset. `frame` owns the bytes the body views.
struct KafkaResponse {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::string frame;
  size_t body_offset = 0;
  absl::string_view body() const { return absl::string_view(frame).substr(body_offset); }
};

class KafkaConnection {
 public:
  // Connects to host:port (a name or an address). `receive_timeout` bounds each wait for
  // response bytes: a broker that stops answering becomes an error, not a hang.
  // With `security`, TLS and SASL as it says (the default: PLAINTEXT).
  static absl::StatusOr<std::unique_ptr<KafkaConnection>> Connect(const std::string& host, int port,
                                                                  std::chrono::milliseconds receive_timeout,
                                                                  const ClientSecurity& security = {});
  ~KafkaConnection();
  KafkaConnection(const KafkaConnection&) = delete;
  KafkaConnection& operator=(const KafkaConnection&) = delete;

  // Writes one request; returns its correlation id. With expect_response false (a
  // Produce with acks=0) no response is awaited for it.
  absl::StatusOr<int32_t> Send(int16_t api_key, int16_t api_version, absl::string_view body,
                               bool expect_response = true);
  // Reads the next response. REQUIRES: a request awaiting one.
  absl::StatusOr<KafkaResponse> Receive();
  // Send, then Receive: for requests that are not pipelined. Re-authenticates first
  // when the SASL session is near its end.
  absl::StatusOr<KafkaResponse> Call(int16_t api_key, int16_t api_version, absl::string_view body);
  // Shuts the socket down both ways: a blocked Send or Receive returns an error.
  void Shutdown();

  const std::string& name() const { return name_; }  // host:port, for messages

  // Receive polls the socket for up to `poll` before it blocks (0, the default: it blocks
  // at once); a response that comes sooner is read without a wake-up. Before any Receive.
  void set_receive_poll(std::chrono::microseconds poll) { receive_poll_ = poll; }

 private:
  struct Pending {
    int16_t api_key;
    int16_t api_version;
    int32_t correlation_id;
  };
  KafkaConnection(int fd, std::string name, std::chrono::milliseconds receive_timeout)
      : fd_(fd), name_(std::move(name)), receive_timeout_(receive_timeout) {}
  absl::Status WriteAll(iovec* parts, int count);
  absl::Status ReadExactly(char* out, size_t n);
  void PollForResponse();
  // SASL (again, when reauthenticating); sets reauthenticate_at_.
  absl::Status Authenticate();

  const int fd_;
  const std::string name_;
  const std::chrono::milliseconds receive_timeout_;
  ClientSecurity security_;
  std::unique_ptr<TlsSession> tls_;  // SSL, SASL_SSL
  std::optional<std::chrono::steady_clock::time_point> reauthenticate_at_;  // Call's thread only
  std::chrono::microseconds receive_poll_{0};
  int32_t next_correlation_id_ = 1;  // Send's thread only
  absl::Mutex mutex_;
  std::deque<Pending> awaiting_ ABSL_GUARDED_BY(mutex_);
};

// "host:port" -> host and port (base/host_port.h; an IPv6 host without its brackets, for
// getaddrinfo); an error naming `text` when it is not that.
absl::Status ParseHostPort(absl::string_view text, std::string* host, int* port);

}  // namespace strata::client
