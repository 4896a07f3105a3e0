#include "broker/network/listener.h"

#include <sched.h>

#include <cerrno>
#include <csignal>
#include <deque>
#include <functional>
#include <utility>

#include <asio.hpp>
#include <asio/ssl.hpp>
#include <set>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/network/tls_context.h"
#include "proto/kafka/api.h"
#include "storage/errc.h"

namespace strata::broker {

namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Lets responders called after the server stopped drop their answer safely.
struct Lifetime {
  absl::Mutex mu;
  bool alive ABSL_GUARDED_BY(mu) = true;
};

struct Shared {
  ListenerOptions options;
  KafkaHandler handler;
  std::atomic<int64_t>* closed_on_error = nullptr;
  std::atomic<int64_t>* bytes_from_files = nullptr;
  std::atomic<int64_t>* transfer_failures = nullptr;
  std::shared_ptr<Lifetime> lifetime = std::make_shared<Lifetime>();
  std::unique_ptr<asio::thread_pool> io_pool;
  // SSL listeners: the context new connections take (Listener::ReloadTls replaces it;
  // a connection keeps the one it took).
  absl::Mutex tls_mu;
  std::shared_ptr<asio::ssl::context> tls ABSL_GUARDED_BY(tls_mu);

  std::shared_ptr<asio::ssl::context> CurrentTls() {
    absl::MutexLock lock(&tls_mu);
    return tls;
  }
};

class Connection;

// Connection numbers (RequestHeader::connection_id), from 1.
std::atomic<uint64_t> next_connection_id{1};

// A request a connection read and has not answered yet.
struct InFlight {
  std::string frame;  // the request's bytes (the handler's body points into it)
  proto::kafka::RequestHeader header;
  size_t body_offset = 0;  // where the body starts in frame
  uint64_t sequence = 0;  // in the connection's read order
  bool on_pool = false;   // handed to the io pool
  Clock::time_point read_at;
  int64_t request_queue_micros = 0;
  int64_t response_queue_micros = 0;
  // Set once answered: a response, none (acks=0), or an error that closes the connection.
  std::optional<absl::StatusOr<std::optional<ApiResponse>>> answer;
  Clock::time_point answered_at;
  // SASL: a raw token frame (after a v0 handshake) is answered without a header; a failed
  // authentication closes the connection once its answer is written.
  bool raw = false;
  bool close_after = false;
  std::string close_why;
};

// Every open connection, so the server can close them all when it stops.
struct Registry {
  absl::Mutex mu;
  std::set<std::shared_ptr<Connection>> connections ABSL_GUARDED_BY(mu);
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, Shared& shared, Registry& registry)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        mute_timer_(socket_.get_executor()),
        shared_(shared),
        registry_(registry) {
    tls_context_ = shared_.CurrentTls();
    if (tls_context_) tls_ = std::make_unique<asio::ssl::stream<tcp::socket&>>(socket_, *tls_context_);
    if (shared_.options.sasl) sasl_ = shared_.options.sasl();
  }

  void Start() {
    if (!tls_) return ReadSize();
    ArmIdleTimer();
    tls_->async_handshake(asio::ssl::stream_base::server, [self = shared_from_this()](const asio::error_code& ec) {
      if (ec) return self->Close(absl::StrCat("TLS handshake failed: ", ec.message()), true);
      if (absl::Status mapped = self->MapCertificate(); !mapped.ok()) return self->Close(mapped.message(), true);
      self->ReadSize();
    });
  }

