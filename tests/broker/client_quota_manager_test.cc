// Client quotas on a broker (broker/quota/client_quota_manager.h) with a clock the test
// moves: Kafka's precedence of user and client-id entities, what shares one measure
// (a user's quota, all its client ids; a default's, each name its own), the throttle time
// that brings a client back to its quota, the largest fetch its quota allows, and the
// measures the metrics show.

#include "broker/quota/client_quota_manager.h"

#include <gtest/gtest.h>

#include "controller/metadata_image.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
namespace pb = metadata::v1;
using Parts = std::vector<std::pair<std::string, std::optional<std::string>>>;

pb::MetadataRecord Quota(const Parts& entity, const std::string& key, double value) {
  pb::MetadataRecord r;
  for (const auto& [type, name] : entity) {
    pb::ClientQuotaEntityPart* p = r.mutable_client_quota()->add_entity();
    p->set_entity_type(type);
    if (name) p->set_entity_name(*name);
  }
  r.mutable_client_quota()->set_key(key);
  r.mutable_client_quota()->set_value(value);
  return r;
}

const auto t0 = ClientQuotaManager::Clock::time_point() + 1000s;

TEST(ClientQuotaManager, WithoutAQuotaNothingIsMeasuredOrThrottled) {
  ClientQuotaManager quotas;
  controller::MetadataImage image;
  quotas.Update(image.client_quotas());
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, {"alice", "app"}, 1 << 30, t0), 0ms);
  EXPECT_EQ(quotas.MaxBytesInWindow(QuotaKind::kFetch, {"alice", "app"}), std::nullopt);
  ASSERT_TRUE(image.Apply(Quota({{"user", "bob"}}, "producer_byte_rate", 1000)).ok());
  quotas.Update(image.client_quotas());
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, {"alice", "app"}, 1 << 30, t0), 0ms) << "bob's quota is not alice's";
  EXPECT_EQ(quotas.Record(QuotaKind::kFetch, {"bob", "app"}, 1 << 30, t0), 0ms) << "a produce quota is no fetch quota";
  EXPECT_TRUE(quotas.Stats(t0).empty());
}

TEST(ClientQuotaManager, TheFirstEntityInKafkasPrecedenceApplies) {
  controller::MetadataImage image;
  const std::vector<std::pair<Parts, double>> levels = {
      {{{"client-id", std::nullopt}}, 8},
      {{{"client-id", "app"}}, 7},
      {{{"user", std::nullopt}}, 6},
      {{{"user", std::nullopt}, {"client-id", std::nullopt}}, 5},
      {{{"user", std::nullopt}, {"client-id", "app"}}, 4},
      {{{"user", "alice"}}, 3},
      {{{"user", "alice"}, {"client-id", std::nullopt}}, 2},
      {{{"user", "alice"}, {"client-id", "app"}}, 1},
  };
  // Each level added in turn (the least precedent first) takes over: the quota in
  // force is the one added last, seen through the largest fetch (2 s of the quota).
  ClientQuotaManager quotas({.samples = 11, .window = 1s});
  for (const auto& [entity, rate] : levels) {
    ASSERT_TRUE(image.Apply(Quota(entity, "consumer_byte_rate", rate)).ok());
    quotas.Update(image.client_quotas());
    EXPECT_EQ(quotas.MaxBytesInWindow(QuotaKind::kFetch, {"alice", "app"}), static_cast<int64_t>(rate) * 2)
        << "rate " << rate;
  }
}

