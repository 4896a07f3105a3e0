// The group offset APIs' codecs — OffsetCommit v0-v9, OffsetFetch v0-v9, OffsetDelete
// v0 — and the consumer protocol's embedded subscription and assignment v0-v3.
// Requests and responses round-trip in every version (so at each boundary: first, where
// a field comes or goes, first flexible, last) with the fields a version lacks at their
// defaults; OffsetFetch's two shapes (one group / a batch) and its null topics; hand-built
// byte sequences pin the layout in both directions; every truncation is refused. The
// consumer protocol: the bytes a Java client writes at v0, each version's layout, and a
// future version with more bytes after the known fields read as the newest known.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "proto/kafka/consumer_protocol.h"
#include "proto/kafka/join_group.h"
#include "proto/kafka/offset_commit.h"
#include "proto/kafka/offset_delete.h"
#include "proto/kafka/offset_fetch.h"
#include "proto/kafka/sync_group.h"
#include "proto/kafka/wire.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::DecodeWhole;
using testing::Encode;
using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;
using FetchTopics = std::vector<OffsetFetchRequest::Topic>;

// ---- OffsetCommit ----

OffsetCommitRequest SampleOffsetCommitRequest() {
  OffsetCommitRequest req;
  req.group_id = "orders-app";
  req.generation_id_or_member_epoch = 12;
  req.member_id = "m-1";
  req.group_instance_id = "i-1";
  req.retention_time_ms = 86400000;
  OffsetCommitRequest::Partition p0{0, 1000, 5, 1700000000000, std::string("meta")};
  OffsetCommitRequest::Partition p3{3, (int64_t{1} << 40) + 1, -1, -1, std::nullopt};
  req.topics = {{"orders", {p0, p3}}, {"audit", {{1, 0, 2, 1, std::string()}}}};
  return req;
}

// generation and member id from v1, commit timestamp in v1 only, retention v2-v4,
// leader epoch from v6, instance id from v7.
OffsetCommitRequest OffsetCommitRequestAt(OffsetCommitRequest req, int16_t version) {
  if (version < 1) {
    req.generation_id_or_member_epoch = -1;
    req.member_id.clear();
  }
  if (version < 2 || version > 4) req.retention_time_ms = -1;
  if (version < 7) req.group_instance_id.reset();
  for (auto& t : req.topics) {
    for (auto& p : t.partitions) {
      if (version != 1) p.commit_timestamp = -1;
      if (version < 6) p.committed_leader_epoch = -1;
    }
  }
  return req;
}

TEST(KafkaOffsetCommit, RequestsRoundTripInEveryVersion) {
  OffsetCommitRequest req = SampleOffsetCommitRequest();
  for (int16_t v = 0; v <= 9; ++v) {
    ExpectRoundTrip(WriteOffsetCommitRequest, ReadOffsetCommitRequest, req, OffsetCommitRequestAt(req, v), v);
  }
}

TEST(KafkaOffsetCommit, ResponsesRoundTripInEveryVersion) {
  OffsetCommitResponse resp;
  resp.throttle_time_ms = 8;
  resp.topics = {{"orders", {{0, 0}, {3, 12}}}, {"audit", {{1, 22}}}};
  for (int16_t v = 0; v <= 9; ++v) {
    OffsetCommitResponse expected = resp;
    if (v < 3) expected.throttle_time_ms = 0;
    ExpectRoundTrip(WriteOffsetCommitResponse, ReadOffsetCommitResponse, resp, expected, v);
  }
}

