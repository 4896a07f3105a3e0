// The Kafka listener over real sockets on 127.0.0.1: ApiVersions v0-v3 answered (and
// v9 per KIP-511), pipelined requests answered in order, and bad input — oversized or
// negative sizes, a truncated header, an unknown api key, an API not served — closes
// only that connection while the server keeps serving others; idle connections close.

#include "broker/kafka_server.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "broker/kafka_api_handler.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/error_code.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using namespace std::chrono_literals;

class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    timeval timeout{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~Client() { close(fd_); }
  bool connected() const { return connected_; }
  void SendRaw(const std::string& bytes) { ASSERT_EQ(write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size())); }
  // A request frame: header + body.
  static std::string Frame(int16_t api_key, int16_t version, int32_t correlation_id, const std::string& body) {
    std::string out;
    kafka::Writer w(&out);
    w.Int32(0);
    kafka::RequestHeader h;
    h.api_key = api_key;
    h.api_version = version;
    h.correlation_id = correlation_id;
    h.client_id = "test";
    kafka::WriteRequestHeader(h, w);
    out += body;
    w.PatchInt32(0, static_cast<int32_t>(out.size() - 4));
    return out;
  }
  // Reads one response frame; nullopt when the server closed the connection.
  std::optional<std::string> ReadFrame() {
    std::string size = ReadExactly(4);
    if (size.size() != 4) return std::nullopt;
    kafka::Reader r(size);
    std::string frame = ReadExactly(static_cast<size_t>(r.Int32("size")));
    return frame;
  }
  bool Closed() {
    char c;
    return read(fd_, &c, 1) == 0;
  }

 private:
  std::string ReadExactly(size_t n) {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      ssize_t k = read(fd_, out.data() + got, n - got);
      if (k <= 0) break;
      got += static_cast<size_t>(k);
    }
    out.resize(got);
    return out;
  }
  int fd_;
  bool connected_ = false;
};

std::unique_ptr<KafkaServer> StartServer(std::chrono::milliseconds idle = 60s) {
  KafkaServerOptions options;
  options.max_request_bytes = 1 << 20;
  options.idle_timeout = idle;
  static KafkaApis apis(KafkaApisContext{});
  auto server = KafkaServer::Start(options, [](const auto& header, auto body, auto respond) {
    apis.Handle(header, body, std::move(respond));
  });
  EXPECT_TRUE(server.ok()) << server.status();
  return std::move(*server);
}

std::string ApiVersionsBody(int16_t version) {
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteApiVersionsRequest({"strata-test", "1.0"}, version, w);
  return body;
}

TEST(KafkaServer, ApiVersionsIsAnsweredInEveryVersionWithItsCorrelationId) {
  auto server = StartServer();
  Client c(server->port());
  ASSERT_TRUE(c.connected());
  for (int16_t version = 0; version <= 3; ++version) {
    c.SendRaw(Client::Frame(18, version, 100 + version, ApiVersionsBody(version)));
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value()) << version;
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), 100 + version);  // response header v0, even for v3
    auto response = kafka::ReadApiVersionsResponse(r, version);
    ASSERT_TRUE(response.ok()) << response.status();
    EXPECT_EQ(response->error_code, 0);
    bool found = false;
    for (const auto& k : response->api_keys) found = found || (k.api_key == 18 && k.max_version == 3);
    EXPECT_TRUE(found);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(KafkaServer, ATooNewApiVersionsIsAnsweredWithV0AndUnsupportedVersion) {
  auto server = StartServer();
  Client c(server->port());
  c.SendRaw(Client::Frame(18, 9, 7, "whatever a future version carries"));
  auto frame = c.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  kafka::Reader r(*frame);
  EXPECT_EQ(r.Int32("correlation_id"), 7);
  auto response = kafka::ReadApiVersionsResponse(r, 0);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->error_code, static_cast<int16_t>(kafka::ErrorCode::kUnsupportedVersion));
  EXPECT_FALSE(response->api_keys.empty());
}

TEST(KafkaServer, PipelinedRequestsAreAnsweredInOrder) {
  auto server = StartServer();
  Client c(server->port());
  std::string both;
  for (int32_t id = 1; id <= 20; ++id) both += Client::Frame(18, 2, id, ApiVersionsBody(2));
  c.SendRaw(both);
  for (int32_t id = 1; id <= 20; ++id) {
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value());
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), id);
  }
}

TEST(KafkaServer, BadInputClosesOnlyThatConnection) {
  auto server = StartServer();
  struct Case {
    const char* what;
    std::string bytes;
  };
  std::string oversized, negative, truncated;
  kafka::Writer(&oversized).Int32(0x7fffffff);
  kafka::Writer(&negative).Int32(-1);
  kafka::Writer w(&truncated);
  w.Int32(3);
  truncated += "abc";  // a header needs at least 8 bytes
  std::vector<Case> cases = {
      {"oversized size", oversized},
      {"negative size", negative},
      {"truncated header", truncated},
      {"unknown api key", Client::Frame(999, 0, 1, "")},
      {"an API not served yet", Client::Frame(0, 7, 1, "")},
      {"a Metadata version not advertised", Client::Frame(3, 13, 1, "")},
      {"ApiVersions v3 with a truncated body", Client::Frame(18, 3, 1, "\x05")},
  };
  for (const Case& bad : cases) {
    Client c(server->port());
    ASSERT_TRUE(c.connected());
    c.SendRaw(bad.bytes);
    EXPECT_TRUE(c.Closed()) << bad.what;
  }
  EXPECT_EQ(server->connections_closed_on_error(), static_cast<int64_t>(cases.size()));
  // Others are still served.
  Client good(server->port());
  good.SendRaw(Client::Frame(18, 0, 42, ""));
  auto frame = good.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  kafka::Reader r(*frame);
  EXPECT_EQ(r.Int32("correlation_id"), 42);
}

TEST(KafkaServer, AnIdleConnectionIsClosed) {
  auto server = StartServer(/*idle=*/200ms);
  Client c(server->port());
  ASSERT_TRUE(c.connected());
  EXPECT_TRUE(c.Closed());  // read blocks until the server closes it (or 5 s)
}

}  // namespace
}  // namespace strata::broker