  void Close(absl::string_view why, bool error = false) {
    if (closed_) return;
    closed_ = true;
    if (shared_.options.on_connection_closed) shared_.options.on_connection_closed(id_);
    if (error) {
      ++*shared_.closed_on_error;
      spdlog::warn("kafka connection from {} closed: {}", peer_, why);
    }
    asio::error_code ignored;
    timer_.cancel();
    mute_timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);  // under TLS too: no close_notify wait
    socket_.close(ignored);
    held_ = nullptr;  // not handled: nobody is there for its answer (and it holds this connection)
    absl::MutexLock lock(&registry_.mu);
    registry_.connections.erase(shared_from_this());
  }

 private:
  // Reads and writes go through TLS on an SSL listener.
  template <typename Buffers, typename Handler>
  void Read(const Buffers& buffers, Handler&& handler) {
    if (tls_) return asio::async_read(*tls_, buffers, std::forward<Handler>(handler));
    asio::async_read(socket_, buffers, std::forward<Handler>(handler));
  }
  template <typename Buffers, typename Handler>
  void Write(const Buffers& buffers, Handler&& handler) {
    if (tls_) return asio::async_write(*tls_, buffers, std::forward<Handler>(handler));
    asio::async_write(socket_, buffers, std::forward<Handler>(handler));
  }

  void ArmIdleTimer() {
    timer_.expires_after(shared_.options.idle_timeout);
    timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      if (!ec) self->Close("idle");
    });
  }

  // Reads the next request when the pipeline allows it: fewer than
  // max_in_flight_requests in flight, none of them handed to the io pool (those may
  // run in any order, so a connection that sent one waits for its answer, as Kafka's
  // does), no read already waiting, and the connection open.
  void MaybeReadNext() {
    if (reading_ || closed_ || pool_requests_ > 0) return;
    if (in_flight_.size() >= static_cast<size_t>(std::max(1, shared_.options.max_in_flight_requests))) return;
    // Only a connection ever throttled reads the clock here.
    if (muted_until_ != Clock::time_point{} && Clock::now() < muted_until_) return ArmMuteTimer();
    ReadSize();
  }

  // A throttled client's connection (ApiResponse::throttle): read again once its
  // throttle time has passed, as Kafka unmutes a throttled channel.
  void ArmMuteTimer() {
    if (mute_armed_) return;
    mute_armed_ = true;
    mute_timer_.expires_at(muted_until_);
    mute_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      self->mute_armed_ = false;
      if (!ec) self->MaybeReadNext();
    });
  }

  void ReadSize() {
    if (peer_.empty()) {
      asio::error_code ec;
      auto endpoint = socket_.remote_endpoint(ec);
      peer_ = ec ? "?" : absl::StrCat(endpoint.address().to_string(), ":", endpoint.port());
      client_host_ = ec ? "" : absl::StrCat("/", endpoint.address().to_string());
    }
    reading_ = true;
    if (in_flight_.empty()) ArmIdleTimer();  // not idle while a request is being served
    Read(asio::buffer(size_buf_), [self = shared_from_this()](const asio::error_code& ec, size_t) {
      if (ec) return self->Close("peer closed");
      int32_t size = 0;
      for (unsigned char b : self->size_buf_) size = static_cast<int32_t>(static_cast<uint32_t>(size) << 8 | b);
      if (size < 0 || size > self->shared_.options.max_request_bytes) {
        return self->Close(absl::StrCat("request size ", size, " is outside 0..",
                                        self->shared_.options.max_request_bytes, " (socket.request.max.bytes)"),
                           true);
      }
      auto request = std::make_unique<InFlight>();
      request->frame.resize(static_cast<size_t>(size));
      self->ReadFrame(std::move(request));
    });
  }

  void ReadFrame(std::unique_ptr<InFlight> request) {
    InFlight* r = request.get();
    Read(asio::buffer(r->frame), [self = shared_from_this(), request = std::move(request)](const asio::error_code& ec,
                                                                                          size_t) mutable {
      if (ec) return self->Close("peer closed mid-request");
      request->read_at = Clock::now();
      self->timer_.cancel();
      self->reading_ = false;
      self->Dispatch(std::move(request));
    });
  }

  // The principal of a TLS client certificate (without SASL, it is the connection's).
  absl::Status MapCertificate() {
    if (sasl_ != nullptr || !shared_.options.tls_principal) return absl::OkStatus();
    X509* cert = SSL_get1_peer_certificate(tls_->native_handle());
    if (cert == nullptr) return absl::OkStatus();  // none asked for, or none given when optional
    std::string subject;
    if (BIO* bio = BIO_new(BIO_s_mem())) {
      X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
      char* data = nullptr;
      long n = BIO_get_mem_data(bio, &data);
      subject.assign(data, static_cast<size_t>(std::max(0L, n)));
      BIO_free(bio);
    }
    X509_free(cert);
    std::optional<std::string> name = shared_.options.tls_principal(subject);
    if (!name.has_value() || name->empty()) {
      return absl::PermissionDeniedError(
          absl::StrCat("no ssl.principal.mapping.rules rule matches the client certificate's subject ", subject));
    }
    principal_ = absl::StrCat("User:", *name);
    return absl::OkStatus();
  }

  // Queues an answer made here (a SASL exchange): in order behind the requests in flight.
  void AnswerNow(std::unique_ptr<InFlight> request, ConnectionAuthenticator::Answer answer) {
    if (!answer.respond) {
      spdlog::info("kafka connection from {} closed: {}", peer_, answer.why);
      return Close(answer.why);
    }
    request->sequence = next_sequence_++;
    request->close_after = answer.close;
    request->close_why = std::move(answer.why);
    uint64_t sequence = request->sequence;
    in_flight_.push_back(std::move(request));
    ApiResponse response;
    response.body = std::move(answer.body);
    Answered(sequence, std::optional<ApiResponse>(std::move(response)), Clock::now());
  }

  // SASL before the request is handled: the exchange's own requests are answered here;
  // anything else but ApiVersions before authentication, or after the session expired,
  // closes the connection. False when the request was taken care of.
  bool PassedSasl(std::unique_ptr<InFlight>& request) {
    if (sasl_ == nullptr) return true;
    const int16_t api = request->header.api_key;
    if (api == static_cast<int16_t>(proto::kafka::ApiKey::kSaslHandshake) ||
        api == static_cast<int16_t>(proto::kafka::ApiKey::kSaslAuthenticate)) {
      absl::string_view body = absl::string_view(request->frame).substr(request->body_offset);
      int16_t version = request->header.api_version;
      ConnectionAuthenticator::Answer answer = api == static_cast<int16_t>(proto::kafka::ApiKey::kSaslHandshake)
                                                   ? sasl_->Handshake(version, body)
                                                   : sasl_->Authenticate(version, body);
      AnswerNow(std::move(request), std::move(answer));
      return false;
    }
    if (!sasl_->authenticated()) {
      if (api == static_cast<int16_t>(proto::kafka::ApiKey::kApiVersions)) return true;
      Close(absl::StrCat("a ", proto::kafka::ApiName(api), " request before SASL authentication"), true);
      return false;
    }
    if (Clock::now() >= sasl_->session_expiry()) {
      Close(absl::StrCat("the SASL session of ", sasl_->principal(),
                         " expired (connections.max.reauth.ms) before a ", proto::kafka::ApiName(api), " request"));
      return false;
    }
    request->header.principal = sasl_->principal();
    return true;
  }

  void Dispatch(std::unique_ptr<InFlight> request) {
    if (sasl_ != nullptr && sasl_->expects_raw_token()) {  // after a v0 handshake: no header
      request->raw = true;
      ConnectionAuthenticator::Answer answer = sasl_->RawToken(request->frame);
      return AnswerNow(std::move(request), std::move(answer));
    }
    proto::kafka::Reader reader(request->frame);
    auto header = proto::kafka::ReadRequestHeader(reader);
    if (!header.ok()) return Close(header.status().message(), true);
    request->header = *header;
    request->header.client_host = client_host_;
    request->header.connection_id = id_;
    request->header.principal = principal_;
    request->body_offset = reader.position();
    if (shared_.options.metrics != nullptr) {
      shared_.options.metrics->CountRequest(request->header.api_key, request->header.api_version);
    }
    if (!PassedSasl(request)) return MaybeReadNext();
    request->sequence = next_sequence_++;
    size_t body_offset = request->body_offset;
    InFlight* r = request.get();
    in_flight_.push_back(std::move(request));
    // r stays in in_flight_ (and its frame and header valid) until its answer is written.
    auto handle = [self = shared_from_this(), r, body_offset] {
      r->request_queue_micros = MicrosSince(r->read_at);
      std::weak_ptr<Connection> weak = self;
      std::shared_ptr<Lifetime> lifetime = self->shared_.lifetime;
      const uint64_t sequence = r->sequence;
      // The responder holds nothing of the io_context (a strand executor would be): it
      // may outlive the server (a fetch parked in a purgatory that is emptied after the
      // listener stopped), and destroying it must not touch a destroyed io_context.
      ApiResponder respond = [weak, lifetime, sequence](absl::StatusOr<std::optional<ApiResponse>> answer) {
        Clock::time_point answered_at = Clock::now();
        absl::MutexLock lock(&lifetime->mu);
        if (!lifetime->alive) return;
        std::shared_ptr<Connection> c = weak.lock();
        if (c == nullptr) return;
        asio::post(c->socket_.get_executor(), [weak, sequence, answered_at, answer = std::move(answer)]() mutable {
          if (auto c = weak.lock()) c->Answered(sequence, std::move(answer), answered_at);
        });
      };
      self->shared_.handler(r->header, absl::string_view(r->frame).substr(body_offset), std::move(respond));
    };
    if (shared_.options.on_network_thread && shared_.options.on_network_thread(r->header.api_key)) {
      // Handled here, in the order read; its answer is posted to this connection's
      // strand, which runs it once this returns. The next request may be read and
      // handled meanwhile (an acks=all produce waits for its followers while the next
      // one appends), its answer going out after this one's.
      handle();
      MaybeReadNext();
    } else {
      r->on_pool = true;
      ++pool_requests_;
      if (in_flight_.size() == 1) {
        asio::post(*shared_.io_pool, std::move(handle));
      } else {
        // Requests read ahead are still unanswered: this one is handled once they are,
        // when Kafka, which reads one request at a time, would have read it. Handled now,
        // its answer would tell what the broker knows now but go out only after theirs (a
        // fetch may wait max.wait.ms): a Metadata answer naming a leader that moved
        // meanwhile, arriving after a newer one from another broker, sends a client back
        // to the old leader.
        ABSL_CHECK(!held_) << "a second request held on connection " << id_;
        held_ = std::move(handle);
      }
    }
  }

  // An answer came for the request numbered sequence: it is written once the answers
  // of every request read before it are.
  void Answered(uint64_t sequence, absl::StatusOr<std::optional<ApiResponse>> answer,
                Clock::time_point answered_at) {
    if (closed_ || in_flight_.empty()) return;
    uint64_t first = in_flight_.front()->sequence;
    ABSL_CHECK(sequence >= first && sequence - first < in_flight_.size()) << "answer for request " << sequence;
    InFlight& r = *in_flight_[sequence - first];
    ABSL_CHECK(!r.answer.has_value()) << "request " << sequence << " answered twice";
    r.answer = std::move(answer);
    r.answered_at = answered_at;
    WriteAnswers();
  }

  // Writes the first request's answer when it has one and nothing is being written.
  void WriteAnswers() {
    while (!closed_ && !writing_ && !in_flight_.empty() && in_flight_.front()->answer.has_value()) {
      InFlight& r = *in_flight_.front();
      r.response_queue_micros = MicrosSince(r.answered_at);
      RequestMetrics* metrics = shared_.options.metrics;
      absl::StatusOr<std::optional<ApiResponse>>& answer = *r.answer;
      if (!answer.ok()) {
        if (metrics != nullptr) {
          metrics->CountConnectionClosed(r.header.api_key);
          RecordTimes(r);
        }
        return Close(absl::StrCat(proto::kafka::ApiName(r.header.api_key), " v", r.header.api_version, ": ",
                                  answer.status().message()),
                     true);
      }
      if (!answer->has_value() || (*answer)->silent) {  // no response expected
        if (answer->has_value() && (*answer)->throttle.count() > 0) {
          muted_until_ = std::max(muted_until_, Clock::now() + (*answer)->throttle);
        }
        RecordTimes(r);
        PopAnswered();
        continue;
      }
      response_ = std::move(**answer);
      if (metrics != nullptr) metrics->CountErrors(r.header.api_key, response_.errors);
      head_.clear();
      proto::kafka::Writer writer(&head_);
      writer.Int32(0);  // the size, patched below
      if (!r.raw) proto::kafka::WriteResponseHeader(r.header, writer);
      size_t body_start = head_.size();
      head_ += response_.body;
      uint64_t total = head_.size() - 4;
      for (const proto::kafka::Splice& s : response_.splices) {
        ABSL_CHECK(s.id >= 0 && static_cast<size_t>(s.id) < response_.slices.size()) << "splice id " << s.id;
        ABSL_CHECK_EQ(response_.slices[s.id].size, s.size);
        total += s.size;
      }
      ABSL_CHECK_LE(total, static_cast<uint64_t>(INT32_MAX));
      writer.PatchInt32(0, static_cast<int32_t>(total));
      // Splice positions are relative to the body: shift them past the header.
      for (proto::kafka::Splice& s : response_.splices) s.position += body_start;
      next_splice_ = 0;
      head_sent_ = 0;
      writing_ = true;
      WriteNext();
      return;
    }
    MaybeReadNext();
  }

  // The first request is done: its answer written (or none due).
  void PopAnswered() {
    if (in_flight_.front()->on_pool) --pool_requests_;
    in_flight_.pop_front();
    // The request held for the io pool is the last read: once alone, it is handled. Its
    // times count from now, as Kafka's from when it would have read it.
    if (held_ && in_flight_.size() == 1) {
      in_flight_.front()->read_at = Clock::now();
      asio::post(*shared_.io_pool, std::exchange(held_, nullptr));
    }
    // A read started while requests were in flight had no idle timer: idle from now.
    if (in_flight_.empty() && reading_) ArmIdleTimer();
  }

  // Writes the head bytes up to the next splice, then that splice's slice, and so on.
  void WriteNext() {
    size_t until = next_splice_ < response_.splices.size() ? response_.splices[next_splice_].position : head_.size();
    if (head_sent_ < until) {
      Write(asio::buffer(head_.data() + head_sent_, until - head_sent_),
                        [self = shared_from_this(), until](const asio::error_code& ec, size_t) {
                          if (ec) return self->Close("peer closed before the response");
                          self->head_sent_ = until;
                          self->WriteNext();
                        });
      return;
    }
    if (next_splice_ < response_.splices.size()) {
      slice_sent_ = 0;
      return SendSlice();
    }
    if (response_.throttle.count() > 0) muted_until_ = std::max(muted_until_, Clock::now() + response_.throttle);
    response_ = ApiResponse();
    writing_ = false;
    RecordTimes(*in_flight_.front());
    if (in_flight_.front()->close_after) {
      spdlog::info("kafka connection from {} closed: {}", peer_, in_flight_.front()->close_why);
      return Close(in_flight_.front()->close_why);
    }
    PopAnswered();
    WriteAnswers();
  }

  static int64_t MicrosSince(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t).count();
  }
  // A request's times, once its response is written (or none is sent).
  void RecordTimes(const InFlight& r) {
    if (shared_.options.metrics == nullptr || r.raw) return;
    shared_.options.metrics->RecordTimes(r.header.api_key, r.request_queue_micros, r.response_queue_micros,
                                         MicrosSince(r.read_at));
  }

  // A failed slice: the handler decides whether the file or the socket failed; the
  // client sees a disconnect (the frame's size is out, nothing may replace the bytes).
  void FailSlice(const storage::FileSlice& slice, uint64_t sent, const absl::Status& error) {
    if (slice.on_transfer_failure && *slice.on_transfer_failure) {
      (*slice.on_transfer_failure)(slice, slice.position + sent, slice.size - sent, error);
    }
    spdlog::debug("kafka connection from {}: file transfer failed: {}", peer_, error.message());
    ++*shared_.transfer_failures;
    Close("file transfer failed");
  }

  // TLS: the slice is read into memory and encrypted; a read that fails or comes back
  // short sends nothing of it.
  void SendSliceTls() {
    const proto::kafka::Splice& splice = response_.splices[next_splice_];
    const storage::FileSlice& slice = response_.slices[splice.id];
    if (absl::Status read = slice.ReadInto(tls_buffer_); !read.ok()) return FailSlice(slice, 0, read);
    Write(asio::buffer(tls_buffer_), [self = shared_from_this(), position = splice.position](const asio::error_code& ec,
                                                                                              size_t) {
      if (ec) return self->Close("peer closed during a file transfer");
      self->head_sent_ = position;
      ++self->next_splice_;
      self->WriteNext();
    });
  }

  void SendSlice() {
    if (tls_) return SendSliceTls();
    const proto::kafka::Splice& splice = response_.splices[next_splice_];
    const storage::FileSlice& slice = response_.slices[splice.id];
    asio::error_code ec;
    socket_.native_non_blocking(true, ec);
    while (slice_sent_ < slice.size) {
      uint64_t offset = slice.position + slice_sent_;
      size_t want = static_cast<size_t>(std::min<uint64_t>(slice.size - slice_sent_, 1 << 30));
      absl::StatusOr<size_t> sent = slice.file->SendFile(socket_.native_handle(), offset, want);
      if (sent.ok() && *sent > 0) {
        slice_sent_ += *sent;
        *shared_.bytes_from_files += static_cast<int64_t>(*sent);
        continue;
      }
      int err = sent.ok() ? 0 : storage::ErrnoOf(sent.status());
      if (err == EAGAIN || err == EWOULDBLOCK) {
        socket_.async_wait(tcp::socket::wait_write, [self = shared_from_this()](const asio::error_code& wait_error) {
          if (wait_error) return self->Close("peer closed during a file transfer");
          self->SendSlice();
        });
        return;
      }
      if (err == EPIPE || err == ECONNRESET) return Close("peer closed during a file transfer");
      // The file failed us: an I/O error, or it ended before the slice did.
      absl::Status error = !sent.ok() ? sent.status()
                                      : storage::MakeError(storage::Errc::kStorageError,
                                                           absl::StrCat(slice.file->path(), " ended at ", offset,
                                                                        " inside a slice of ", slice.size, " bytes"));
      return FailSlice(slice, slice_sent_, error);
    }
    head_sent_ = splice.position;
    ++next_splice_;
    WriteNext();
  }

  tcp::socket socket_;
  std::shared_ptr<asio::ssl::context> tls_context_;  // SSL listeners: outlives tls_
  std::unique_ptr<asio::ssl::stream<tcp::socket&>> tls_;
  std::string tls_buffer_;
  asio::steady_timer timer_;
  asio::steady_timer mute_timer_;  // ArmMuteTimer
  Shared& shared_;
  Registry& registry_;
  bool closed_ = false;
  // Unique in the process (RequestHeader::connection_id).
  const uint64_t id_ = next_connection_id.fetch_add(1, std::memory_order_relaxed);
  std::array<unsigned char, 4> size_buf_{};
  std::string client_host_;  // "/<peer address>", as Kafka shows a client's host
  std::string principal_ = "User:ANONYMOUS";  // of the TLS client certificate, when mapped
  std::unique_ptr<ConnectionAuthenticator> sasl_;  // SASL listeners
  // The requests read and not yet answered, in the order read (their answers go out in
  // that order); at most max_in_flight_requests.
  std::deque<std::unique_ptr<InFlight>> in_flight_;
  uint64_t next_sequence_ = 0;
  int pool_requests_ = 0;  // of in_flight_, handed to the io pool
  // The handling of a request for the io pool read while others were in flight (the last
  // of in_flight_; the reading stops after it): posted once it is the only one.
  std::function<void()> held_;
  bool reading_ = false;   // a read of the next request is under way
  // Throttled (ApiResponse::throttle): nothing is read before this time.
  Clock::time_point muted_until_{};
  bool mute_armed_ = false;
  bool writing_ = false;   // the first request's answer is being written
  // The answer being written.
  ApiResponse response_;
  std::string head_;
  size_t head_sent_ = 0;
  size_t next_splice_ = 0;
  uint64_t slice_sent_ = 0;
  std::string peer_;
};