TEST(KafkaOffsetCommit, RequestBytesMatchTheProtocolLayout) {
  OffsetCommitRequest req;
  req.group_id = "g";
  req.topics = {{"t", {{2, 100, -1, -1, std::string("m")}}}};
  // v0: group id, topics (name, partitions (index, offset, metadata)).
  ExpectLayout(WriteOffsetCommitRequest, ReadOffsetCommitRequest, req,
               HandBytes().Str("g").Array(1).Str("t").Array(1).I32(2).I64(100).Str("m").str(), 0);
  // v1: generation and member id after the group; the commit timestamp after the offset.
  req.generation_id_or_member_epoch = 4;
  req.member_id = "c";
  req.topics[0].partitions[0].commit_timestamp = 77;
  ExpectLayout(WriteOffsetCommitRequest, ReadOffsetCommitRequest, req,
               HandBytes().Str("g").I32(4).Str("c").Array(1).Str("t").Array(1).I32(2).I64(100).I64(77).Str("m").str(), 1);
  // v2: the retention time before the topics; no commit timestamp.
  req.topics[0].partitions[0].commit_timestamp = -1;
  req.retention_time_ms = 5000;
  ExpectLayout(WriteOffsetCommitRequest, ReadOffsetCommitRequest, req,
               HandBytes().Str("g").I32(4).Str("c").I64(5000).Array(1).Str("t").Array(1).I32(2).I64(100).Str("m").str(),
               2);
  // v6: no retention time; the leader epoch after the offset.
  req.retention_time_ms = -1;
  req.topics[0].partitions[0].committed_leader_epoch = 9;
  ExpectLayout(WriteOffsetCommitRequest, ReadOffsetCommitRequest, req,
               HandBytes().Str("g").I32(4).Str("c").Array(1).Str("t").Array(1).I32(2).I64(100).I32(9).Str("m").str(), 6);
  // v8: compact; the instance id (v7+) after the member id; null metadata.
  req.group_instance_id = "i";
  req.topics[0].partitions[0].committed_metadata.reset();
  ExpectLayout(WriteOffsetCommitRequest, ReadOffsetCommitRequest, req,
               HandBytes()
                   .CStr("g").I32(4).CStr("c").CStr("i")
                   .CArray(1).CStr("t").CArray(1).I32(2).I64(100).I32(9).CNull().NoTags().NoTags()
                   .NoTags()
                   .str(),
               8);
}

TEST(KafkaOffsetCommit, ResponseBytesMatchTheProtocolLayout) {
  OffsetCommitResponse resp;
  resp.topics = {{"t", {{2, 25}}}};  // UNKNOWN_MEMBER_ID
  ExpectLayout(WriteOffsetCommitResponse, ReadOffsetCommitResponse, resp,
               HandBytes().Array(1).Str("t").Array(1).I32(2).I16(25).str(), 0);
  resp.throttle_time_ms = 3;
  ExpectLayout(WriteOffsetCommitResponse, ReadOffsetCommitResponse, resp,
               HandBytes().I32(3).Array(1).Str("t").Array(1).I32(2).I16(25).str(), 3);
  ExpectLayout(WriteOffsetCommitResponse, ReadOffsetCommitResponse, resp,
               HandBytes().I32(3).CArray(1).CStr("t").CArray(1).I32(2).I16(25).NoTags().NoTags().NoTags().str(), 8);
}

// ---- OffsetFetch ----

OffsetFetchRequest SampleOffsetFetchRequest() {
  OffsetFetchRequest req;
  req.group_id = "orders-app";
  req.topics = FetchTopics{{"orders", {0, 3}}, {"audit", {}}};
  OffsetFetchRequest::Group all;  // every committed partition of the group
  all.group_id = "orders-app";
  all.member_id = "m-1";
  all.member_epoch = 7;
  all.topics.reset();
  OffsetFetchRequest::Group some;
  some.group_id = "connect";
  some.topics = FetchTopics{{"t", {1}}};
  req.groups = {all, some};
  req.require_stable = true;
  return req;
}

// One group to v7, a batch from v8 (member id and epoch from v9); require_stable v7+.
OffsetFetchRequest OffsetFetchRequestAt(OffsetFetchRequest req, int16_t version) {
  if (version < 8) {
    req.groups.clear();
    if (version < 2 && !req.topics) req.topics = FetchTopics{};  // no null before v2
  } else {
    req.group_id.clear();
    req.topics = FetchTopics{};
  }
  if (version < 9) {
    for (auto& g : req.groups) {
      g.member_id.reset();
      g.member_epoch = -1;
    }
  }
  if (version < 7) req.require_stable = false;
  return req;
}

TEST(KafkaOffsetFetch, RequestsRoundTripInEveryVersion) {
  OffsetFetchRequest req = SampleOffsetFetchRequest();
  OffsetFetchRequest all = req;  // one group, every topic
  all.topics.reset();
  for (int16_t v = 0; v <= 9; ++v) {
    ExpectRoundTrip(WriteOffsetFetchRequest, ReadOffsetFetchRequest, req, OffsetFetchRequestAt(req, v), v);
    ExpectRoundTrip(WriteOffsetFetchRequest, ReadOffsetFetchRequest, all, OffsetFetchRequestAt(all, v), v);
  }
}

