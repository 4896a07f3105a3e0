#include "broker/kafka_server.h"

#include <asio.hpp>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "proto/kafka/api.h"

namespace strata::broker {

namespace {

using asio::ip::tcp;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(tcp::socket socket, const KafkaServerOptions& options, const KafkaHandler& handler,
             std::atomic<int64_t>* closed_on_error)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        options_(options),
        handler_(handler),
        closed_on_error_(closed_on_error) {}

  void Start() { ReadSize(); }

 private:
  void ArmIdleTimer() {
    timer_.expires_after(options_.idle_timeout);
    timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      if (!ec) self->Close("idle");
    });
  }

  void Close(absl::string_view why, bool error = false) {
    if (error) {
      ++*closed_on_error_;
      spdlog::warn("kafka connection from {} closed: {}", peer_, why);
    }
    asio::error_code ignored;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

  void ReadSize() {
    if (peer_.empty()) {
      asio::error_code ec;
      auto endpoint = socket_.remote_endpoint(ec);
      peer_ = ec ? "?" : absl::StrCat(endpoint.address().to_string(), ":", endpoint.port());
    }
    ArmIdleTimer();
    asio::async_read(socket_, asio::buffer(size_buf_), [self = shared_from_this()](const asio::error_code& ec, size_t) {
      if (ec) return self->Close("peer closed");
      int32_t size = 0;
      for (unsigned char b : self->size_buf_) size = static_cast<int32_t>(static_cast<uint32_t>(size) << 8 | b);
      if (size < 0 || size > self->options_.max_request_bytes) {
        return self->Close(absl::StrCat("request size ", size, " is outside 0..", self->options_.max_request_bytes,
                                        " (socket.request.max.bytes)"),
                           true);
      }
      self->frame_.resize(static_cast<size_t>(size));
      self->ReadFrame();
    });
  }

  void ReadFrame() {
    asio::async_read(socket_, asio::buffer(frame_), [self = shared_from_this()](const asio::error_code& ec, size_t) {
      if (ec) return self->Close("peer closed mid-request");
      self->Handle();
    });
  }

  void Handle() {
    proto::kafka::Reader reader(frame_);
    auto header = proto::kafka::ReadRequestHeader(reader);
    if (!header.ok()) return Close(header.status().message(), true);
    auto body = handler_(*header, reader.rest());
    if (!body.ok()) {
      return Close(absl::StrCat(proto::kafka::ApiName(header->api_key), " v", header->api_version, ": ",
                                body.status().message()),
                   true);
    }
    if (!body->has_value()) return ReadSize();  // no response expected
    response_.clear();
    proto::kafka::Writer writer(&response_);
    writer.Int32(0);  // the size, patched below
    proto::kafka::WriteResponseHeader(*header, writer);
    response_ += **body;
    writer.PatchInt32(0, static_cast<int32_t>(response_.size() - 4));
    asio::async_write(socket_, asio::buffer(response_), [self = shared_from_this()](const asio::error_code& ec, size_t) {
      if (ec) return self->Close("peer closed before the response");
      self->ReadSize();
    });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  const KafkaServerOptions& options_;
  const KafkaHandler& handler_;
  std::atomic<int64_t>* closed_on_error_;
  std::array<unsigned char, 4> size_buf_{};
  std::string frame_;
  std::string response_;
  std::string peer_;
};

}  // namespace

struct KafkaServer::Impl {
  KafkaServerOptions options;
  KafkaHandler handler;
  asio::io_context io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::vector<std::thread> threads;
  std::atomic<int64_t>* closed_on_error = nullptr;

  void Accept() {
    acceptor->async_accept([this](const asio::error_code& ec, tcp::socket socket) {
      if (ec) {
        if (ec == asio::error::operation_aborted) return;
      } else {
        asio::error_code ignored;
        socket.set_option(tcp::no_delay(true), ignored);
        std::make_shared<Connection>(std::move(socket), options, handler, closed_on_error)->Start();
      }
      Accept();
    });
  }
};

absl::StatusOr<std::unique_ptr<KafkaServer>> KafkaServer::Start(const KafkaServerOptions& options, KafkaHandler handler) {
  std::unique_ptr<KafkaServer> server(new KafkaServer());
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->handler = std::move(handler);
  impl->closed_on_error = &server->closed_on_error_;
  asio::error_code ec;
  auto address = asio::ip::make_address(options.host, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat("listener host '", options.host, "': ", ec.message()));
  impl->acceptor = std::make_unique<tcp::acceptor>(impl->io);
  tcp::endpoint endpoint(address, static_cast<uint16_t>(options.port));
  impl->acceptor->open(endpoint.protocol(), ec);
  if (!ec) impl->acceptor->set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl->acceptor->bind(endpoint, ec);
  if (!ec) impl->acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.host, ":", options.port, ": ", ec.message()));
  }
  server->port_ = impl->acceptor->local_endpoint().port();
  impl->work.emplace(impl->io.get_executor());
  impl->Accept();
  for (int i = 0; i < std::max(1, options.network_threads); ++i) {
    impl->threads.emplace_back([io = &impl->io] { io->run(); });
  }
  server->impl_ = std::move(impl);
  return server;
}

KafkaServer::~KafkaServer() {
  if (!impl_) return;
  asio::post(impl_->io, [impl = impl_.get()] {
    asio::error_code ignored;
    impl->acceptor->close(ignored);
  });
  impl_->work.reset();
  impl_->io.stop();  // open connections are dropped with the context
  for (auto& t : impl_->threads) t.join();
}

}  // namespace strata::broker