// Runs one network thread's event loop. With idle_poll, the loop polls for events until
// idle_poll has passed since the last one before it blocks: on a machine whose idle CPUs
// sleep (a virtual machine's halted vCPU takes some 50 us to wake), a request that comes
// within that time is read at once.
void RunNetworkThread(asio::io_context& io, std::chrono::microseconds idle_poll) {
  if (idle_poll.count() <= 0) {
    io.run();
    return;
  }
  while (!io.stopped()) {
    const Clock::time_point until = Clock::now() + idle_poll;
    bool served = false;
    do {
      served = io.poll() > 0;
      if (!served) sched_yield();
    } while (!served && !io.stopped() && Clock::now() < until);
    if (!served && io.run_one() == 0) return;
  }
}

}  // namespace

struct Listener::Impl {
  Shared shared;
  Registry registry;
  // One event loop per network thread: what a thread's handler posts for its own
  // connections runs on that thread, without waking another.
  std::vector<std::unique_ptr<asio::io_context>> loops;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> work;
  size_t next_loop = 0;  // touched only by the accept handler, which runs on loops[0]
  std::unique_ptr<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;

  void Accept() {
    // Each connection on its own strand of the next loop: its reads, writes, idle timer and
    // answers run on that loop's thread, one at a time.
    asio::io_context& loop = *loops[next_loop++ % loops.size()];
    acceptor->async_accept(asio::make_strand(loop), [this](const asio::error_code& ec, tcp::socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted) return;
      } else {
        asio::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        auto connection = std::make_shared<Connection>(std::move(socket), shared, registry);
        {
          absl::MutexLock lock(&registry.mu);
          registry.connections.insert(connection);
        }
        connection->Start();
      }
      Accept();
    });
  }
};