OffsetFetchResponse SampleOffsetFetchResponse() {
  OffsetFetchResponse resp;
  resp.throttle_time_ms = 4;
  OffsetFetchResponse::Partition committed{0, 1000, 5, std::string("meta"), 0};
  OffsetFetchResponse::Partition none{3, -1, -1, std::nullopt, 0};
  OffsetFetchResponse::Partition unstable{1, -1, -1, std::string(), 88};
  resp.topics = {{"orders", {committed, none}}, {"audit", {unstable}}};
  resp.error_code = 16;
  resp.groups = {{"orders-app", {{"orders", {committed, none}}}, 0}, {"gone", {}, 69}};
  return resp;
}

OffsetFetchResponse OffsetFetchResponseAt(OffsetFetchResponse resp, int16_t version) {
  if (version < 3) resp.throttle_time_ms = 0;
  if (version < 8) {
    resp.groups.clear();
    if (version < 2) resp.error_code = 0;
    if (version < 5) {
      for (auto& t : resp.topics) {
        for (auto& p : t.partitions) p.committed_leader_epoch = -1;
      }
    }
  } else {
    resp.topics.clear();
    resp.error_code = 0;
  }
  return resp;
}

TEST(KafkaOffsetFetch, ResponsesRoundTripInEveryVersion) {
  OffsetFetchResponse resp = SampleOffsetFetchResponse();
  for (int16_t v = 0; v <= 9; ++v) {
    ExpectRoundTrip(WriteOffsetFetchResponse, ReadOffsetFetchResponse, resp, OffsetFetchResponseAt(resp, v), v);
  }
}

TEST(KafkaOffsetFetch, NullTopicsMeanEveryTopicFromV2) {
  OffsetFetchRequest all;
  all.group_id = "g";
  all.topics.reset();
  // v2: a null array; v0 and v1 cannot say "every topic", so the writer sends an empty one.
  EXPECT_EQ(Encode(all, 2, WriteOffsetFetchRequest), HandBytes().Str("g").Array(-1).str());
  EXPECT_EQ(Encode(all, 1, WriteOffsetFetchRequest), HandBytes().Str("g").Array(0).str());
  // A null array in v1 is malformed.
  std::string v1_null = HandBytes().Str("g").Array(-1).str();
  Reader r(v1_null);
  auto refused = ReadOffsetFetchRequest(r, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("may not be null"), std::string::npos) << refused.status();
  // Empty stays apart from null.
  auto empty = DecodeWhole(HandBytes().Str("g").Array(0).str(), 3, ReadOffsetFetchRequest);
  ASSERT_TRUE(empty.ok());
  ASSERT_TRUE(empty->topics.has_value());
  EXPECT_TRUE(empty->topics->empty());
}

TEST(KafkaOffsetFetch, RequestBytesMatchTheProtocolLayout) {
  OffsetFetchRequest req;
  req.group_id = "g";
  req.topics = FetchTopics{{"t", {0, 2}}};
  // v1: group id, topics (name, partition indexes).
  ExpectLayout(WriteOffsetFetchRequest, ReadOffsetFetchRequest, req,
               HandBytes().Str("g").Array(1).Str("t").Array(2).I32(0).I32(2).str(), 1);
  // v6: compact.
  ExpectLayout(WriteOffsetFetchRequest, ReadOffsetFetchRequest, req,
               HandBytes().CStr("g").CArray(1).CStr("t").CArray(2).I32(0).I32(2).NoTags().NoTags().str(), 6);
  // v7: require_stable after the topics (null here).
  req.topics.reset();
  req.require_stable = true;
  ExpectLayout(WriteOffsetFetchRequest, ReadOffsetFetchRequest, req,
               HandBytes().CStr("g").CNull().Bool(true).NoTags().str(), 7);
  // v8: groups (id, topics), then require_stable.
  OffsetFetchRequest batch;
  OffsetFetchRequest::Group g;
  g.group_id = "g";
  g.topics = FetchTopics{{"t", {1}}};
  batch.groups = {g};
  ExpectLayout(WriteOffsetFetchRequest, ReadOffsetFetchRequest, batch,
               HandBytes().CArray(1).CStr("g").CArray(1).CStr("t").CArray(1).I32(1).NoTags().NoTags().Bool(false).NoTags().str(),
               8);
  // v9: each group's member id and epoch after its id.
  batch.groups[0].member_id = "m";
  batch.groups[0].member_epoch = 3;
  batch.groups[0].topics.reset();
  ExpectLayout(WriteOffsetFetchRequest, ReadOffsetFetchRequest, batch,
               HandBytes().CArray(1).CStr("g").CStr("m").I32(3).CNull().NoTags().Bool(false).NoTags().str(), 9);
}

