// The client quota APIs' codecs (proto/kafka/client_quotas.h): DescribeClientQuotas and
// AlterClientQuotas v0-v1 round-trip, and their bytes are Kafka's layout (classic v0,
// compact v1; quota values as big-endian IEEE 754 doubles).

#include <gtest/gtest.h>

#include "proto/kafka/api.h"
#include "proto/kafka/client_quotas.h"
#include "proto/kafka/wire.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::DecodeWhole;
using testing::Encode;
using testing::HandBytes;

TEST(KafkaClientQuotas, RequestsAndResponsesRoundTripAtEveryVersion) {
  DescribeClientQuotasRequest describe;
  describe.components = {{"user", 0, std::string("alice")}, {"client-id", 1, std::nullopt}};
  describe.strict = true;
  DescribeClientQuotasResponse described;
  described.throttle_time_ms = 7;
  described.entries.emplace();
  described.entries->push_back({{{"user", std::string("alice")}, {"client-id", std::nullopt}},
                                {{"producer_byte_rate", 1048576}, {"request_percentage", 12.5}}});
  DescribeClientQuotasResponse refused;
  refused.error_code = 42;
  refused.error_message = "Unknown match type 7.";
  AlterClientQuotasRequest alter;
  alter.entries.push_back({{{"client-id", std::string("app")}}, {{"consumer_byte_rate", 2e6, false}, {"x", 0, true}}});
  alter.entries.push_back({{{"ip", std::nullopt}}, {}});
  alter.validate_only = true;
  AlterClientQuotasResponse altered;
  altered.throttle_time_ms = 1;
  altered.entries.push_back({0, std::nullopt, {{"client-id", std::string("app")}}});
  altered.entries.push_back({42, std::string("bad"), {{"ip", std::nullopt}}});
  for (int16_t v = 0; v <= 1; ++v) {
    SCOPED_TRACE(v);
    auto d = DecodeWhole(Encode(describe, v, WriteDescribeClientQuotasRequest), v, ReadDescribeClientQuotasRequest);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, describe);
    for (const auto* response : {&described, &refused}) {
      auto r = DecodeWhole(Encode(*response, v, WriteDescribeClientQuotasResponse), v, ReadDescribeClientQuotasResponse);
      ASSERT_TRUE(r.ok());
      EXPECT_EQ(*r, *response);
    }
    auto a = DecodeWhole(Encode(alter, v, WriteAlterClientQuotasRequest), v, ReadAlterClientQuotasRequest);
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(*a, alter);
    auto r = DecodeWhole(Encode(altered, v, WriteAlterClientQuotasResponse), v, ReadAlterClientQuotasResponse);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(*r, altered);
  }
}

TEST(KafkaClientQuotas, BytesMatchTheProtocolLayout) {
  // AlterClientQuotas v0: entries (entity: type, nullable name; ops: key, float64 value,
  // remove), validate_only. 1024.0 is 0x4090000000000000.
  const std::string v0 = HandBytes()
                             .Array(1)
                             .Array(2).Str("user").Str("alice").Str("client-id").NullStr()
                             .Array(1).Str("producer_byte_rate").Raw(testing::B("\x40\x90\x00\x00\x00\x00\x00\x00"))
                             .Bool(false)
                             .Bool(true)
                             .str();
  auto a = DecodeWhole(v0, 0, ReadAlterClientQuotasRequest);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->entries.size(), 1u);
  EXPECT_EQ(a->entries[0].entity[1].entity_name, std::nullopt);
  EXPECT_EQ(a->entries[0].ops[0].value, 1024.0);
  EXPECT_TRUE(a->validate_only);
  EXPECT_EQ(Encode(*a, 0, WriteAlterClientQuotasRequest), v0);
  // DescribeClientQuotas v1 response: throttle, error, message, compact nullable entries
  // with a tagged section after each entity part, value, entry and the whole.
  const std::string v1 = HandBytes()
                             .I32(0).I16(0).CNull()
                             .CArray(1)
                             .CArray(1).CStr("client-id").CNull().NoTags()
                             .CArray(1).CStr("consumer_byte_rate").Raw(testing::B("\x40\x90\x00\x00\x00\x00\x00\x00")).NoTags()
                             .NoTags()
                             .NoTags()
                             .str();
  auto d = DecodeWhole(v1, 1, ReadDescribeClientQuotasResponse);
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->entries.has_value());
  EXPECT_EQ(d->entries->at(0).values.at(0).value, 1024.0);
  EXPECT_EQ(Encode(*d, 1, WriteDescribeClientQuotasResponse), v1);
  // An error answers null entries.
  const std::string error = HandBytes().I32(0).I16(42).Str("bad").Array(-1).str();
  auto e = DecodeWhole(error, 0, ReadDescribeClientQuotasResponse);
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(e->entries.has_value());
}

TEST(KafkaClientQuotas, AreFlexibleFromV1) {
  EXPECT_FALSE(IsFlexible(static_cast<int16_t>(ApiKey::kDescribeClientQuotas), 0));
  EXPECT_TRUE(IsFlexible(static_cast<int16_t>(ApiKey::kDescribeClientQuotas), 1));
  EXPECT_TRUE(IsFlexible(static_cast<int16_t>(ApiKey::kAlterClientQuotas), 1));
  EXPECT_EQ(ApiName(static_cast<int16_t>(ApiKey::kAlterClientQuotas)), "AlterClientQuotas");
}

}  // namespace
}  // namespace strata::proto::kafka