absl::StatusOr<std::unique_ptr<Listener>> Listener::Start(const ListenerOptions& options, KafkaHandler handler) {
  // sendfile(2) has no MSG_NOSIGNAL: a client that disconnects mid-transfer would kill
  // the process with SIGPIPE. The broken pipe is reported as EPIPE instead.
  std::signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<Listener> server(new Listener());
  auto impl = std::make_unique<Impl>();
  impl->shared.options = options;
  impl->shared.handler = std::move(handler);
  impl->shared.closed_on_error = &server->closed_on_error_;
  impl->shared.bytes_from_files = &server->bytes_from_files_;
  impl->shared.transfer_failures = &server->transfer_failures_;
  impl->shared.io_pool = std::make_unique<asio::thread_pool>(static_cast<size_t>(std::max(1, options.io_threads)));
  if (options.tls) {
    STRATA_ASSIGN_OR_RETURN(std::shared_ptr<asio::ssl::context> tls, MakeServerTlsContext(*options.tls));
    absl::MutexLock lock(&impl->shared.tls_mu);
    impl->shared.tls = std::move(tls);
  }
  asio::error_code ec;
  auto address = asio::ip::make_address(options.host, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("listener host '", options.host, "': ", ec.message()));
  const int loops = std::max(1, options.network_threads);
  for (int i = 0; i < loops; ++i) {
    impl->loops.push_back(std::make_unique<asio::io_context>(1));
    impl->work.push_back(asio::make_work_guard(*impl->loops.back()));
  }
  impl->acceptor = std::make_unique<tcp::acceptor>(*impl->loops[0]);
  tcp::endpoint endpoint(address, static_cast<uint16_t>(options.port));
  impl->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor->bind(endpoint, ec);
  if (!ec) impl->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.host, ":", options.port, ": ", ec.message()));
  }
  server->port_ = impl->acceptor->local_endpoint().port();
  impl->Accept();
  for (auto& loop : impl->loops) {
    impl->threads.emplace_back([io = loop.get(), idle_poll = options.idle_poll] { RunNetworkThread(*io, idle_poll); });
  }
  server->impl_ = std::move(impl);
  return server;
}