TEST(KafkaOffsetFetch, ResponseBytesMatchTheProtocolLayout) {
  OffsetFetchResponse resp;
  resp.topics = {{"t", {{0, 100, -1, std::string(""), 0}}}};
  // v0: topics (name, partitions (index, offset, metadata, error)).
  ExpectLayout(WriteOffsetFetchResponse, ReadOffsetFetchResponse, resp,
               HandBytes().Array(1).Str("t").Array(1).I32(0).I64(100).Str("").I16(0).str(), 0);
  // v2: the top-level error code after the topics.
  resp.error_code = 14;  // COORDINATOR_LOAD_IN_PROGRESS
  ExpectLayout(WriteOffsetFetchResponse, ReadOffsetFetchResponse, resp,
               HandBytes().Array(1).Str("t").Array(1).I32(0).I64(100).Str("").I16(0).I16(14).str(), 2);
  // v5: throttle first (v3+); the leader epoch after the offset.
  resp.topics[0].partitions[0].committed_leader_epoch = 6;
  ExpectLayout(WriteOffsetFetchResponse, ReadOffsetFetchResponse, resp,
               HandBytes().I32(0).Array(1).Str("t").Array(1).I32(0).I64(100).I32(6).Str("").I16(0).I16(14).str(), 5);
  // v7: compact, null metadata.
  resp.topics[0].partitions[0].metadata.reset();
  ExpectLayout(WriteOffsetFetchResponse, ReadOffsetFetchResponse, resp,
               HandBytes()
                   .I32(0).CArray(1).CStr("t").CArray(1).I32(0).I64(100).I32(6).CNull().I16(0).NoTags().NoTags()
                   .I16(14).NoTags()
                   .str(),
               7);
  // v8: groups (id, topics, error code).
  OffsetFetchResponse batch;
  batch.groups = {{"g", {{"t", {{0, 100, 6, std::nullopt, 0}}}}, 0}, {"x", {}, 69}};
  ExpectLayout(WriteOffsetFetchResponse, ReadOffsetFetchResponse, batch,
               HandBytes()
                   .I32(0).CArray(2)
                   .CStr("g").CArray(1).CStr("t").CArray(1).I32(0).I64(100).I32(6).CNull().I16(0).NoTags().NoTags()
                   .I16(0).NoTags()
                   .CStr("x").CArray(0).I16(69).NoTags()
                   .NoTags()
                   .str(),
               8);
}

// ---- OffsetDelete ----

TEST(KafkaOffsetDelete, RequestsAndResponsesRoundTripAndMatchTheProtocolLayout) {
  OffsetDeleteRequest req{"g", {{"t", {{0}, {2}}}, {"u", {}}}};
  ExpectRoundTrip(WriteOffsetDeleteRequest, ReadOffsetDeleteRequest, req, req, 0);
  // Group id, topics (name, partitions (index)); classic encoding.
  ExpectLayout(WriteOffsetDeleteRequest, ReadOffsetDeleteRequest, req,
               HandBytes().Str("g").Array(2).Str("t").Array(2).I32(0).I32(2).Str("u").Array(0).str(), 0);
  OffsetDeleteResponse resp{0, 5, {{"t", {{0, 0}, {2, 86}}}}};  // GROUP_SUBSCRIBED_TO_TOPIC
  ExpectRoundTrip(WriteOffsetDeleteResponse, ReadOffsetDeleteResponse, resp, resp, 0);
  // The error code first, then the throttle time, then the topics.
  ExpectLayout(WriteOffsetDeleteResponse, ReadOffsetDeleteResponse, resp,
               HandBytes().I16(0).I32(5).Array(1).Str("t").Array(2).I32(0).I16(0).I32(2).I16(86).str(), 0);
}

// ---- The consumer protocol ----

// Every proper prefix of `bytes` is refused by `read`.
template <typename T>
void ExpectTruncationsRefused(const std::string& bytes, absl::StatusOr<T> (*read)(absl::string_view)) {
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(read(absl::string_view(bytes).substr(0, cut)).ok()) << "cut at " << cut << " of " << bytes.size();
  }
}

