#pragma once
// Listener: the Kafka protocol listener (Asio). Each connection reads size-prefixed
// request frames and hands each to the handler; responses go back in request order.
// Sockets are served by num.network.threads I/O threads; handlers run on a pool of
// num.io.threads, or on the network thread for the APIs named by on_network_thread, and
// may answer later from any thread (a fetch waiting in the purgatory, an acks=all
// produce waiting for its followers). Pipelining: a request handled on the network
// thread lets the connection read and handle the next one before it is answered, up to
// max_in_flight_requests (an acks=all produce waits for replication while the next one
// appends, so the followers fetch both at once); a request handed to the pool stops the
// reading until it is answered, as Kafka mutes a connection with a request in flight,
// since pool handlers may run in any order; and such a request read behind unanswered
// ones is handled only once they are answered, when Kafka would have read it (handled at
// once, a Metadata answer waiting behind a delayed fetch would name leaders that moved
// meanwhile). A frame whose size is negative or above socket.request.max.bytes, a
// header that does not parse, or a request the handler refuses closes that connection
// and nothing else; a connection idle for connections.max.idle.ms is closed.
// On a SASL listener a connection authenticates first (authenticator.h): until then only
// ApiVersions, SaslHandshake and SaslAuthenticate are served and any other request closes
// it; a failed authentication closes it once its answer is written; a request after the
// session expired (connections.max.reauth.ms) that does not re-authenticate closes it.
// Every request carries its connection's principal (RequestHeader::principal).
// Record data travels as file slices spliced into the response: on PLAINTEXT sent with
// File::SendFile (sendfile(2) behind the storage FileOps seam, so injected faults reach
// it), without passing through user space; on SSL read into memory and
// encrypted (a failed or short read sends none of it). A slice that cannot be read (I/O error, or a file
// shorter than promised) is reported to the slice's failure handler (which re-reads the
// region and takes the log dir offline when the file is at fault,
// storage/transfer_failure_checker.h) and the connection closes as a disconnect: the
// frame's size was already sent, so no other bytes may stand in for the missing ones.
// Starting a server ignores SIGPIPE for the process (sendfile cannot be told not to
// raise it; a client gone mid-transfer is an EPIPE instead).
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
#include "broker/network/api_response.h"
#include "broker/network/tls_context.h"
#include "broker/network/authenticator.h"
#include "broker/network/request_metrics.h"
#include "proto/kafka/header.h"
#include "storage/file_slice.h"

namespace strata::broker {

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 0;  // 0: a free port
  // Each network thread runs its own event loop and serves the connections given to it
  // (round robin at accept).
  int network_threads = 2;                              // num.network.threads
  // How long a network thread keeps polling its sockets after its last event before it
  // sleeps (network.idle.poll.us): an event that comes sooner is served without a
  // wake-up. 0: it sleeps at once.
  std::chrono::microseconds idle_poll{0};
  int io_threads = 2;                                   // num.io.threads
  int32_t max_request_bytes = 100 << 20;               // socket.request.max.bytes
  std::chrono::milliseconds idle_timeout{600'000};      // connections.max.idle.ms
  std::optional<TlsOptions> tls;                        // set: an SSL listener
  // Counts requests, errors and their times (request_metrics.h); null: not counted.
  RequestMetrics* metrics = nullptr;
  // The APIs whose handlers run on the network thread that read the request, rather
  // than being handed to the io pool (a thread switch each way): handlers that never
  // block, since the thread serves many connections. Null: every API on the pool.
  std::function<bool(int16_t api_key)> on_network_thread;
  // Requests of one connection read and handled before the first is answered
  // (max.in.flight.requests.per.connection; 1: one at a time, as Kafka).
  int max_in_flight_requests = 5;
  // Called once when a connection closes, with the connection_id its requests carried
  // (RequestHeader::connection_id); null: not told.
  std::function<void(uint64_t connection_id)> on_connection_closed;
  // A SASL listener (SASL_PLAINTEXT, SASL_SSL): each connection's authenticator
  // (authenticator.h); requests carry its principal. Null: no SASL.
  std::function<std::unique_ptr<ConnectionAuthenticator>()> sasl;
  // An SSL listener without SASL: the principal name of a client certificate's subject
  // (RFC 2253; ssl.principal.mapping.rules), nullopt refusing the connection. Without a
  // certificate, or without this, requests carry User:ANONYMOUS.
  std::function<std::optional<std::string>(const std::string& subject)> tls_principal;
};

// body stays valid until the responder is called.
using KafkaHandler =
    std::function<void(const proto::kafka::RequestHeader& header, absl::string_view body, ApiResponder respond)>;

class Listener {
 public:
  static absl::StatusOr<std::unique_ptr<Listener>> Start(const ListenerOptions& options, KafkaHandler handler);
  ~Listener();  // stops accepting, closes every connection, joins the threads

  int port() const { return port_; }
  int64_t connections_closed_on_error() const { return closed_on_error_.load(); }
  // Connections open now.
  size_t active_connections() const;
  // An SSL listener serves the connections accepted from now on with options' keystore
  // and truststore (the open ones keep theirs); the files are loaded first, and one that
  // cannot be leaves the listener as it was (INVALID_ARGUMENT naming it).
  // FAILED_PRECONDITION on a listener without TLS.
  absl::Status ReloadTls(const TlsOptions& options);
  // Bytes sent with sendfile(2) so far (tests check the zero-copy path was taken).
  int64_t bytes_sent_from_files() const { return bytes_from_files_.load(); }
  // File slices whose transfer failed (each closed its connection).
  int64_t transfer_failures() const { return transfer_failures_.load(); }

 private:
  struct Impl;
  Listener() = default;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
  std::atomic<int64_t> closed_on_error_{0};
  std::atomic<int64_t> bytes_from_files_{0};
  std::atomic<int64_t> transfer_failures_{0};
};

}  // namespace strata::broker
