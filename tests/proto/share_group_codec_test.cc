// KIP-932's codecs: the api table's share-group keys, ShareGroupHeartbeat v1 (requests
// round-trip with null and present nullable fields; the response is ConsumerGroupHeartbeat's,
// field for field), ShareGroupDescribe v1, ShareFetch and ShareAcknowledge v1-v2 (the v2 fields dropped in v1);
// the share coordinator's state APIs (83-87), each with its own partition fields; the
// offsets admin APIs (90-92);
// hand-built bytes pin the layouts; every truncation is refused.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "proto/kafka/api.h"
#include "proto/kafka/share_fetch.h"
#include "proto/kafka/share_group_describe.h"
#include "proto/kafka/share_group_heartbeat.h"
#include "proto/kafka/share_group_offsets.h"
#include "proto/kafka/share_group_state.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;

TEST(KafkaShareGroupApis, KeysNamesFlexibleVersionsAndThrottleTimesAreKafkas) {
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kShareGroupHeartbeat), 76);
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kShareAcknowledge), 79);
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kInitializeShareGroupState), 83);
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kReadShareGroupStateSummary), 87);
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kDeleteShareGroupOffsets), 92);
  EXPECT_EQ(ApiName(77), "ShareGroupDescribe");
  EXPECT_EQ(ApiName(78), "ShareFetch");
  EXPECT_EQ(ApiName(85), "WriteShareGroupState");
  EXPECT_EQ(ApiName(90), "DescribeShareGroupOffsets");
  for (int16_t key : {76, 77, 78, 79, 83, 84, 85, 86, 87, 90, 91, 92}) {
    EXPECT_EQ(FirstFlexibleVersion(key), 0) << key;
  }
  // The state APIs between brokers carry no throttle time; the client ones lead with it.
  EXPECT_EQ(ThrottleTimeOffset(78, 1), 0u);
  EXPECT_EQ(ThrottleTimeOffset(91, 0), 0u);
  EXPECT_FALSE(ThrottleTimeOffset(85, 0).has_value());
}

TEST(KafkaShareGroupHeartbeat, RequestsRoundTripAndTheBytesMatchTheProtocolLayout) {
  ShareGroupHeartbeatRequest join;
  join.group_id = "queue-app";
  join.member_id = "m-1";
  join.rack_id = "rack-a";
  join.subscribed_topic_names = std::vector<std::string>{"jobs", "retries"};
  ShareGroupHeartbeatRequest beat;  // nothing changed: nulls
  beat.group_id = "queue-app";
  beat.member_id = "m-1";
  beat.member_epoch = 4;
  ExpectRoundTrip(WriteShareGroupHeartbeatRequest, ReadShareGroupHeartbeatRequest, join, join, 1);
  ExpectRoundTrip(WriteShareGroupHeartbeatRequest, ReadShareGroupHeartbeatRequest, beat, beat, 1);
  // group, member, epoch, rack, names, tags.
  ExpectLayout(WriteShareGroupHeartbeatRequest, ReadShareGroupHeartbeatRequest, beat,
               HandBytes().CStr("queue-app").CStr("m-1").I32(4).CNull().CNull().NoTags().str(), 1);
  join.rack_id.reset();
  join.subscribed_topic_names = std::vector<std::string>{"jobs"};
  ExpectLayout(WriteShareGroupHeartbeatRequest, ReadShareGroupHeartbeatRequest, join,
               HandBytes().CStr("queue-app").CStr("m-1").I32(0).CNull().CArray(1).CStr("jobs").NoTags().str(), 1);
}

const std::string kTopic(16, 't');