ConsumerSubscription SampleSubscription() {
  ConsumerSubscription sub;
  sub.topics = {"orders", "audit"};
  sub.user_data = std::string("\x00\x01ud", 4);
  sub.owned_partitions = {{"orders", {0, 2}}, {"audit", {}}};
  sub.generation_id = 12;
  sub.rack_id = "rack-a";
  return sub;
}

ConsumerSubscription SubscriptionAt(ConsumerSubscription sub, int16_t version) {
  if (version < 1) sub.owned_partitions.clear();
  if (version < 2) sub.generation_id = -1;
  if (version < 3) sub.rack_id.reset();
  return sub;
}

TEST(KafkaConsumerProtocol, AJavaClientsV0SubscriptionReads) {
  // int16 version 0, topics (int32 count, int16-length strings), user data (int32 -1: null).
  std::string bytes = HandBytes().I16(0).Array(2).Str("orders").Str("audit").NullBytes().str();
  auto sub = ReadConsumerSubscription(bytes);
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_EQ(sub->topics, (std::vector<std::string>{"orders", "audit"}));
  EXPECT_EQ(sub->user_data, std::nullopt);
  // The fields v0 lacks are at the schema's defaults.
  EXPECT_TRUE(sub->owned_partitions.empty());
  EXPECT_EQ(sub->generation_id, -1);
  EXPECT_EQ(sub->rack_id, std::nullopt);
  EXPECT_EQ(absl::CHexEscape(WriteConsumerSubscription(*sub, 0)), absl::CHexEscape(bytes));
  ExpectTruncationsRefused(bytes, ReadConsumerSubscription);
  // With user data.
  std::string with_data = HandBytes().I16(0).Array(1).Str("t").Bytes("abc").str();
  auto d = ReadConsumerSubscription(with_data);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->user_data, std::optional<std::string>("abc"));
  EXPECT_EQ(WriteConsumerSubscription(*d, 0), with_data);
}

TEST(KafkaConsumerProtocol, AJavaClientsV0AssignmentReads) {
  // int16 version 0, assigned partitions (topic, int32 array of partitions), user data.
  std::string bytes =
      HandBytes().I16(0).Array(2).Str("orders").Array(2).I32(0).I32(2).Str("audit").Array(1).I32(1).NullBytes().str();
  auto assignment = ReadConsumerAssignment(bytes);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  ConsumerAssignment expected{{{"orders", {0, 2}}, {"audit", {1}}}, std::nullopt};
  EXPECT_TRUE(*assignment == expected);
  EXPECT_EQ(absl::CHexEscape(WriteConsumerAssignment(expected, 0)), absl::CHexEscape(bytes));
  ExpectTruncationsRefused(bytes, ReadConsumerAssignment);
}

TEST(KafkaConsumerProtocol, SubscriptionsAndAssignmentsRoundTripInEveryVersion) {
  ConsumerSubscription sub = SampleSubscription();
  ConsumerAssignment assignment{{{"orders", {0, 2}}, {"audit", {}}}, std::string("ud")};
  for (int16_t v = 0; v <= kConsumerSubscriptionMaxVersion; ++v) {
    SCOPED_TRACE(v);
    std::string bytes = WriteConsumerSubscription(sub, v);
    auto back = ReadConsumerSubscription(bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == SubscriptionAt(sub, v));
    EXPECT_EQ(WriteConsumerSubscription(*back, v), bytes);
    ExpectTruncationsRefused(bytes, ReadConsumerSubscription);
  }
  for (int16_t v = 0; v <= kConsumerAssignmentMaxVersion; ++v) {
    SCOPED_TRACE(v);
    std::string bytes = WriteConsumerAssignment(assignment, v);
    EXPECT_EQ(bytes.substr(0, 2), HandBytes().I16(v).str());  // the version first
    auto back = ReadConsumerAssignment(bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == assignment);
    EXPECT_EQ(WriteConsumerAssignment(*back, v), bytes);
    ExpectTruncationsRefused(bytes, ReadConsumerAssignment);
  }
}

