// The Kafka protocol codec: primitive types round-trip and match the protocol's byte
// layouts; every truncated or oversized input is refused with the field named and no
// read past the end; headers v1/v2 and ApiVersions v0-v4 (KIP-511, KIP-584 features).

#include <gtest/gtest.h>

#include <limits>

#include "proto/kafka/api.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/header.h"
#include "proto/kafka/metadata.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {
namespace {

TEST(KafkaWire, FixedWidthIntegersAreBigEndian) {
  std::string out;
  Writer w(&out);
  w.Int16(0x0102);
  w.Int32(-2);
  w.Int64(0x0102030405060708);
  EXPECT_EQ(out, std::string("\x01\x02\xff\xff\xff\xfe\x01\x02\x03\x04\x05\x06\x07\x08", 14));
  Reader r(out);
  EXPECT_EQ(r.Int16("a"), 0x0102);
  EXPECT_EQ(r.Int32("b"), -2);
  EXPECT_EQ(r.Int64("c"), 0x0102030405060708);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(KafkaWire, VarintsAreZigZagAndUnsignedVarintsAreNot) {
  for (int32_t v : {0, -1, 1, 63, -64, 64, 300, std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}) {
    std::string out;
    Writer(&out).VarInt(v);
    Reader r(out);
    EXPECT_EQ(r.VarInt("v"), v);
    EXPECT_TRUE(r.ok() && r.remaining() == 0) << v;
  }
  for (int64_t v : {int64_t{0}, int64_t{-1}, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    std::string out;
    Writer(&out).VarLong(v);
    Reader r(out);
    EXPECT_EQ(r.VarLong("v"), v);
    EXPECT_TRUE(r.ok() && r.remaining() == 0) << v;
  }
  std::string out;
  Writer(&out).VarInt(-1);
  EXPECT_EQ(out, "\x01");  // zig-zag: -1 -> 1
  out.clear();
  Writer(&out).UnsignedVarInt(300);
  EXPECT_EQ(out, "\xac\x02");
}

TEST(KafkaWire, ClassicAndCompactStringsAndNulls) {
  std::string out;
  Writer w(&out);
  w.String("ab", false);
  w.String("ab", true);
  w.NullableString(std::nullopt, false);
  w.NullableString(std::nullopt, true);
  w.NullableBytes(std::string("xyz"), false);
  w.NullableBytes(std::nullopt, true);
  EXPECT_EQ(out, std::string("\x00\x02" "ab" "\x03" "ab" "\xff\xff" "\x00" "\x00\x00\x00\x03" "xyz" "\x00", 18));
  Reader r(out);
  EXPECT_EQ(r.String(false, "s1"), "ab");
  EXPECT_EQ(r.String(true, "s2"), "ab");
  EXPECT_EQ(r.NullableString(false, "s3"), std::nullopt);
  EXPECT_EQ(r.NullableString(true, "s4"), std::nullopt);
  EXPECT_EQ(r.NullableBytes(false, "b1"), std::optional<std::string>("xyz"));
  EXPECT_EQ(r.NullableBytes(true, "b2"), std::nullopt);
  EXPECT_TRUE(r.ok());
}

TEST(KafkaWire, ANullWhereNoneIsAllowedIsRefused) {
  std::string out;
  Writer(&out).NullableString(std::nullopt, false);
  Reader r(out);
  r.String(false, "topic");
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'topic' is null"), absl::string_view::npos) << r.status();
}

TEST(KafkaWire, BytesAreLengthPrefixedAndNeverNull) {
  std::string out;
  Writer w(&out);
  w.Bytes(std::string("a\0b", 3), false);
  w.Bytes("", true);
  EXPECT_EQ(out, std::string("\x00\x00\x00\x03" "a\0b" "\x01", 8));
  Reader r(out);
  EXPECT_EQ(r.Bytes(false, "b1"), std::string("a\0b", 3));
  EXPECT_EQ(r.Bytes(true, "b2"), "");
  EXPECT_TRUE(r.ok());
  std::string null;
  Writer(&null).NullableBytes(std::nullopt, false);
  Reader n(null);
  n.Bytes(false, "metadata");
  EXPECT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("'metadata' is null"), absl::string_view::npos) << n.status();
}

TEST(KafkaWire, EveryTruncationIsRefusedNamingTheField) {
  std::string out;
  Writer w(&out);
  w.Int32(7);
  w.String("hello", true);
  w.Int64(42);
  for (size_t cut = 0; cut < out.size(); ++cut) {
    Reader r(absl::string_view(out).substr(0, cut));
    r.Int32("count");
    r.String(true, "name");
    r.Int64("offset");
    ASSERT_FALSE(r.ok()) << "cut at " << cut;
    EXPECT_EQ(r.remaining(), 0u);
    std::string msg(r.status().message());
    EXPECT_TRUE(msg.find("'count'") != std::string::npos || msg.find("'name'") != std::string::npos ||
                msg.find("'offset'") != std::string::npos)
        << msg;
    // After the first failure reads return zero values and nothing moves.
    EXPECT_EQ(r.Int64("more"), 0);
  }
}

TEST(KafkaWire, OversizedLengthsAreRefusedWithoutAllocating) {
  std::string out;
  Writer w(&out);
  w.Int32(std::numeric_limits<int32_t>::max());  // an array "of 2^31 elements" in 0 bytes
  Reader r(out);
  EXPECT_EQ(r.ArrayLength(false, "partitions"), 0);
  EXPECT_FALSE(r.ok());
  out.clear();
  Writer(&out).Int16(-5);  // a string length below -1
  Reader s(out);
  s.NullableString(false, "client_id");
  EXPECT_FALSE(s.ok());
  const std::string six_bytes("\xff\xff\xff\xff\xff\xff", 6);  // a varint of 6 bytes
  Reader v(six_bytes);
  v.UnsignedVarInt("length");
  EXPECT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("longer than 5 bytes"), absl::string_view::npos);
}

TEST(KafkaWire, TaggedFieldsAreSkipped) {
  std::string out;
  Writer w(&out);
  w.UnsignedVarInt(2);  // two tagged fields
  w.UnsignedVarInt(0);
  w.UnsignedVarInt(3);
  out += "abc";
  w.UnsignedVarInt(5);
  w.UnsignedVarInt(0);
  w.Int32(99);
  Reader r(out);
  r.SkipTaggedFields("tags");
  EXPECT_EQ(r.Int32("after"), 99);
  EXPECT_TRUE(r.ok());
}

TEST(KafkaHeader, HeaderVersionsFollowTheApiAndVersion) {
  EXPECT_EQ(RequestHeaderVersion(3, 8), 1);   // Metadata v8: classic
  EXPECT_EQ(RequestHeaderVersion(3, 9), 2);   // Metadata v9: flexible
  EXPECT_EQ(ResponseHeaderVersion(3, 9), 1);
  EXPECT_EQ(ResponseHeaderVersion(18, 3), 0);  // ApiVersions' response header is always v0
  EXPECT_EQ(RequestHeaderVersion(18, 3), 2);
  EXPECT_EQ(RequestHeaderVersion(60, 0), 2);   // DescribeCluster is flexible from v0
  EXPECT_EQ(ApiName(0), "Produce");
  EXPECT_EQ(ApiName(9999), "Unknown");
}

TEST(KafkaHeader, RequestHeadersV1AndV2RoundTrip) {
  for (int16_t version : {int16_t{2}, int16_t{3}}) {
    RequestHeader h;
    h.api_key = static_cast<int16_t>(ApiKey::kApiVersions);
    h.api_version = version;
    h.correlation_id = 1234;
    h.client_id = "rdkafka";
    std::string out;
    Writer w(&out);
    WriteRequestHeader(h, w);
    w.Int8(77);  // the body starts here
    Reader r(out);
    auto read = ReadRequestHeader(r);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->correlation_id, 1234);
    EXPECT_EQ(read->client_id, std::optional<std::string>("rdkafka"));
    EXPECT_EQ(read->header_version, version >= 3 ? 2 : 1);
    EXPECT_EQ(r.Int8("body"), 77);
  }
}