TEST(KafkaShareGroupDescribe, ResponsesRoundTripAndTheBytesMatchTheProtocolLayout) {
  ShareGroupDescribeRequest req{{"queue-app", "nope"}, true};
  ExpectRoundTrip(WriteShareGroupDescribeRequest, ReadShareGroupDescribeRequest, req, req, 1);
  ShareGroupDescribeResponse resp;
  ShareGroupDescribeResponse::Group g;
  g.group_id = "queue-app";
  g.group_state = "Stable";
  g.group_epoch = 3;
  g.assignment_epoch = 3;
  g.assignor_name = "simple";
  g.members = {{"m-1", "rack-a", 3, "c", "/127.0.0.1", {"jobs"}, {{kTopic, "jobs", {0, 1}}}}};
  g.authorized_operations = 8;
  ShareGroupDescribeResponse::Group missing;
  missing.error_code = 69;
  missing.group_id = "nope";
  missing.group_state = "Dead";
  resp.groups = {g, missing};
  ExpectRoundTrip(WriteShareGroupDescribeResponse, ReadShareGroupDescribeResponse, resp, resp, 1);
  ShareGroupDescribeResponse one;
  one.groups = {{0, std::nullopt, "g", "Empty", 1, 0, "simple", {{"m", std::nullopt, 1, "c", "h", {}, {}}}, -5}};
  // throttle, groups: error, message, id, state, epochs, assignor, members (id, rack,
  // epoch, client id, host, names, assignment (topics, tags), tags), operations, tags.
  ExpectLayout(WriteShareGroupDescribeResponse, ReadShareGroupDescribeResponse, one,
               HandBytes().I32(0).CArray(1).I16(0).CNull().CStr("g").CStr("Empty").I32(1).I32(0).CStr("simple")
                   .CArray(1).CStr("m").CNull().I32(1).CStr("c").CStr("h").CArray(0).CArray(0).NoTags().NoTags()
                   .I32(-5).NoTags().NoTags().str(),
               1);
}

std::vector<ShareTopicAcknowledgements> SampleAcknowledgements() {
  return {{kTopic, {{0, {{100, 109, {1}}, {110, 112, {1, 2, 3}}}}, {3, {}}}}};
}

TEST(KafkaShareFetch, RequestsAndResponsesRoundTripInBothVersions) {
  ShareFetchRequest req;
  req.group_id = "queue-app";
  req.member_id = "m-1";
  req.share_session_epoch = 3;
  req.max_wait_ms = 500;
  req.min_bytes = 1;
  req.max_bytes = 52428800;
  req.max_records = 500;
  req.batch_size = 100;
  req.share_acquire_mode = 1;
  req.is_renew_ack = true;
  req.topics = SampleAcknowledgements();
  req.forgotten_topics = {{kTopic, {5, 6}}};
  ShareFetchResponse resp;
  resp.acquisition_lock_timeout_ms = 30000;
  ShareFetchResponse::Partition p;
  p.partition_index = 0;
  p.current_leader = {4, 7};
  p.records = std::string("batch bytes");
  p.acquired_records = {{113, 150, 1}, {151, 151, 3}};
  ShareFetchResponse::Partition moved;
  moved.partition_index = 3;
  moved.error_code = 6;  // NOT_LEADER_OR_FOLLOWER
  moved.acknowledge_error_code = 121;
  moved.acknowledge_error_message = "not acquired";
  resp.responses = {{kTopic, {p, moved}}};
  resp.node_endpoints = {{5, "127.0.0.1", 9093, std::nullopt}};
  ShareAcknowledgeRequest ack{"queue-app", "m-1", 4, true, SampleAcknowledgements()};
  ShareAcknowledgeResponse acked;
  acked.acquisition_lock_timeout_ms = 30000;
  acked.responses = {{kTopic, {{0, 0, std::nullopt, {4, 7}}, {3, 121, "not acquired", {-1, -1}}}}};
  for (int16_t v = 1; v <= 2; ++v) {
    ShareFetchRequest want = req;
    ShareAcknowledgeRequest want_ack = ack;
    ShareAcknowledgeResponse want_acked = acked;
    if (v < 2) {
      want.share_acquire_mode = 0;
      want.is_renew_ack = false;
      want_ack.is_renew_ack = false;
      want_acked.acquisition_lock_timeout_ms = 0;
    }
    ExpectRoundTrip(WriteShareFetchRequest, ReadShareFetchRequest, req, want, v);
    ExpectRoundTrip(WriteShareFetchResponse, ReadShareFetchResponse, resp, resp, v);
    ExpectRoundTrip(WriteShareAcknowledgeRequest, ReadShareAcknowledgeRequest, ack, want_ack, v);
    ExpectRoundTrip(WriteShareAcknowledgeResponse, ReadShareAcknowledgeResponse, acked, want_acked, v);
  }
}

