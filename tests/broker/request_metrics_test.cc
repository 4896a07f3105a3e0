// The listener's request metrics over real sockets on 127.0.0.1 (a handler of the
// test's own in place of the broker's APIs): requests counted per API and version, the
// error codes of responses counted per API (NONE is not), a request that closes its
// connection counted as CONNECTION_CLOSED, the total time covering the handler's
// work, no response (acks=0) still timed, and the open connections followed; then the
// Prometheus families server/broker_metrics.h builds from them.

#include "broker/network/request_metrics.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "broker/network/listener.h"
#include "server/broker_metrics.h"
#include "tests/support/kafka_test_client.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
using testing::KafkaTestClient;

constexpr int16_t kProduce = 0, kMetadata = 3, kApiVersions = 18, kHeartbeat = 12;

// Produce: no response; Metadata: closes the connection; Heartbeat: 30 ms of work, then
// an answer carrying errors 15 (twice) and 27; anything else: an empty answer.
void Handle(const proto::kafka::RequestHeader& header, absl::string_view, ApiResponder respond) {
  if (header.api_key == kProduce) return respond(std::optional<ApiResponse>());
  if (header.api_key == kMetadata) return respond(absl::InvalidArgumentError("refused by the test"));
  ApiResponse response;
  if (header.api_key == kHeartbeat) {
    std::this_thread::sleep_for(30ms);  // the handler's work, which the total time includes
    CountError(response.errors, 15);
    CountError(response.errors, 0);
    CountError(response.errors, 27);
    CountError(response.errors, 15);
  }
  respond(std::optional<ApiResponse>(std::move(response)));
}

std::unique_ptr<Listener> Start(RequestMetrics* metrics) {
  ListenerOptions options;
  options.metrics = metrics;
  auto server = Listener::Start(options, Handle);
  EXPECT_TRUE(server.ok()) << server.status();
  return std::move(*server);
}