TEST(ClientQuotaManager, AUsersQuotaIsSharedByItsClientsAndADefaultIsEachNamesOwn) {
  controller::MetadataImage image;
  ASSERT_TRUE(image.Apply(Quota({{"user", "alice"}}, "producer_byte_rate", 1000)).ok());
  ASSERT_TRUE(image.Apply(Quota({{"client-id", std::nullopt}}, "producer_byte_rate", 1000)).ok());
  ClientQuotaManager quotas({.samples = 11, .window = 1s});
  quotas.Update(image.client_quotas());
  // alice's two client ids share user=alice: 1500 + 1500 over the short measure's 2 s
  // span is above 1000 a second.
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, {"alice", "a"}, 1500, t0), 0ms);
  EXPECT_GT(quotas.Record(QuotaKind::kProduce, {"alice", "b"}, 1500, t0), 0ms);
  // Anonymous clients fall to client-id=<default>: each client id measured alone.
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, {"ANONYMOUS", "x"}, 1500, t0), 0ms);
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, {"ANONYMOUS", "y"}, 1500, t0), 0ms);
  std::vector<std::tuple<std::string, std::string, int64_t>> seen;
  for (const auto& s : quotas.Stats(t0)) seen.emplace_back(s.user, s.client_id, static_cast<int64_t>(s.amount));
  EXPECT_EQ(seen, (std::vector<std::tuple<std::string, std::string, int64_t>>{
                      {"", "x", 1500}, {"", "y", 1500}, {"alice", "", 3000}}))
      << "Kafka's tags: the user alone, or the client id alone";
}

TEST(ClientQuotaManager, AClientAboveItsQuotaWaitsUntilItsRateIsBackToIt) {
  controller::MetadataImage image;
  ASSERT_TRUE(image.Apply(Quota({{"client-id", "fast"}}, "producer_byte_rate", 1000)).ok());
  ClientQuotaManager quotas({.samples = 11, .window = 1s});
  quotas.Update(image.client_quotas());
  const QuotaClient fast{"ANONYMOUS", "fast"};
  // 20000 bytes at once: over Kafka's 10 s span 2000 per second, (2000 - 1000) / 1000 of
  // the span is 10 s; over the short measure's 2 s, 10000 per second: 9 x 2 s, the longer.
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, fast, 20000, t0), 18000ms);
  EXPECT_EQ(quotas.Record(QuotaKind::kProduce, fast, 0, t0 + 11s), 0ms) << "the burst left the 11 windows";
  // A client that waits what it is told, trying 10x its quota (1000 bytes every 100 ms),
  // is held to its quota once past its first windows: a minute of it gets a minute's worth.
  ClientQuotaManager held({.samples = 11, .window = 1s});
  held.Update(image.client_quotas());
  int64_t in_minute = 0;
  auto now = t0;
  while (now < t0 + 100s) {
    std::chrono::milliseconds throttle = held.Record(QuotaKind::kProduce, fast, 1000, now);
    if (now >= t0 + 20s && now < t0 + 80s) in_minute += 1000;
    now += std::max<std::chrono::milliseconds>(throttle, 100ms);
  }
  EXPECT_GE(in_minute, 60 * 900);
  EXPECT_LE(in_minute, 60 * 1100);
  const auto stats = held.Stats(now);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_GT(stats[0].throttled, 0);
  EXPECT_EQ(stats[0].quota, 1000);
}

TEST(SampledRate, KafkasWindowSpanAndThrottleTime) {
  SampledRate rate({.samples = 11, .window = 1s});
  rate.Record(1000, t0);
  EXPECT_EQ(rate.WindowMs(t0), 10000) << "at least samples - 1 windows";
  EXPECT_EQ(rate.WindowMs(t0 + 2500ms), 10500) << "2.5 s seen, 2 whole windows: 8 more";
  EXPECT_DOUBLE_EQ(rate.Measure(t0), 100);
  EXPECT_EQ(rate.ThrottleTime(100, t0), 0ms);
  EXPECT_EQ(rate.ThrottleTime(50, t0), 10000ms) << "(100 - 50) / 50 of 10 s";
  EXPECT_DOUBLE_EQ(rate.Measure(t0 + 11s), 0) << "samples older than 11 windows count for nothing";
}

}  // namespace
}  // namespace strata::broker