TEST(KafkaShareFetch, BytesMatchTheProtocolLayout) {
  ShareFetchRequest req;
  req.member_id = "m";
  req.share_session_epoch = 1;
  req.max_records = 10;
  req.topics = {{kTopic, {{2, {{5, 5, {1}}}}}}};
  // group (null), member, epoch, max wait, min bytes, max bytes, max records, batch size,
  // [v2: acquire mode, renew], topics (uuid; partition, batches (first, last, types)),
  // forgotten topics, tags.
  HandBytes head;
  head.CNull().CStr("m").I32(1).I32(0).I32(0).I32(0x7fffffff).I32(10).I32(0);
  auto tail = [](HandBytes b) {
    return b.CArray(1).Uuid('t').CArray(1).I32(2).CArray(1).I64(5).I64(5).CArray(1).I8(1).NoTags().NoTags().NoTags()
        .CArray(0).NoTags().str();
  };
  ExpectLayout(WriteShareFetchRequest, ReadShareFetchRequest, req, tail(head), 1);
  ExpectLayout(WriteShareFetchRequest, ReadShareFetchRequest, req, tail(HandBytes(head).I8(0).Bool(false)), 2);

  ShareFetchResponse resp;
  resp.acquisition_lock_timeout_ms = 30000;
  ShareFetchResponse::Partition p;
  p.partition_index = 2;
  p.current_leader = {1, 0};
  p.records = std::string("rb");
  p.acquired_records = {{5, 6, 1}};
  resp.responses = {{kTopic, {p}}};
  // throttle, error, message, lock timeout, responses (uuid; partition, error, message,
  // ack error, ack message, leader (id, epoch, tags), records, acquired (first, last,
  // count, tags), tags; tags), node endpoints, tags.
  ExpectLayout(WriteShareFetchResponse, ReadShareFetchResponse, resp,
               HandBytes().I32(0).I16(0).CNull().I32(30000).CArray(1).Uuid('t').CArray(1).I32(2).I16(0).CNull()
                   .I16(0).CNull().I32(1).I32(0).NoTags().CBytes("rb").CArray(1).I64(5).I64(6).I16(1).NoTags()
                   .NoTags().NoTags().CArray(0).NoTags().str(),
               1);
}


// One state API's codec as the plain functions codec_checks.h takes.
template <int16_t kApi>
void WriteStateRequest(const ShareGroupStateRequest& x, int16_t v, Writer& w) { WriteShareGroupStateRequest(kApi, x, v, w); }
template <int16_t kApi>
absl::StatusOr<ShareGroupStateRequest> ReadStateRequest(Reader& r, int16_t v) { return ReadShareGroupStateRequest(kApi, r, v); }
template <int16_t kApi>
void WriteStateResponse(const ShareGroupStateResponse& x, int16_t v, Writer& w) { WriteShareGroupStateResponse(kApi, x, v, w); }
template <int16_t kApi>
absl::StatusOr<ShareGroupStateResponse> ReadStateResponse(Reader& r, int16_t v) { return ReadShareGroupStateResponse(kApi, r, v); }

template <int16_t kApi>
void ExpectStateRoundTrip(const ShareGroupStateRequest& req, const ShareGroupStateRequest& want_req,
                          const ShareGroupStateResponse& resp, const ShareGroupStateResponse& want_resp, int16_t v) {
  SCOPED_TRACE(::testing::Message() << "api " << kApi);
  ExpectRoundTrip(WriteStateRequest<kApi>, ReadStateRequest<kApi>, req, want_req, v);
  ExpectRoundTrip(WriteStateResponse<kApi>, ReadStateResponse<kApi>, resp, want_resp, v);
}

