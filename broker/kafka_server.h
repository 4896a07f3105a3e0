#pragma once
// KafkaServer: the Kafka protocol listener (Asio). Each connection reads size-prefixed
// request frames, hands each to the RequestHandler and writes the responses back in
// request order (a connection's requests are handled one after another; connections
// run in parallel on num.network.threads I/O threads). A frame whose size is negative
// or above socket.request.max.bytes, a header that does not parse, or an api key the
// handler does not know closes that connection and nothing else; a connection idle for
// connections.max.idle.ms is closed.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/header.h"

namespace strata::broker {

struct KafkaServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: a free port
  int network_threads = 2;                              // num.network.threads
  int32_t max_request_bytes = 100 << 20;               // socket.request.max.bytes
  std::chrono::milliseconds idle_timeout{600'000};      // connections.max.idle.ms
};

// The answer to one request: the response body (after the response header), nullopt
// for no response (acks=0 produce), or an error that closes the connection.
using KafkaHandler = std::function<absl::StatusOr<std::optional<std::string>>(
    const proto::kafka::RequestHeader& header, absl::string_view body)>;

class KafkaServer {
 public:
  static absl::StatusOr<std::unique_ptr<KafkaServer>> Start(const KafkaServerOptions& options, KafkaHandler handler);
  ~KafkaServer();  // stops accepting, closes every connection, joins the threads

  int port() const { return port_; }
  int64_t connections_closed_on_error() const { return closed_on_error_.load(); }

 private:
  struct Impl;
  KafkaServer() = default;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::atomic<int64_t> closed_on_error_{0};
};

}  // namespace strata::broker
