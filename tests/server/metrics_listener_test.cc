// server/metrics_listener.h: /metrics served until Stop(), nothing after; a bad address
// refused by name.

#include "server/metrics_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <memory>
#include <optional>
#include <string>

namespace strata::server {
namespace {

// The body of GET /metrics on 127.0.0.1:port, or nothing when no connection is made.
std::optional<std::string> Get(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return std::nullopt;
  }
  std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
  EXPECT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
  std::string response;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;) response.append(buf, n);
  close(fd);
  return response;
}

std::shared_ptr<prometheus::Registry> OneCounter() {
  auto registry = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter().Name("strata_test_total").Help("a test").Register(*registry).Add({}).Increment(3);
  return registry;
}

TEST(MetricsListener, ServesUntilStoppedAndNothingAfter) {
  for (const char* address : {"127.0.0.1:0", "0.0.0.0:0"}) {
    SCOPED_TRACE(address);
    auto listener = MetricsListener::Start(address);
    ASSERT_TRUE(listener.ok()) << listener.status();
    std::shared_ptr<prometheus::Registry> registry = OneCounter();  // the listener holds a weak pointer
    (*listener)->Register(registry);
    ASSERT_EQ((*listener)->ports().size(), 1u);
    int port = (*listener)->ports()[0];
    std::optional<std::string> body = Get(port);
    ASSERT_TRUE(body.has_value());
    EXPECT_NE(body->find("strata_test_total 3"), std::string::npos) << *body;
    (*listener)->Stop();
    EXPECT_TRUE((*listener)->ports().empty());
    EXPECT_FALSE(Get(port).has_value()) << "still listening on " << port;
    (*listener)->Stop();  // again: nothing to do
  }
}

TEST(MetricsListener, AnAddressItCannotListenOnIsNamed) {
  auto taken = MetricsListener::Start("127.0.0.1:0");
  ASSERT_TRUE(taken.ok()) << taken.status();
  std::string address = "127.0.0.1:" + std::to_string((*taken)->ports()[0]);
  auto second = MetricsListener::Start(address);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot serve metrics on " + address), std::string::npos)
      << second.status();
}

}  // namespace
}  // namespace strata::server