TEST(KafkaShareGroupState, EachApiCarriesItsOwnPartitionFields) {
  ShareStatePartition full;
  full.partition = 2;
  full.error_code = 124;
  full.error_message = "fenced";
  full.state_epoch = 3;
  full.leader_epoch = 9;
  full.start_offset = 500;
  full.delivery_complete_count = 12;
  full.state_batches = {{500, 509, 0, 2}, {510, 510, 4, 5}};
  ShareGroupStateRequest req{"queue-app", {{kTopic, {full}}}};
  ShareGroupStateResponse resp{{{kTopic, {full}}}};
  // What each API keeps of a partition (the rest is its defaults after the trip).
  auto keep = [&](bool error, bool state_epoch, bool leader_epoch, bool start, bool complete, bool batches) {
    ShareStatePartition p;
    p.partition = full.partition;
    if (error) {
      p.error_code = full.error_code;
      p.error_message = full.error_message;
    }
    if (state_epoch) p.state_epoch = full.state_epoch;
    if (leader_epoch) p.leader_epoch = full.leader_epoch;
    if (start) p.start_offset = full.start_offset;
    if (complete) p.delivery_complete_count = full.delivery_complete_count;
    if (batches) p.state_batches = full.state_batches;
    return p;
  };
  auto as_req = [&](ShareStatePartition p) { return ShareGroupStateRequest{"queue-app", {{kTopic, {p}}}}; };
  auto as_resp = [&](ShareStatePartition p) { return ShareGroupStateResponse{{{kTopic, {p}}}}; };
  ExpectStateRoundTrip<83>(req, as_req(keep(false, true, false, true, false, false)), resp,
                       as_resp(keep(true, false, false, false, false, false)), 0);
  ExpectStateRoundTrip<84>(req, as_req(keep(false, false, true, false, false, false)), resp,
                       as_resp(keep(true, true, false, true, false, true)), 0);
  ExpectStateRoundTrip<85>(req, as_req(keep(false, true, true, true, false, true)), resp,
                       as_resp(keep(true, false, false, false, false, false)), 0);
  ExpectStateRoundTrip<85>(req, as_req(keep(false, true, true, true, true, true)), resp,
                       as_resp(keep(true, false, false, false, false, false)), 1);
  ExpectStateRoundTrip<86>(req, as_req(keep(false, false, false, false, false, false)), resp,
                       as_resp(keep(true, false, false, false, false, false)), 0);
  ExpectStateRoundTrip<87>(req, as_req(keep(false, false, true, false, false, false)), resp,
                       as_resp(keep(true, true, true, true, false, false)), 0);
  ExpectStateRoundTrip<87>(req, as_req(keep(false, false, true, false, false, false)), resp,
                       as_resp(keep(true, true, true, true, true, false)), 1);

  // WriteShareGroupState v1: group, topics (uuid; partition, state epoch, leader epoch,
  // start offset, delivery complete count, batches (first, last, state, count, tags), tags;
  // tags), tags.
  ShareStatePartition one;
  one.partition = 0;
  one.state_epoch = 1;
  one.leader_epoch = 2;
  one.start_offset = 7;
  one.state_batches = {{7, 8, 2, 1}};
  std::string bytes = HandBytes().CStr("g").CArray(1).Uuid('t').CArray(1).I32(0).I32(1).I32(2).I64(7).I32(-1)
                          .CArray(1).I64(7).I64(8).I8(2).I16(1).NoTags().NoTags().NoTags().NoTags().str();
  std::string written;
  Writer w(&written);
  WriteShareGroupStateRequest(85, ShareGroupStateRequest{"g", {{kTopic, {one}}}}, 1, w);
  EXPECT_EQ(written, bytes);
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Reader r(absl::string_view(bytes).substr(0, cut));
    EXPECT_FALSE(ReadShareGroupStateRequest(85, r, 1).ok()) << "truncated at " << cut;
  }
  Reader other(bytes);
  EXPECT_FALSE(ReadShareGroupStateRequest(78, other, 0).ok()) << "ShareFetch is not a state API";

  // ReadShareGroupStateSummary v1's result: partition, error, message, state epoch, leader
  // epoch, start offset, delivery complete count, tags; and ReadShareGroupState v0's:
  // partition, error, message, state epoch, start offset, batches, tags.
  ShareStatePartition summary;
  summary.partition = 4;
  summary.state_epoch = 1;
  summary.leader_epoch = 2;
  summary.start_offset = 3;
  summary.delivery_complete_count = 5;
  ExpectLayout(WriteStateResponse<87>, ReadStateResponse<87>, ShareGroupStateResponse{{{kTopic, {summary}}}},
               HandBytes().CArray(1).Uuid('t').CArray(1).I32(4).I16(0).CNull().I32(1).I32(2).I64(3).I32(5).NoTags()
                   .NoTags().NoTags().str(),
               1);
  ShareStatePartition read = summary;
  read.leader_epoch = -1;
  read.delivery_complete_count = -1;
  ExpectLayout(WriteStateResponse<84>, ReadStateResponse<84>, ShareGroupStateResponse{{{kTopic, {read}}}},
               HandBytes().CArray(1).Uuid('t').CArray(1).I32(4).I16(0).CNull().I32(1).I64(3).CArray(0).NoTags()
                   .NoTags().NoTags().str(),
               0);
}