TEST(RequestMetrics, CountsRequestsErrorsAndTimesPerApi) {
  RequestMetrics metrics;
  auto server = Start(&metrics);
  KafkaTestClient c(server->port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    c.SendRaw(KafkaTestClient::Frame(kApiVersions, 2, i, ""));
    ASSERT_TRUE(c.ReadFrame().has_value());
  }
  c.SendRaw(KafkaTestClient::Frame(kApiVersions, 3, 9, ""));
  ASSERT_TRUE(c.ReadFrame().has_value());
  c.SendRaw(KafkaTestClient::Frame(kHeartbeat, 4, 10, ""));
  ASSERT_TRUE(c.ReadFrame().has_value());
  // acks=0: nothing comes back, and the next request is still served.
  c.SendRaw(KafkaTestClient::Frame(kProduce, 9, 11, ""));
  c.SendRaw(KafkaTestClient::Frame(kApiVersions, 3, 12, ""));
  ASSERT_TRUE(c.ReadFrame().has_value());

  EXPECT_EQ(metrics.requests(kApiVersions, 2), 3);
  EXPECT_EQ(metrics.requests(kApiVersions, 3), 2);
  EXPECT_EQ(metrics.requests(kHeartbeat, 4), 1);
  EXPECT_EQ(metrics.requests(kProduce, 9), 1);
  EXPECT_EQ(metrics.requests(kHeartbeat, 3), 0);
  auto errors = metrics.errors();
  EXPECT_EQ(errors.size(), 2u);
  EXPECT_EQ((errors[{kHeartbeat, 15}]), 2);
  EXPECT_EQ((errors[{kHeartbeat, 27}]), 1);
  // Every answered request is timed once its response was written, which may be just
  // after the client read it; the heartbeat's 30 ms of work is in its total.
  ASSERT_TRUE(testing::WaitUntil([&] { return metrics.total(kApiVersions).count() == 5; }, 10s))
      << metrics.total(kApiVersions).count();
  EXPECT_EQ(metrics.total(kHeartbeat).count(), 1);
  EXPECT_GE(metrics.total(kHeartbeat).total_micros(), 30'000);
  EXPECT_EQ(metrics.request_queue(kHeartbeat).count(), 1);
  EXPECT_EQ(metrics.response_queue(kHeartbeat).count(), 1);
  EXPECT_EQ(metrics.total(kProduce).count(), 1);  // no response: timed when answered

  // A request the handler refuses closes the connection and counts as such.
  c.SendRaw(KafkaTestClient::Frame(kMetadata, 12, 13, ""));
  EXPECT_TRUE(c.Closed());
  ASSERT_TRUE(testing::WaitUntil([&] { return metrics.errors().size() == 3; }, 10s));
  EXPECT_EQ((metrics.errors()[{kMetadata, RequestMetrics::kConnectionClosed}]), 1);
}

TEST(RequestMetrics, FollowsTheOpenConnections) {
  RequestMetrics metrics;
  auto server = Start(&metrics);
  auto first = std::make_unique<KafkaTestClient>(server->port());
  KafkaTestClient second(server->port());
  ASSERT_TRUE(first->connected() && second.connected());
  ASSERT_TRUE(testing::WaitUntil([&] { return server->active_connections() == 2; }, 10s));
  first.reset();
  ASSERT_TRUE(testing::WaitUntil([&] { return server->active_connections() == 1; }, 10s));
}

// A key no API has, negative or too large, is counted apart from every real API.
TEST(RequestMetrics, CountsUnknownApiKeysApart) {
  RequestMetrics metrics;
  metrics.CountRequest(-5, 0);
  metrics.CountRequest(30000, 2);
  metrics.CountConnectionClosed(-5);
  EXPECT_EQ(metrics.requests(kProduce, 0), 0);
  EXPECT_EQ(metrics.requests(RequestMetrics::kUnknownApi, 0), 1);
  EXPECT_EQ(metrics.requests(RequestMetrics::kUnknownApi, 2), 1);
  EXPECT_EQ((metrics.errors()[{RequestMetrics::kUnknownApi, RequestMetrics::kConnectionClosed}]), 1);
  EXPECT_EQ(metrics.apis_seen(), std::vector<int16_t>{RequestMetrics::kUnknownApi});
}

// The families /metrics shows, with Kafka's API and error names as labels.
TEST(RequestMetrics, BecomePrometheusFamiliesWithKafkaNames) {
  RequestMetrics metrics;
  metrics.CountRequest(kHeartbeat, 4);
  metrics.CountRequest(kHeartbeat, 4);
  ErrorCounts errors;
  CountError(errors, 27);
  metrics.CountErrors(kHeartbeat, errors);
  metrics.CountConnectionClosed(kHeartbeat);
  metrics.RecordTimes(kHeartbeat, 10, 20, 3'000);
  std::vector<prometheus::MetricFamily> families;
  server::AppendRequestFamilies(metrics, families);
  auto find = [&](const std::string& name) -> const prometheus::MetricFamily& {
    for (const auto& f : families) {
      if (f.name == name) return f;
    }
    ADD_FAILURE() << "no family " << name;
    return families.front();
  };
  const auto& requests = find("strata_kafka_requests_total");
  ASSERT_EQ(requests.metric.size(), 1u);
  EXPECT_EQ(requests.metric[0].counter.value, 2);
  EXPECT_EQ(requests.metric[0].label[0].value, "Heartbeat");
  EXPECT_EQ(requests.metric[0].label[1].value, "4");
  const auto& errors_family = find("strata_kafka_request_errors_total");
  ASSERT_EQ(errors_family.metric.size(), 2u);
  std::set<std::string> names;
  for (const auto& m : errors_family.metric) names.insert(m.label[1].value);
  EXPECT_EQ(names, (std::set<std::string>{"CONNECTION_CLOSED", "REBALANCE_IN_PROGRESS"}));
  const auto& total = find("strata_kafka_request_seconds");
  ASSERT_EQ(total.metric.size(), 1u);
  EXPECT_EQ(total.metric[0].histogram.sample_count, 1u);
  EXPECT_DOUBLE_EQ(total.metric[0].histogram.sample_sum, 0.003);
  // 3 ms lies in the 5 ms bucket, not in the 2.5 ms one.
  for (const auto& b : total.metric[0].histogram.bucket) {
    EXPECT_EQ(b.cumulative_count, b.upper_bound >= 0.003 ? 1u : 0u) << b.upper_bound;
  }
}

}  // namespace
}  // namespace strata::broker