absl::Status Listener::ReloadTls(const TlsOptions& options) {
  if (!impl_ || !impl_->shared.options.tls) return absl::FailedPreconditionError("not an SSL listener");
  STRATA_ASSIGN_OR_RETURN(std::shared_ptr<asio::ssl::context> tls, MakeServerTlsContext(options));
  absl::MutexLock lock(&impl_->shared.tls_mu);
  impl_->shared.tls = std::move(tls);
  return absl::OkStatus();
}

size_t Listener::active_connections() const {
  if (!impl_) return 0;
  absl::MutexLock lock(&impl_->registry.mu);
  return impl_->registry.connections.size();
}

Listener::~Listener() {
  if (!impl_) return;
  {
    // Answers that arrive from now on are dropped.
    absl::MutexLock lock(&impl_->shared.lifetime->mu);
    impl_->shared.lifetime->alive = false;
  }
  asio::post(*impl_->loops[0], [impl = impl_.get()] {
    asio::error_code ignored;
    impl->acceptor->close(ignored);
  });
  impl_->work.clear();
  for (auto& loop : impl_->loops) loop->stop();
  for (auto& t : impl_->threads) t.join();
  // Handlers still running finish; their answers are dropped.
  impl_->shared.io_pool->join();
  std::set<std::shared_ptr<Connection>> open;
  {
    absl::MutexLock lock(&impl_->registry.mu);
    open.swap(impl_->registry.connections);
  }
  for (const auto& c : open) {
    c->Close("server stopping");
  }
  open.clear();
}

}  // namespace strata::broker