TEST(KafkaShareGroupOffsets, DescribeAlterAndDeleteRoundTripInTheProtocolLayout) {
  DescribeShareGroupOffsetsRequest describe{{{"queue-app", std::vector<DescribeShareGroupOffsetsRequest::Topic>{{"jobs", {0, 1}}}},
                                             {"all", std::nullopt}}};
  DescribeShareGroupOffsetsResponse described;
  described.groups = {{"queue-app", {{"jobs", kTopic, {{0, 120, 3, 40, 0, std::nullopt}, {1, -1, -1, -1, 3, "none"}}}},
                       0, std::nullopt},
                      {"nope", {}, 69, "no such group"}};
  for (int16_t v = 0; v <= 1; ++v) {
    ExpectRoundTrip(WriteDescribeShareGroupOffsetsRequest, ReadDescribeShareGroupOffsetsRequest, describe, describe, v);
    DescribeShareGroupOffsetsResponse want = described;
    if (v < 1) want.groups[0].topics[0].partitions[0].lag = -1;
    ExpectRoundTrip(WriteDescribeShareGroupOffsetsResponse, ReadDescribeShareGroupOffsetsResponse, described, want, v);
  }
  // groups (id, topics null, tags), tags.
  ExpectLayout(WriteDescribeShareGroupOffsetsRequest, ReadDescribeShareGroupOffsetsRequest,
               DescribeShareGroupOffsetsRequest{{{"g", std::nullopt}}},
               HandBytes().CArray(1).CStr("g").CNull().NoTags().NoTags().str(), 0);
  // throttle; groups: id, topics (name, uuid, partitions (index, start, epoch, lag, error,
  // message, tags), tags), error, message, tags; tags.
  DescribeShareGroupOffsetsResponse one;
  one.groups = {{"g", {{"t", kTopic, {{2, 10, 1, 5, 0, std::nullopt}}}}, 0, std::nullopt}};
  ExpectLayout(WriteDescribeShareGroupOffsetsResponse, ReadDescribeShareGroupOffsetsResponse, one,
               HandBytes().I32(0).CArray(1).CStr("g").CArray(1).CStr("t").Uuid('t').CArray(1).I32(2).I64(10).I32(1)
                   .I64(5).I16(0).CNull().NoTags().NoTags().I16(0).CNull().NoTags().NoTags().str(),
               1);

  AlterShareGroupOffsetsRequest alter{"queue-app", {{"jobs", {{0, 100}, {1, 0}}}}};
  ExpectRoundTrip(WriteAlterShareGroupOffsetsRequest, ReadAlterShareGroupOffsetsRequest, alter, alter, 0);
  ShareGroupOffsetsResponse altered;
  ShareGroupOffsetsTopicResult jobs;
  jobs.topic_name = "jobs";
  jobs.topic_id = kTopic;
  jobs.partitions = {{0, 0, std::nullopt}, {1, 3, "unknown partition"}};
  altered.responses = {jobs};
  ExpectRoundTrip(WriteAlterShareGroupOffsetsResponse, ReadAlterShareGroupOffsetsResponse, altered, altered, 0);

  DeleteShareGroupOffsetsRequest del{"queue-app", {"jobs", "audit"}};
  ExpectRoundTrip(WriteDeleteShareGroupOffsetsRequest, ReadDeleteShareGroupOffsetsRequest, del, del, 0);
  // group, topics (name, tags), tags.
  ExpectLayout(WriteDeleteShareGroupOffsetsRequest, ReadDeleteShareGroupOffsetsRequest,
               DeleteShareGroupOffsetsRequest{"g", {"t"}}, HandBytes().CStr("g").CArray(1).CStr("t").NoTags().NoTags().str(),
               0);
  ShareGroupOffsetsResponse deleted;
  ShareGroupOffsetsTopicResult gone;
  gone.topic_name = "t";
  gone.topic_id = kTopic;
  gone.error_code = 3;
  deleted.responses = {gone};
  // throttle, error, message, responses (name, uuid, error, message, tags), tags.
  ExpectLayout(WriteDeleteShareGroupOffsetsResponse, ReadDeleteShareGroupOffsetsResponse, deleted,
               HandBytes().I32(0).I16(0).CNull().CArray(1).CStr("t").Uuid('t').I16(3).CNull().NoTags().NoTags().str(),
               0);
}

}  // namespace
}  // namespace strata::proto::kafka
