#pragma once
// A blocking Kafka protocol client over one TCP connection to 127.0.0.1, for tests:
// sends raw bytes or request frames and reads response frames (5 s receive timeout).
// Not thread-safe.

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "proto/kafka/header.h"
#include "proto/kafka/wire.h"

namespace strata::testing {

namespace kafka = strata::proto::kafka;

class KafkaTestClient {
 public:
  explicit KafkaTestClient(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    timeval timeout{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }
  ~KafkaTestClient() {
    if (fd_ >= 0) close(fd_);
  }
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
  // Up to n bytes (fewer when the server closed the connection or 5 s passed).
  std::string Read(size_t n) { return ReadExactly(n); }
  // Closes the connection with a reset (SO_LINGER 0): the server's next send to it fails.
  void Reset() {
    linger reset{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
    close(fd_);
    fd_ = -1;
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

}  // namespace strata::testing
