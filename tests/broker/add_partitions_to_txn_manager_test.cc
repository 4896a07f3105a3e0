// AddPartitionsToTxnManager's network path against two coordinators on 127.0.0.1: one
// that accepts the connection and never answers (a broker cut off: the request waits for
// its timeout), one that answers AddPartitionsToTxn v4 as a coordinator does. A stalled
// coordinator must hold up only the questions meant for it.

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <string>
#include <thread>

#include "broker/transactions/add_partitions_to_txn_manager.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/add_partitions_to_txn.h"
#include "proto/kafka/header.h"
#include "tests/support/memory_group_log.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using kafka::ErrorCode;

constexpr int32_t kStatePartitions = 50;

// A listening socket on 127.0.0.1 and an ephemeral port.
int Listen(int* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(listen(fd, 8), 0);
  socklen_t len = sizeof(addr);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  *port = ntohs(addr.sin_port);
  return fd;
}

bool ReadFull(int fd, char* out, size_t n) {
  while (n > 0) {
    ssize_t got = read(fd, out, n);
    if (got <= 0) return false;
    out += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

// Answers every AddPartitionsToTxn v4 on one connection: each partition NONE.
void AnswerVerifications(int fd) {
  while (true) {
    char size_bytes[4];
    if (!ReadFull(fd, size_bytes, 4)) return;
    const uint32_t size = ntohl(*reinterpret_cast<uint32_t*>(size_bytes));
    std::string frame(size, '\0');
    if (!ReadFull(fd, frame.data(), size)) return;
    kafka::Reader reader(frame);
    auto header = kafka::ReadRequestHeader(reader);
    ASSERT_TRUE(header.ok()) << header.status();
    auto request = kafka::ReadAddPartitionsToTxnRequest(reader, header->api_version);
    ASSERT_TRUE(request.ok()) << request.status();
    kafka::AddPartitionsToTxnResponse response;
    for (const auto& t : request->transactions) {
      EXPECT_TRUE(t.verify_only);
      auto& result = response.results_by_transaction.emplace_back();
      result.transactional_id = t.transactional_id;
      for (const auto& topic : t.topics) {
        auto& r = result.topic_results.emplace_back();
        r.name = topic.name;
        for (int32_t p : topic.partitions) r.results_by_partition.push_back({p, 0});
      }
    }
    std::string body;
    kafka::Writer writer(&body);
    kafka::WriteResponseHeader(*header, writer);
    kafka::WriteAddPartitionsToTxnResponse(response, header->api_version, writer);
    const uint32_t out_size = htonl(static_cast<uint32_t>(body.size()));
    std::string out(reinterpret_cast<const char*>(&out_size), 4);
    out += body;
    if (write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) return;
  }
}

// Two transactional ids whose __transaction_state partitions differ.
std::pair<std::string, std::string> IdsOnTwoPartitions() {
  const std::string a = "stalled-id";
  for (int i = 0;; ++i) {
    std::string b = "healthy-id-" + std::to_string(i);
    if (TransactionStatePartitionFor(a, kStatePartitions) != TransactionStatePartitionFor(b, kStatePartitions)) {
      return {a, b};
    }
  }
}

TEST(AddPartitionsToTxnManagerTest, AStalledCoordinatorHoldsUpOnlyItsOwnQuestions) {
  int stalled_port = 0, healthy_port = 0;
  const int stalled_listener = Listen(&stalled_port);
  const int healthy_listener = Listen(&healthy_port);
  std::promise<int> stalled_connection;
  std::thread stalled([&] { stalled_connection.set_value(accept(stalled_listener, nullptr, nullptr)); });
  std::thread healthy([&] {
    int fd = accept(healthy_listener, nullptr, nullptr);
    if (fd >= 0) AnswerVerifications(fd);
    if (fd >= 0) close(fd);
  });

  const auto [stalled_id, healthy_id] = IdsOnTwoPartitions();
  const int32_t stalled_partition = TransactionStatePartitionFor(stalled_id, kStatePartitions);
  testing::MemoryGroupLog state_log;
  class NoMarkers final : public TxnMarkerSender {
    void Send(Markers, std::function<void()> done) override { done(); }
  } markers;
  TransactionCoordinator local({.state_topic_partitions = kStatePartitions, .start_thread = false}, &state_log,
                               [] { return absl::StatusOr<int64_t>(1); }, &markers);
  AddPartitionsToTxnManagerOptions o;
  o.broker_id = 1;
  o.state_topic_partitions = kStatePartitions;
  o.local = &local;
  o.request_timeout = std::chrono::seconds(60);  // the stalled question waits until the test closes it
  o.coordinator_of = [&](int32_t partition) {
    return partition == stalled_partition ? BrokerEndpoint{2, "127.0.0.1", stalled_port}
                                          : BrokerEndpoint{3, "127.0.0.1", healthy_port};
  };
  auto manager = std::make_unique<AddPartitionsToTxnManager>(std::move(o));

  std::atomic<bool> stalled_answered{false};
  std::promise<TxnVerifier::Unverified> stalled_answer;
  manager->Verify(stalled_id, 7, 0, {{"orders", 0}}, TxnPartitionOperation::kVerify, [&](TxnVerifier::Unverified u) {
    stalled_answered = true;
    stalled_answer.set_value(std::move(u));
  });
  const int stalled_fd = stalled_connection.get_future().get();  // its request is on the wire now
  ASSERT_GE(stalled_fd, 0);
  std::promise<bool> healthy_answer;  // whether the stalled one was still waiting
  manager->Verify(healthy_id, 8, 0, {{"orders", 1}}, TxnPartitionOperation::kVerify, [&](TxnVerifier::Unverified u) {
    EXPECT_TRUE(u.empty());
    healthy_answer.set_value(!stalled_answered.load());
  });
  EXPECT_TRUE(healthy_answer.get_future().get()) << "the healthy coordinator's answer waited for the stalled one";

  close(stalled_fd);  // the stalled coordinator goes away: its question fails, retriable
  TxnVerifier::Unverified stalled_result = stalled_answer.get_future().get();
  ASSERT_EQ(stalled_result.size(), 1u);
  EXPECT_EQ(stalled_result.begin()->second, ErrorCode::kNetworkException);
  manager.reset();
  stalled.join();
  healthy.join();
  close(stalled_listener);
  close(healthy_listener);
}

}  // namespace
}  // namespace strata::broker