TEST(KafkaApiVersions, ResponsesV0AndV3HaveTheProtocolsLayout) {
  ApiVersionsResponse resp;
  resp.api_keys = {{18, 0, 3}};
  std::string v0;
  Writer w0(&v0);
  WriteApiVersionsResponse(resp, 0, w0);
  EXPECT_EQ(v0, std::string("\x00\x00" "\x00\x00\x00\x01" "\x00\x12\x00\x00\x00\x03", 12));
  std::string v3;
  Writer w3(&v3);
  resp.throttle_time_ms = 5;
  WriteApiVersionsResponse(resp, 3, w3);
  EXPECT_EQ(v3, std::string("\x00\x00" "\x02" "\x00\x12\x00\x00\x00\x03" "\x00" "\x00\x00\x00\x05" "\x00", 15));
  for (int16_t version = 0; version <= 3; ++version) {
    std::string out;
    Writer w(&out);
    WriteApiVersionsResponse(resp, version, w);
    Reader r(out);
    auto back = ReadApiVersionsResponse(r, version);
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(back->api_keys.size(), 1u);
    EXPECT_EQ(back->api_keys[0].max_version, 3);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

// KIP-584's features ride in v3+'s tagged fields: SupportedFeatures (0),
// FinalizedFeaturesEpoch (1), FinalizedFeatures (2). v3 leaves out a supported feature
// whose range starts at 0 (KAFKA-17011: clients before v4 refuse it); v4 keeps it.
TEST(KafkaApiVersions, FeaturesAreTaggedFieldsAndV3OmitsRangesFromZero) {
  ApiVersionsResponse resp;
  resp.api_keys = {{18, 0, 4}};
  resp.supported_features = {{"transaction.version", 0, 2}, {"x.version", 1, 3}};
  resp.finalized_features_epoch = 42;
  resp.finalized_features = {{"transaction.version", 2, 2}};
  std::string v4;
  Writer w4(&v4);
  WriteApiVersionsResponse(resp, 4, w4);
  const std::string tail = std::string("\x03", 1)                                   // 3 tagged fields
                           + std::string("\x00", 1) + std::string("\x29", 1)        // tag 0, 41 bytes
                           + std::string("\x03", 1)                                 // 2 features
                           + std::string("\x14", 1) + "transaction.version" + std::string("\x00\x00\x00\x02\x00", 5)
                           + std::string("\x0a", 1) + "x.version" + std::string("\x00\x01\x00\x03\x00", 5)
                           + std::string("\x01\x08", 2) + std::string("\x00\x00\x00\x00\x00\x00\x00\x2a", 8)
                           + std::string("\x02\x1a", 2)                             // tag 2, 26 bytes
                           + std::string("\x02", 1) + std::string("\x14", 1) + "transaction.version" +
                           std::string("\x00\x02\x00\x02\x00", 5);
  ASSERT_GE(v4.size(), tail.size());
  EXPECT_EQ(v4.substr(v4.size() - tail.size()), tail);
  Reader r4(v4);
  auto back = ReadApiVersionsResponse(r4, 4);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->supported_features, resp.supported_features);
  EXPECT_EQ(back->finalized_features_epoch, 42);
  EXPECT_EQ(back->finalized_features, resp.finalized_features);

  std::string v3;
  Writer w3(&v3);
  WriteApiVersionsResponse(resp, 3, w3);
  Reader r3(v3);
  back = ReadApiVersionsResponse(r3, 3);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->supported_features, (std::vector<SupportedFeatureKey>{{"x.version", 1, 3}}));
  EXPECT_EQ(back->finalized_features, resp.finalized_features) << "finalized levels are not ranges";
}

