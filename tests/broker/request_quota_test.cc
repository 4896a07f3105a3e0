// Kafka's request quota (request_percentage) around a handler (broker/handlers/
// request_quota.h): a handler's time counted against its client's entity, the throttle
// the client's measure comes to put in the next answers' throttle_time_ms (at its place
// in the encoded body) and on the connection, a broker's request exempt, and which APIs
// are under the quota at all. The handler here spins for a while: the request time the
// quota measures.

#include "broker/handlers/request_quota.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "broker/quota/client_quota_manager.h"
#include "controller/metadata_image.h"
#include "proto/kafka/wire.h"
#include "tests/support/broker_services.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
namespace kafka = strata::proto::kafka;

// An encoded answer whose throttle_time_ms is the first field (Metadata v12).
std::string BodyWithThrottle(int32_t throttle_ms) {
  std::string body;
  kafka::Writer w(&body);
  w.Int32(throttle_ms);
  w.Int32(12345);  // the rest of the answer
  return body;
}

int32_t ThrottleIn(const std::string& body, size_t offset = 0) {
  kafka::Reader r(absl::string_view(body).substr(offset));
  return r.Int32("throttle_time_ms");
}

// The handler: spins for its request time, marks a follower's request exempt, answers.
std::atomic<bool> g_exempt{false};
void BusyHandler(const ApiRequest& request, ApiResponder respond) {
  const auto until = std::chrono::steady_clock::now() + 50ms;
  while (std::chrono::steady_clock::now() < until) {
  }
  if (g_exempt.load() && request.request_quota != nullptr) request.request_quota->exempt.store(true);
  ApiResponse out;
  out.body = BodyWithThrottle(0);
  respond(std::optional<ApiResponse>(std::move(out)));
}

metadata::v1::MetadataRecord RequestPercentage(const std::string& client_id, double value) {
  metadata::v1::MetadataRecord r;
  auto* part = r.mutable_client_quota()->add_entity();
  part->set_entity_type("client-id");
  part->set_entity_name(client_id);
  r.mutable_client_quota()->set_key("request_percentage");
  r.mutable_client_quota()->set_value(value);
  return r;
}

class RequestQuota : public ::testing::Test {
 protected:
  void SetUp() override {
    services_ = std::make_unique<testing::BrokerServices>(tmp_.path());
    context_ = std::make_unique<KafkaApisContext>(services_->Context());
    context_->client_quotas = &quotas_;
  }

  // One Metadata v12 request of client_id through HandleUnderRequestQuota.
  ApiResponse Call(const std::string& client_id) {
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(kafka::ApiKey::kMetadata);
    header.api_version = 12;
    header.client_id = client_id;
    header.principal = "User:ANONYMOUS";
    Purgatories purgatories{fetch_, produce_, delete_records_};
    std::vector<kafka::ApiVersionRange> advertised;
    ApiRequest request{*context_, header, "", purgatories, advertised};
    ApiEntry api{kafka::ApiKey::kMetadata, 0, 12, &BusyHandler};
    std::optional<ApiResponse> answer;
    HandleUnderRequestQuota(api, request, [&](absl::StatusOr<std::optional<ApiResponse>> a) {
      ASSERT_TRUE(a.ok() && a->has_value());
      answer = std::move(**a);
    });
    EXPECT_TRUE(answer.has_value());
    return answer.value_or(ApiResponse{});
  }

  double RequestTimeOf(const std::string& client_id) {
    for (const auto& s : quotas_.Stats(ClientQuotaManager::Clock::now())) {
      if (s.kind == QuotaKind::kRequest && s.client_id == client_id) return s.amount;
    }
    return 0;
  }

  testing::TempDir tmp_;
  std::unique_ptr<testing::BrokerServices> services_;
  std::unique_ptr<KafkaApisContext> context_;
  ClientQuotaManager quotas_;
  controller::MetadataImage image_;
  Purgatory fetch_{"fetch"}, produce_{"produce"}, delete_records_{"delete-records"};
};

