// KIP-848's codecs: ConsumerGroupHeartbeat v0-v1 and ConsumerGroupDescribe v0-v1.
// Requests and responses round-trip in both versions (v0 without the regex, v0 without
// the member type), null and present nullable fields alike; hand-built bytes pin the
// layout (the nullable Assignment struct's marker byte, the non-nullable Assignment
// struct inline); every truncation is refused; the api table knows the keys.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "proto/kafka/api.h"
#include "proto/kafka/consumer_group_describe.h"
#include "proto/kafka/consumer_group_heartbeat.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;

const std::string kTopicA(16, 'a');
const std::string kTopicB(16, 'b');

TEST(KafkaConsumerGroupApis, KeysNamesAndFlexibleVersionsAreKafkas) {
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kConsumerGroupHeartbeat), 68);
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kConsumerGroupDescribe), 69);
  EXPECT_EQ(ApiName(68), "ConsumerGroupHeartbeat");
  EXPECT_EQ(ApiName(69), "ConsumerGroupDescribe");
  EXPECT_EQ(FirstFlexibleVersion(68), 0);
  EXPECT_EQ(FirstFlexibleVersion(69), 0);
}

ConsumerGroupHeartbeatRequest SampleJoin() {
  ConsumerGroupHeartbeatRequest req;
  req.group_id = "orders-app";
  req.member_id = "m-1";
  req.member_epoch = 0;
  req.instance_id = "i-1";
  req.rack_id = "rack-a";
  req.rebalance_timeout_ms = 300000;
  req.subscribed_topic_names = std::vector<std::string>{"orders", "audit"};
  req.subscribed_topic_regex = "orders-.*";
  req.server_assignor = "uniform";
  req.topic_partitions = std::vector<TopicIdPartitions>{};
  return req;
}

TEST(KafkaConsumerGroupHeartbeat, RequestsAndResponsesRoundTripInBothVersions) {
  ConsumerGroupHeartbeatRequest join = SampleJoin();
  ConsumerGroupHeartbeatRequest beat;  // every nullable field null: nothing changed
  beat.group_id = "orders-app";
  beat.member_id = "m-1";
  beat.member_epoch = 7;
  beat.topic_partitions = std::vector<TopicIdPartitions>{{kTopicA, {0, 2}}, {kTopicB, {1}}};
  ConsumerGroupHeartbeatResponse answer;
  answer.member_id = "m-1";
  answer.member_epoch = 8;
  answer.heartbeat_interval_ms = 5000;
  answer.assignment = std::vector<TopicIdPartitions>{{kTopicA, {0, 1, 2}}};
  ConsumerGroupHeartbeatResponse fenced;
  fenced.error_code = 110;
  fenced.error_message = "fenced";
  for (int16_t v = 0; v <= 1; ++v) {
    ConsumerGroupHeartbeatRequest expected = join;
    if (v < 1) expected.subscribed_topic_regex.reset();
    ExpectRoundTrip(WriteConsumerGroupHeartbeatRequest, ReadConsumerGroupHeartbeatRequest, join, expected, v);
    ExpectRoundTrip(WriteConsumerGroupHeartbeatRequest, ReadConsumerGroupHeartbeatRequest, beat, beat, v);
    ExpectRoundTrip(WriteConsumerGroupHeartbeatResponse, ReadConsumerGroupHeartbeatResponse, answer, answer, v);
    ExpectRoundTrip(WriteConsumerGroupHeartbeatResponse, ReadConsumerGroupHeartbeatResponse, fenced, fenced, v);
  }
}

TEST(KafkaConsumerGroupHeartbeat, BytesMatchTheProtocolLayout) {
  ConsumerGroupHeartbeatRequest beat;
  beat.group_id = "g";
  beat.member_id = "m";
  beat.member_epoch = 3;
  beat.topic_partitions = std::vector<TopicIdPartitions>{{kTopicA, {4}}};
  // group, member, epoch, instance, rack, rebalance timeout, names, regex (v1), assignor,
  // topic partitions (uuid, partitions, tags), tags.
  ExpectLayout(WriteConsumerGroupHeartbeatRequest, ReadConsumerGroupHeartbeatRequest, beat,
               HandBytes().CStr("g").CStr("m").I32(3).CNull().CNull().I32(-1).CNull().CNull().CNull()
                   .CArray(1).Uuid('a').CArray(1).I32(4).NoTags().NoTags().str(),
               1);
  beat.topic_partitions.reset();
  ExpectLayout(WriteConsumerGroupHeartbeatRequest, ReadConsumerGroupHeartbeatRequest, beat,
               HandBytes().CStr("g").CStr("m").I32(3).CNull().CNull().I32(-1).CNull().CNull().CNull().NoTags().str(), 0);

  ConsumerGroupHeartbeatResponse resp;
  resp.member_id = "m";
  resp.member_epoch = 4;
  resp.heartbeat_interval_ms = 5000;
  ExpectLayout(WriteConsumerGroupHeartbeatResponse, ReadConsumerGroupHeartbeatResponse, resp,
               HandBytes().I32(0).I16(0).CNull().CStr("m").I32(4).I32(5000).I8(-1).NoTags().str(), 1);
  resp.assignment = std::vector<TopicIdPartitions>{{kTopicB, {0}}};
  ExpectLayout(WriteConsumerGroupHeartbeatResponse, ReadConsumerGroupHeartbeatResponse, resp,
               HandBytes().I32(0).I16(0).CNull().CStr("m").I32(4).I32(5000).I8(1)
                   .CArray(1).Uuid('b').CArray(1).I32(0).NoTags().NoTags().NoTags().str(),
               1);
}