TEST(KafkaApiVersions, AV3RequestCarriesTheClientSoftware) {
  ApiVersionsRequest req{"librdkafka", "2.0.2"};
  std::string out;
  Writer w(&out);
  WriteApiVersionsRequest(req, 3, w);
  Reader r(out);
  auto back = ReadApiVersionsRequest(r, 3);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->client_software_name, "librdkafka");
  EXPECT_EQ(back->client_software_version, "2.0.2");
  Reader truncated(absl::string_view(out).substr(0, 4));
  EXPECT_FALSE(ReadApiVersionsRequest(truncated, 3).ok());
}

TEST(KafkaApiVersions, ATooNewVersionIsAnsweredPerKip511) {
  int16_t response_version = -1;
  const std::vector<ApiVersionRange> supported{{static_cast<int16_t>(ApiKey::kMetadata), 0, 12},
                                               {static_cast<int16_t>(ApiKey::kApiVersions), 0, 3}};
  ApiVersionsResponse ok = AnswerApiVersions(supported, 3, &response_version);
  EXPECT_EQ(ok.error_code, 0);
  EXPECT_EQ(response_version, 3);
  ApiVersionsResponse too_new = AnswerApiVersions(supported, 9, &response_version);
  EXPECT_EQ(too_new.error_code, static_cast<int16_t>(ErrorCode::kUnsupportedVersion));
  EXPECT_EQ(response_version, 0);  // v0 is what every client can read
  ASSERT_EQ(too_new.api_keys.size(), 2u);  // the ranges, so the client can pick a version
  EXPECT_EQ(too_new.api_keys[1].max_version, 3);
}