TEST_F(RequestQuota, AClientOverItsRequestPercentageIsAnsweredWithItsThrottle) {
  kafka::RequestHeader header;
  header.api_key = static_cast<int16_t>(kafka::ApiKey::kMetadata);
  EXPECT_FALSE(UnderRequestQuota(*context_, header)) << "no request_percentage set anywhere";
  // 1% of a thread: 10 ms of handler time per second; each request takes 50.
  ASSERT_TRUE(image_.Apply(RequestPercentage("busy", 1)).ok());
  quotas_.Update(image_.client_quotas());
  ASSERT_TRUE(UnderRequestQuota(*context_, header));

  ApiResponse first = Call("busy");
  EXPECT_EQ(first.throttle, 0ms) << "nothing measured before it";
  EXPECT_EQ(ThrottleIn(first.body), 0);
  EXPECT_GE(RequestTimeOf("busy"), 5.0) << "50 ms is 5 percent-seconds";
  ApiResponse second = Call("busy");
  EXPECT_GT(second.throttle, 0ms);
  EXPECT_EQ(ThrottleIn(second.body), second.throttle.count()) << "throttle_time_ms, at its place";
  EXPECT_EQ(ThrottleIn(second.body, 4), 12345) << "the rest untouched";

  // Another client has no quota: neither measured nor throttled.
  ApiResponse other = Call("idle");
  EXPECT_EQ(other.throttle, 0ms);
  EXPECT_EQ(RequestTimeOf("idle"), 0);

  // A broker's request (the handler marks it): not throttled, not counted.
  const double before = RequestTimeOf("busy");
  g_exempt.store(true);
  ApiResponse exempt = Call("busy");
  g_exempt.store(false);
  EXPECT_EQ(exempt.throttle, 0ms);
  EXPECT_EQ(ThrottleIn(exempt.body), 0);
  EXPECT_EQ(RequestTimeOf("busy"), before);
}

TEST_F(RequestQuota, TheBrokersOwnApisAreNotUnderIt) {
  ASSERT_TRUE(image_.Apply(RequestPercentage("busy", 1)).ok());
  quotas_.Update(image_.client_quotas());
  kafka::RequestHeader header;
  header.api_key = static_cast<int16_t>(kafka::ApiKey::kWriteTxnMarkers);
  EXPECT_FALSE(UnderRequestQuota(*context_, header));
  header.api_key = static_cast<int16_t>(kafka::ApiKey::kAddPartitionsToTxn);
  header.api_version = 4;
  EXPECT_FALSE(UnderRequestQuota(*context_, header)) << "v4+: the brokers' verification";
  header.api_version = 3;
  EXPECT_TRUE(UnderRequestQuota(*context_, header));
  header.api_key = static_cast<int16_t>(kafka::ApiKey::kProduce);
  EXPECT_TRUE(UnderRequestQuota(*context_, header));
}

// The throttle goes where each API holds it, the longer of the answer's own and the
// quota's; an API without a fixed place (Produce, ApiVersions) keeps its body and still
// has its connection throttled.
TEST(RequestThrottle, GoesIntoTheAnswerWhereTheApiHoldsIt) {
  ApiResponse metadata;
  metadata.body = BodyWithThrottle(0);
  ApplyRequestThrottle(metadata, static_cast<int16_t>(kafka::ApiKey::kMetadata), 12, 250ms);
  EXPECT_EQ(ThrottleIn(metadata.body), 250);
  EXPECT_EQ(metadata.throttle, 250ms);
  ApiResponse longer;
  longer.body = BodyWithThrottle(900);
  longer.throttle = 900ms;
  ApplyRequestThrottle(longer, static_cast<int16_t>(kafka::ApiKey::kFetch), 12, 250ms);
  EXPECT_EQ(ThrottleIn(longer.body), 900) << "the answer's own is longer";
  EXPECT_EQ(longer.throttle, 900ms);
  ApiResponse old;
  old.body = BodyWithThrottle(7);
  ApplyRequestThrottle(old, static_cast<int16_t>(kafka::ApiKey::kMetadata), 2, 250ms);
  EXPECT_EQ(ThrottleIn(old.body), 7) << "Metadata v2 has no throttle_time_ms";
  EXPECT_EQ(old.throttle, 250ms);
  ApiResponse offset_delete;
  offset_delete.body = std::string(2, '\0') + BodyWithThrottle(0);
  ApplyRequestThrottle(offset_delete, static_cast<int16_t>(kafka::ApiKey::kOffsetDelete), 0, 250ms);
  EXPECT_EQ(ThrottleIn(offset_delete.body, 2), 250) << "after OffsetDelete's error code";
  ApiResponse produce;
  produce.body = BodyWithThrottle(0);
  ApplyRequestThrottle(produce, static_cast<int16_t>(kafka::ApiKey::kProduce), 9, 250ms);
  EXPECT_EQ(ThrottleIn(produce.body), 0);
  EXPECT_EQ(produce.throttle, 250ms);
}

}  // namespace
}  // namespace strata::broker