TEST(KafkaConsumerProtocol, SubscriptionBytesMatchEachVersionsLayout) {
  ConsumerSubscription sub;
  sub.topics = {"t"};
  sub.owned_partitions = {{"t", {1}}};
  sub.generation_id = 4;
  sub.rack_id = "r";
  // v1: owned partitions after the user data.
  EXPECT_EQ(WriteConsumerSubscription(sub, 1),
            HandBytes().I16(1).Array(1).Str("t").NullBytes().Array(1).Str("t").Array(1).I32(1).str());
  // v2: the generation after them.
  EXPECT_EQ(WriteConsumerSubscription(sub, 2),
            HandBytes().I16(2).Array(1).Str("t").NullBytes().Array(1).Str("t").Array(1).I32(1).I32(4).str());
  // v3: the rack (a nullable string) last.
  std::string v3 = HandBytes().I16(3).Array(1).Str("t").NullBytes().Array(1).Str("t").Array(1).I32(1).I32(4).Str("r").str();
  EXPECT_EQ(WriteConsumerSubscription(sub, 3), v3);
  auto back = ReadConsumerSubscription(v3);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == sub);
}

TEST(KafkaConsumerProtocol, AFutureVersionReadsItsKnownFieldsAndIgnoresTheRest) {
  // v4 (unknown here): the v3 fields, then whatever v4 added.
  std::string sub_bytes = HandBytes()
                              .I16(4).Array(1).Str("t").Bytes("u").Array(0).I32(9).NullStr()
                              .Raw("future fields")
                              .str();
  auto sub = ReadConsumerSubscription(sub_bytes);
  ASSERT_TRUE(sub.ok()) << sub.status();
  EXPECT_EQ(sub->topics, std::vector<std::string>{"t"});
  EXPECT_EQ(sub->user_data, std::optional<std::string>("u"));
  EXPECT_EQ(sub->generation_id, 9);
  EXPECT_EQ(sub->rack_id, std::nullopt);
  std::string assignment_bytes = HandBytes().I16(7).Array(1).Str("t").Array(1).I32(3).NullBytes().Raw("\x01\x02").str();
  auto assignment = ReadConsumerAssignment(assignment_bytes);
  ASSERT_TRUE(assignment.ok()) << assignment.status();
  ASSERT_EQ(assignment->assigned_partitions.size(), 1u);
  EXPECT_EQ(assignment->assigned_partitions[0].partitions, std::vector<int32_t>{3});
  // A future version still needs the known fields whole.
  ExpectTruncationsRefused(HandBytes().I16(4).Array(1).Str("t").Bytes("u").Array(0).I32(9).NullStr().str(),
                           ReadConsumerSubscription);
}

TEST(KafkaConsumerProtocol, ANegativeVersionIsRefused) {
  EXPECT_FALSE(ReadConsumerSubscription(HandBytes().I16(-1).Array(0).NullBytes().str()).ok());
  EXPECT_FALSE(ReadConsumerAssignment(HandBytes().I16(-1).Array(0).NullBytes().str()).ok());
}

// The bytes travel inside JoinGroup and SyncGroup: they come out as they went in.
TEST(KafkaConsumerProtocol, RidesInJoinGroupMetadataAndSyncGroupAssignments) {
  ConsumerSubscription sub = SampleSubscription();
  JoinGroupRequest join;
  join.group_id = "orders-app";
  join.protocol_type = std::string(kConsumerProtocolType);
  join.protocols = {{"range", WriteConsumerSubscription(sub, 3)}};
  auto joined = DecodeWhole(Encode(join, 9, WriteJoinGroupRequest), 9, ReadJoinGroupRequest);
  ASSERT_TRUE(joined.ok());
  auto read_sub = ReadConsumerSubscription(joined->protocols.at(0).metadata);
  ASSERT_TRUE(read_sub.ok());
  EXPECT_TRUE(*read_sub == sub);
  ConsumerAssignment assignment{{{"orders", {0, 1, 2}}}, std::nullopt};
  SyncGroupResponse sync;
  sync.assignment = WriteConsumerAssignment(assignment, 0);
  auto synced = DecodeWhole(Encode(sync, 5, WriteSyncGroupResponse), 5, ReadSyncGroupResponse);
  ASSERT_TRUE(synced.ok());
  auto read_assignment = ReadConsumerAssignment(synced->assignment);
  ASSERT_TRUE(read_assignment.ok());
  EXPECT_TRUE(*read_assignment == assignment);
}

}  // namespace
}  // namespace strata::proto::kafka