TEST(KafkaMetadata, RequestsRoundTripInEveryVersion) {
  for (int16_t version = 0; version <= 12; ++version) {
    MetadataRequest req;
    req.topics.emplace();
    req.topics->push_back({std::string(16, '\0'), std::string("orders")});
    req.allow_auto_topic_creation = false;
    std::string out;
    Writer w(&out);
    WriteMetadataRequest(req, version, w);
    Reader r(out);
    auto back = ReadMetadataRequest(r, version);
    ASSERT_TRUE(back.ok()) << version << ": " << back.status();
    ASSERT_TRUE(back->topics.has_value());
    EXPECT_EQ(back->topics->at(0).name, std::optional<std::string>("orders")) << version;
    EXPECT_EQ(back->allow_auto_topic_creation, version >= 4 ? false : true) << version;
    EXPECT_EQ(r.remaining(), 0u) << version;
  }
}

TEST(KafkaMetadata, AllTopicsIsAnEmptyArrayInV0AndNullLater) {
  MetadataRequest all;
  for (int16_t version : {int16_t{0}, int16_t{1}, int16_t{9}}) {
    std::string out;
    Writer w(&out);
    WriteMetadataRequest(all, version, w);
    Reader r(out);
    auto back = ReadMetadataRequest(r, version);
    ASSERT_TRUE(back.ok());
    EXPECT_FALSE(back->topics.has_value()) << version;
  }
  std::string v1_empty;
  Writer(&v1_empty).Int32(0);  // v1: an empty array means no topics, not all
  Reader r(v1_empty);
  auto none = ReadMetadataRequest(r, 1);
  ASSERT_TRUE(none.ok());
  ASSERT_TRUE(none->topics.has_value());
  EXPECT_TRUE(none->topics->empty());
}

TEST(KafkaMetadata, ResponsesRoundTripInEveryVersion) {
  MetadataResponse resp;
  resp.brokers.push_back({4, "127.0.0.1", 9092, std::string("r1")});
  resp.cluster_id = "cluster";
  resp.controller_id = 4;
  MetadataResponse::Topic t;
  t.name = "orders";
  t.topic_id = std::string(16, 'x');
  MetadataResponse::Partition p;
  p.partition_index = 3;
  p.leader_id = 4;
  p.leader_epoch = 7;
  p.replica_nodes = {4, 5};
  p.isr_nodes = {4};
  p.offline_replicas = {5};
  t.partitions.push_back(p);
  resp.topics.push_back(t);
  for (int16_t version = 0; version <= 12; ++version) {
    std::string out;
    Writer w(&out);
    WriteMetadataResponse(resp, version, w);
    Reader r(out);
    auto back = ReadMetadataResponse(r, version);
    ASSERT_TRUE(back.ok()) << version << ": " << back.status();
    EXPECT_EQ(r.remaining(), 0u) << version;
    ASSERT_EQ(back->brokers.size(), 1u);
    EXPECT_EQ(back->brokers[0].port, 9092);
    EXPECT_EQ(back->brokers[0].rack, version >= 1 ? std::optional<std::string>("r1") : std::nullopt);
    EXPECT_EQ(back->controller_id, version >= 1 ? 4 : -1);
    ASSERT_EQ(back->topics.size(), 1u);
    const auto& bp = back->topics[0].partitions.at(0);
    EXPECT_EQ(bp.leader_id, 4);
    EXPECT_EQ(bp.leader_epoch, version >= 7 ? 7 : -1);
    EXPECT_EQ(bp.replica_nodes, (std::vector<int32_t>{4, 5}));
    EXPECT_EQ(bp.offline_replicas, version >= 5 ? std::vector<int32_t>{5} : std::vector<int32_t>{});
    EXPECT_EQ(back->topics[0].topic_id, version >= 10 ? std::string(16, 'x') : std::string(16, '\0'));
    // Every truncation is refused.
    for (size_t cut = 0; cut < out.size(); cut += 7) {
      Reader short_reader(absl::string_view(out).substr(0, cut));
      EXPECT_FALSE(ReadMetadataResponse(short_reader, version).ok()) << version << " cut " << cut;
    }
  }
}

