// The controller's side of the brokers' session streams: which ends count
// (BrokerSessionStreams) and what a listener probe says of a process (ListenerProbe),
// against real sockets on loopback.

#include "controller/broker_session_streams.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "controller/listener_probe.h"

namespace strata::controller {
namespace {

using namespace std::chrono_literals;

// A TCP socket bound to a free port of 127.0.0.1, listening or not.
struct Socket {
  explicit Socket(bool listen) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    socklen_t len = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    if (listen) EXPECT_EQ(::listen(fd, 4), 0);
  }
  ~Socket() { close(fd); }
  int fd = -1;
  int port = 0;
};

ProbeResult ProbeOnly(const std::string& host, int port) {
  std::vector<ProbeTarget> targets = ResolveProbeTargets(host, port);
  EXPECT_EQ(targets.size(), 1u);
  return targets.empty() ? ProbeResult::kNoAnswer : Probe(targets[0], 500ms);
}

TEST(ListenerProbe, AListenerAcceptsAndAPortWithoutOneRefuses) {
  Socket listening(/*listen=*/true);
  EXPECT_EQ(ProbeOnly("127.0.0.1", listening.port), ProbeResult::kAccepted);
  // Bound but not listening: the kernel answers the connection with a reset.
  Socket bound(/*listen=*/false);
  EXPECT_EQ(ProbeOnly("127.0.0.1", bound.port), ProbeResult::kRefused);
  // A listener that closes: the same port refuses from then on.
  int port;
  {
    Socket closing(/*listen=*/true);
    port = closing.port;
    EXPECT_EQ(ProbeOnly("127.0.0.1", port), ProbeResult::kAccepted);
  }
  EXPECT_EQ(ProbeOnly("127.0.0.1", port), ProbeResult::kRefused);
}

TEST(ListenerProbe, AHostThatCannotBeResolvedHasNoTargets) {
  EXPECT_TRUE(ResolveProbeTargets("no-such-host.invalid", 9092).empty());
}

BrokerSessionStreams::Stream StreamOf(int32_t broker, int64_t epoch, int* cancels) {
  BrokerSessionStreams::Stream s;
  s.broker = broker;
  s.broker_epoch = epoch;
  s.cancel = [cancels] { ++*cancels; };
  return s;
}

TEST(BrokerSessionStreams, OnlyTheEndOfABrokersLatestStreamCounts) {
  BrokerSessionStreams streams;
  int cancels = 0;
  uint64_t first = streams.Open(StreamOf(4, 10, &cancels));
  uint64_t second = streams.Open(StreamOf(4, 10, &cancels));  // the broker opened again
  uint64_t other = streams.Open(StreamOf(5, 11, &cancels));
  EXPECT_NE(first, 0u);
  EXPECT_NE(first, second);
  EXPECT_EQ(streams.size(), 2u);
  EXPECT_FALSE(streams.Ended(first).has_value());  // superseded: says nothing
  EXPECT_TRUE(streams.Has(4));
  std::optional<BrokerSessionStreams::Stream> ended = streams.Ended(second);
  ASSERT_TRUE(ended.has_value());
  EXPECT_EQ(ended->broker, 4);
  EXPECT_EQ(ended->broker_epoch, 10);
  EXPECT_FALSE(streams.Has(4));
  EXPECT_FALSE(streams.Ended(second).has_value());  // counted once
  EXPECT_TRUE(streams.Ended(other).has_value());
  EXPECT_EQ(cancels, 0);
}

TEST(BrokerSessionStreams, StreamsEndedByTheControllerDoNotCount) {
  BrokerSessionStreams streams;
  int cancels = 0;
  uint64_t a = streams.Open(StreamOf(4, 10, &cancels));
  uint64_t b = streams.Open(StreamOf(5, 11, &cancels));
  streams.CancelAll();
  EXPECT_EQ(cancels, 2);
  EXPECT_EQ(streams.size(), 0u);
  EXPECT_FALSE(streams.Ended(a).has_value());
  EXPECT_FALSE(streams.Ended(b).has_value());
}

}  // namespace
}  // namespace strata::controller