ConsumerGroupDescribeResponse SampleDescription() {
  ConsumerGroupDescribeResponse resp;
  resp.throttle_time_ms = 3;
  ConsumerGroupDescribeResponse::Group g;
  g.group_id = "orders-app";
  g.group_state = "Reconciling";
  g.group_epoch = 5;
  g.assignment_epoch = 5;
  g.assignor_name = "uniform";
  ConsumerGroupDescribeResponse::Member m;
  m.member_id = "m-1";
  m.instance_id = "i-1";
  m.member_epoch = 4;
  m.client_id = "c";
  m.client_host = "/127.0.0.1";
  m.subscribed_topic_names = {"orders"};
  m.assignment = {{kTopicA, "orders", {0, 1}}};
  m.target_assignment = {{kTopicA, "orders", {0}}};
  m.member_type = 1;
  g.members.push_back(m);
  resp.groups.push_back(g);
  ConsumerGroupDescribeResponse::Group missing;
  missing.error_code = 69;  // GROUP_ID_NOT_FOUND
  missing.error_message = "no such group";
  missing.group_id = "nope";
  missing.group_state = "Dead";
  resp.groups.push_back(missing);
  return resp;
}

TEST(KafkaConsumerGroupDescribe, RequestsAndResponsesRoundTripInBothVersions) {
  ConsumerGroupDescribeRequest req{{"orders-app", "nope"}, true};
  ConsumerGroupDescribeResponse resp = SampleDescription();
  for (int16_t v = 0; v <= 1; ++v) {
    ExpectRoundTrip(WriteConsumerGroupDescribeRequest, ReadConsumerGroupDescribeRequest, req, req, v);
    ConsumerGroupDescribeResponse expected = resp;
    if (v < 1) expected.groups[0].members[0].member_type = -1;
    ExpectRoundTrip(WriteConsumerGroupDescribeResponse, ReadConsumerGroupDescribeResponse, resp, expected, v);
  }
}

TEST(KafkaConsumerGroupDescribe, BytesMatchTheProtocolLayout) {
  ConsumerGroupDescribeRequest req{{"g"}, false};
  ExpectLayout(WriteConsumerGroupDescribeRequest, ReadConsumerGroupDescribeRequest, req,
               HandBytes().CArray(1).CStr("g").Bool(false).NoTags().str(), 0);
  ConsumerGroupDescribeResponse resp;
  ConsumerGroupDescribeResponse::Group g;
  g.group_id = "g";
  g.group_state = "Stable";
  g.group_epoch = 2;
  g.assignment_epoch = 2;
  g.assignor_name = "range";
  ConsumerGroupDescribeResponse::Member m;
  m.member_id = "m";
  m.member_epoch = 2;
  m.client_id = "c";
  m.client_host = "h";
  m.assignment = {{kTopicA, "t", {1}}};
  m.member_type = 1;
  g.members.push_back(m);
  resp.groups.push_back(g);
  // member: id, instance, rack, epoch, client id, host, names, regex, assignment
  // (topics: uuid, name, partitions, tags; tags), target (no topics; tags), type, tags.
  std::string member = HandBytes().CStr("m").CNull().CNull().I32(2).CStr("c").CStr("h").CArray(0).CNull()
                           .CArray(1).Uuid('a').CStr("t").CArray(1).I32(1).NoTags().NoTags()
                           .CArray(0).NoTags().I8(1).NoTags().str();
  ExpectLayout(WriteConsumerGroupDescribeResponse, ReadConsumerGroupDescribeResponse, resp,
               HandBytes().I32(0).CArray(1).I16(0).CNull().CStr("g").CStr("Stable").I32(2).I32(2).CStr("range")
                   .CArray(1).Raw(member).I32(INT32_MIN).NoTags().NoTags().str(),
               1);
}

}  // namespace
}  // namespace strata::proto::kafka