// Error codes are wire values: a wrong number makes a client act on another error (76
// read as UNKNOWN_LEADER_EPOCH would be retried; it is UNSUPPORTED_COMPRESSION_TYPE, fatal).
// The numbers are Kafka's protocol table.
TEST(KafkaErrorCodes, AreKafkasWireNumbers) {
  const std::pair<ErrorCode, int> expected[] = {
      {ErrorCode::kCorruptMessage, 2},       {ErrorCode::kFencedLeaderEpoch, 74},
      {ErrorCode::kUnknownLeaderEpoch, 75},  {ErrorCode::kUnsupportedCompressionType, 76},
      {ErrorCode::kStaleBrokerEpoch, 77},    {ErrorCode::kOffsetNotAvailable, 78},
      {ErrorCode::kInvalidRecord, 87},       {ErrorCode::kUnknownTopicId, 100},
      {ErrorCode::kOffsetMovedToTieredStorage, 109}, {ErrorCode::kInvalidUpdateVersion, 95},
      // The group coordinator's.
      {ErrorCode::kOffsetMetadataTooLarge, 12},    {ErrorCode::kCoordinatorLoadInProgress, 14},
      {ErrorCode::kCoordinatorNotAvailable, 15},   {ErrorCode::kNotCoordinator, 16},
      {ErrorCode::kIllegalGeneration, 22},         {ErrorCode::kInconsistentGroupProtocol, 23},
      {ErrorCode::kInvalidGroupId, 24},            {ErrorCode::kUnknownMemberId, 25},
      {ErrorCode::kInvalidSessionTimeout, 26},     {ErrorCode::kRebalanceInProgress, 27},
      {ErrorCode::kInvalidCommitOffsetSize, 28},   {ErrorCode::kGroupAuthorizationFailed, 30},
      {ErrorCode::kNonEmptyGroup, 68},             {ErrorCode::kGroupIdNotFound, 69},
      {ErrorCode::kMemberIdRequired, 79},          {ErrorCode::kGroupMaxSizeReached, 81},
      {ErrorCode::kFencedInstanceId, 82},          {ErrorCode::kGroupSubscribedToTopic, 86},
      {ErrorCode::kUnstableOffsetCommit, 88},      {ErrorCode::kUnknownTopicOrPartition, 3},
  };
  for (const auto& [code, number] : expected) EXPECT_EQ(static_cast<int>(code), number) << ErrorName(code);
}

// A consumer retries a coordinator that is loading, unavailable or moved, and an unstable
// offset; a generation, member or rebalance error sends it back to rejoin instead.
TEST(KafkaErrorCodes, GroupErrorsNamesAndRetriability) {
  EXPECT_EQ(ErrorName(ErrorCode::kNotCoordinator), "NOT_COORDINATOR");
  EXPECT_EQ(ErrorName(ErrorCode::kFencedInstanceId), "FENCED_INSTANCE_ID");
  EXPECT_EQ(ErrorName(ErrorCode::kUnstableOffsetCommit), "UNSTABLE_OFFSET_COMMIT");
  for (ErrorCode code : {ErrorCode::kCoordinatorLoadInProgress, ErrorCode::kCoordinatorNotAvailable,
                         ErrorCode::kNotCoordinator, ErrorCode::kUnstableOffsetCommit}) {
    EXPECT_TRUE(IsRetriable(code)) << ErrorName(code);
  }
  for (ErrorCode code : {ErrorCode::kOffsetMetadataTooLarge, ErrorCode::kIllegalGeneration,
                         ErrorCode::kInconsistentGroupProtocol, ErrorCode::kInvalidGroupId, ErrorCode::kUnknownMemberId,
                         ErrorCode::kInvalidSessionTimeout, ErrorCode::kRebalanceInProgress,
                         ErrorCode::kInvalidCommitOffsetSize, ErrorCode::kGroupAuthorizationFailed,
                         ErrorCode::kNonEmptyGroup, ErrorCode::kGroupIdNotFound, ErrorCode::kMemberIdRequired,
                         ErrorCode::kGroupMaxSizeReached, ErrorCode::kFencedInstanceId,
                         ErrorCode::kGroupSubscribedToTopic}) {
    EXPECT_FALSE(IsRetriable(code)) << ErrorName(code);
  }
}

}  // namespace
}  // namespace strata::proto::kafka
