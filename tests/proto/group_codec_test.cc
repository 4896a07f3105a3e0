// The group membership APIs' codecs: FindCoordinator v0-v6, JoinGroup v0-v9, SyncGroup
// v0-v5, Heartbeat v0-v4, LeaveGroup v0-v5, ListGroups v0-v5, DescribeGroups v0-v5 and
// DeleteGroups v0-v2. Requests and responses round-trip in every version (so at each
// boundary: first, where a field comes or goes, first flexible, last) with the fields a
// version lacks at their defaults; both shapes of FindCoordinator (one key / a batch) and
// LeaveGroup (one member / a batch); hand-built byte sequences pin the layout in both
// directions; every truncation is refused; the api table knows the keys.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "proto/kafka/api.h"
#include "proto/kafka/delete_groups.h"
#include "proto/kafka/describe_groups.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/heartbeat.h"
#include "proto/kafka/join_group.h"
#include "proto/kafka/leave_group.h"
#include "proto/kafka/list_groups.h"
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
using OptString = std::optional<std::string>;

// ---- The api table ----

TEST(KafkaGroupApis, KeysNamesAndFlexibleVersionsAreKafkas) {
  struct Api {
    ApiKey key;
    int16_t number;
    const char* name;
    std::optional<int16_t> first_flexible;
  };
  const Api apis[] = {
      {ApiKey::kOffsetCommit, 8, "OffsetCommit", 8},     {ApiKey::kOffsetFetch, 9, "OffsetFetch", 6},
      {ApiKey::kFindCoordinator, 10, "FindCoordinator", 3}, {ApiKey::kJoinGroup, 11, "JoinGroup", 6},
      {ApiKey::kHeartbeat, 12, "Heartbeat", 4},           {ApiKey::kLeaveGroup, 13, "LeaveGroup", 4},
      {ApiKey::kSyncGroup, 14, "SyncGroup", 4},           {ApiKey::kDescribeGroups, 15, "DescribeGroups", 5},
      {ApiKey::kListGroups, 16, "ListGroups", 3},         {ApiKey::kDeleteGroups, 42, "DeleteGroups", 2},
      {ApiKey::kOffsetDelete, 47, "OffsetDelete", std::nullopt},
  };
  for (const Api& api : apis) {
    SCOPED_TRACE(api.name);
    int16_t key = static_cast<int16_t>(api.key);
    EXPECT_EQ(key, api.number);
    EXPECT_EQ(ApiName(key), api.name);
    EXPECT_EQ(FirstFlexibleVersion(key), api.first_flexible);
    if (api.first_flexible) {
      EXPECT_FALSE(IsFlexible(key, *api.first_flexible - 1));
      EXPECT_TRUE(IsFlexible(key, *api.first_flexible));
      EXPECT_EQ(RequestHeaderVersion(key, *api.first_flexible), 2);
      EXPECT_EQ(ResponseHeaderVersion(key, *api.first_flexible), 1);
    }
  }
  // OffsetDelete is never flexible: classic headers in every version.
  int16_t offset_delete = static_cast<int16_t>(ApiKey::kOffsetDelete);
  EXPECT_FALSE(IsFlexible(offset_delete, 0));
  EXPECT_EQ(RequestHeaderVersion(offset_delete, 0), 1);
  EXPECT_EQ(ResponseHeaderVersion(offset_delete, 0), 0);
}

// ---- FindCoordinator ----

FindCoordinatorRequest SampleFindCoordinatorRequest() {
  FindCoordinatorRequest req;
  req.key = "group-a";
  req.key_type = kCoordinatorKeyTypeTransaction;
  req.coordinator_keys = {"group-a", "group-b"};
  return req;
}

// The request as a version carries it: one key to v3, a batch from v4, key_type from v1.
FindCoordinatorRequest FindCoordinatorRequestAt(FindCoordinatorRequest req, int16_t version) {
  if (version < 1) req.key_type = kCoordinatorKeyTypeGroup;
  if (version < 4) {
    req.coordinator_keys.clear();
  } else {
    req.key.clear();
  }
  return req;
}

TEST(KafkaFindCoordinator, RequestsRoundTripInEveryVersion) {
  FindCoordinatorRequest req = SampleFindCoordinatorRequest();
  for (int16_t v = 0; v <= 6; ++v) {
    ExpectRoundTrip(WriteFindCoordinatorRequest, ReadFindCoordinatorRequest, req, FindCoordinatorRequestAt(req, v), v);
  }
}

FindCoordinatorResponse SampleFindCoordinatorResponse() {
  FindCoordinatorResponse resp;
  resp.throttle_time_ms = 7;
  resp.error_code = 15;
  resp.error_message = "loading";
  resp.node_id = 3;
  resp.host = "broker-3";
  resp.port = 9092;
  resp.coordinators = {{"group-a", 3, "broker-3", 9092, 0, std::nullopt},
                       {"group-b", -1, "", -1, 15, std::string("not available")}};
  return resp;
}

FindCoordinatorResponse FindCoordinatorResponseAt(FindCoordinatorResponse resp, int16_t version) {
  if (version < 1) {
    resp.throttle_time_ms = 0;
    resp.error_message.reset();
  }
  if (version < 4) {
    resp.coordinators.clear();
  } else {
    resp.error_code = 0;
    resp.error_message.reset();
    resp.node_id = 0;
    resp.host.clear();
    resp.port = 0;
  }
  return resp;
}

TEST(KafkaFindCoordinator, ResponsesRoundTripInEveryVersion) {
  FindCoordinatorResponse resp = SampleFindCoordinatorResponse();
  for (int16_t v = 0; v <= 6; ++v) {
    ExpectRoundTrip(WriteFindCoordinatorResponse, ReadFindCoordinatorResponse, resp, FindCoordinatorResponseAt(resp, v),
                    v);
  }
}

TEST(KafkaFindCoordinator, RequestBytesMatchTheProtocolLayout) {
  FindCoordinatorRequest one;
  one.key = "g";
  // v0: the key alone.
  ExpectLayout(WriteFindCoordinatorRequest, ReadFindCoordinatorRequest, one, HandBytes().Str("g").str(), 0);
  // v1: the key and key_type.
  ExpectLayout(WriteFindCoordinatorRequest, ReadFindCoordinatorRequest, one, HandBytes().Str("g").I8(0).str(), 1);
  // v3: flexible, compact key.
  ExpectLayout(WriteFindCoordinatorRequest, ReadFindCoordinatorRequest, one, HandBytes().CStr("g").I8(0).NoTags().str(),
               3);
  // v4: key_type first, then the batch of keys.
  FindCoordinatorRequest batch;
  batch.key_type = kCoordinatorKeyTypeTransaction;
  batch.coordinator_keys = {"a", "bc"};
  ExpectLayout(WriteFindCoordinatorRequest, ReadFindCoordinatorRequest, batch,
               HandBytes().I8(1).CArray(2).CStr("a").CStr("bc").NoTags().str(), 4);
}

TEST(KafkaFindCoordinator, ResponseBytesMatchTheProtocolLayout) {
  FindCoordinatorResponse one;
  one.node_id = 2;
  one.host = "h";
  one.port = 9092;
  // v0: error code, node id, host, port.
  ExpectLayout(WriteFindCoordinatorResponse, ReadFindCoordinatorResponse, one,
               HandBytes().I16(0).I32(2).Str("h").I32(9092).str(), 0);
  // v1: throttle time first, the error message after the error code.
  one.throttle_time_ms = 1;
  one.error_message = "m";
  ExpectLayout(WriteFindCoordinatorResponse, ReadFindCoordinatorResponse, one,
               HandBytes().I32(1).I16(0).Str("m").I32(2).Str("h").I32(9092).str(), 1);
  // v3: compact, a null message.
  one.error_message.reset();
  ExpectLayout(WriteFindCoordinatorResponse, ReadFindCoordinatorResponse, one,
               HandBytes().I32(1).I16(0).CNull().I32(2).CStr("h").I32(9092).NoTags().str(), 3);
  // v6: per key the key, node id, host, port, error code and message.
  FindCoordinatorResponse batch;
  batch.coordinators = {{"g", 2, "h", 9092, 0, std::nullopt}, {"x", -1, "", -1, 15, std::string("e")}};
  ExpectLayout(WriteFindCoordinatorResponse, ReadFindCoordinatorResponse, batch,
               HandBytes()
                   .I32(0)
                   .CArray(2)
                   .CStr("g").I32(2).CStr("h").I32(9092).I16(0).CNull().NoTags()
                   .CStr("x").I32(-1).CStr("").I32(-1).I16(15).CStr("e").NoTags()
                   .NoTags()
                   .str(),
               6);
}

// ---- JoinGroup ----

JoinGroupRequest SampleJoinGroupRequest() {
  JoinGroupRequest req;
  req.group_id = "orders-app";
  req.session_timeout_ms = 45000;
  req.rebalance_timeout_ms = 300000;
  req.member_id = "consumer-1-abc";
  req.group_instance_id = "instance-1";
  req.protocol_type = "consumer";
  req.protocols = {{"range", std::string("\x00\x03xyz", 5)}, {"cooperative-sticky", ""}};
  req.reason = "rebalance failed";
  return req;
}

JoinGroupRequest JoinGroupRequestAt(JoinGroupRequest req, int16_t version) {
  if (version < 1) req.rebalance_timeout_ms = -1;
  if (version < 5) req.group_instance_id.reset();
  if (version < 8) req.reason.reset();
  return req;
}

TEST(KafkaJoinGroup, RequestsRoundTripInEveryVersion) {
  JoinGroupRequest req = SampleJoinGroupRequest();
  JoinGroupRequest dynamic = req;  // a first join: no member id, no instance id, no reason
  dynamic.member_id.clear();
  dynamic.group_instance_id.reset();
  dynamic.reason.reset();
  for (int16_t v = 0; v <= 9; ++v) {
    ExpectRoundTrip(WriteJoinGroupRequest, ReadJoinGroupRequest, req, JoinGroupRequestAt(req, v), v);
    ExpectRoundTrip(WriteJoinGroupRequest, ReadJoinGroupRequest, dynamic, JoinGroupRequestAt(dynamic, v), v);
  }
}

JoinGroupResponse SampleJoinGroupResponse() {
  JoinGroupResponse resp;
  resp.throttle_time_ms = 4;
  resp.generation_id = 12;
  resp.protocol_type = "consumer";
  resp.protocol_name = "range";
  resp.leader = "m-1";
  resp.skip_assignment = true;
  resp.member_id = "m-1";
  resp.members = {{"m-1", std::string("i-1"), std::string("meta\x00one", 8)}, {"m-2", std::nullopt, ""}};
  return resp;
}

JoinGroupResponse JoinGroupResponseAt(JoinGroupResponse resp, int16_t version) {
  if (version < 2) resp.throttle_time_ms = 0;
  if (version < 5) {
    for (auto& m : resp.members) m.group_instance_id.reset();
  }
  if (version < 7) {
    resp.protocol_type.reset();
    if (!resp.protocol_name) resp.protocol_name = "";  // not nullable before v7
  }
  if (version < 9) resp.skip_assignment = false;
  return resp;
}

TEST(KafkaJoinGroup, ResponsesRoundTripInEveryVersion) {
  JoinGroupResponse resp = SampleJoinGroupResponse();
  // An error answer: no protocol chosen (null from v7), no members.
  JoinGroupResponse refused;
  refused.error_code = 79;  // MEMBER_ID_REQUIRED
  refused.protocol_name.reset();
  refused.member_id = "assigned-id";
  for (int16_t v = 0; v <= 9; ++v) {
    ExpectRoundTrip(WriteJoinGroupResponse, ReadJoinGroupResponse, resp, JoinGroupResponseAt(resp, v), v);
    ExpectRoundTrip(WriteJoinGroupResponse, ReadJoinGroupResponse, refused, JoinGroupResponseAt(refused, v), v);
  }
}

TEST(KafkaJoinGroup, AbsentFieldsReadAsTheSchemasDefaults) {
  // v0: no rebalance timeout (-1: the session timeout applies), no instance id, no reason.
  std::string v0 = HandBytes().Str("g").I32(10000).Str("").Str("consumer").Array(0).str();
  auto req = DecodeWhole(v0, 0, ReadJoinGroupRequest);
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(req->rebalance_timeout_ms, -1);
  EXPECT_EQ(req->group_instance_id, std::nullopt);
  EXPECT_EQ(req->reason, std::nullopt);
  // A response by default: generation -1, protocol name "" (the non-nullable default).
  JoinGroupResponse resp;
  EXPECT_EQ(resp.generation_id, -1);
  EXPECT_EQ(resp.protocol_name, OptString(""));
  EXPECT_EQ(resp.protocol_type, std::nullopt);
}

TEST(KafkaJoinGroup, RequestBytesMatchTheProtocolLayout) {
  JoinGroupRequest req;
  req.group_id = "g";
  req.session_timeout_ms = 10000;
  req.protocol_type = "consumer";
  req.protocols = {{"range", "md"}};
  // v0: group id, session timeout, member id, protocol type, protocols (name, bytes).
  ExpectLayout(WriteJoinGroupRequest, ReadJoinGroupRequest, req,
               HandBytes().Str("g").I32(10000).Str("").Str("consumer").Array(1).Str("range").Bytes("md").str(), 0);
  // v1: the rebalance timeout after the session timeout.
  req.rebalance_timeout_ms = 60000;
  ExpectLayout(WriteJoinGroupRequest, ReadJoinGroupRequest, req,
               HandBytes().Str("g").I32(10000).I32(60000).Str("").Str("consumer").Array(1).Str("range").Bytes("md").str(),
               1);
  // v5: the instance id after the member id.
  req.member_id = "m";
  req.group_instance_id = "i";
  ExpectLayout(WriteJoinGroupRequest, ReadJoinGroupRequest, req,
               HandBytes()
                   .Str("g").I32(10000).I32(60000).Str("m").Str("i").Str("consumer")
                   .Array(1).Str("range").Bytes("md")
                   .str(),
               5);
  // v6: compact, tagged sections per protocol and at the end.
  ExpectLayout(WriteJoinGroupRequest, ReadJoinGroupRequest, req,
               HandBytes()
                   .CStr("g").I32(10000).I32(60000).CStr("m").CStr("i").CStr("consumer")
                   .CArray(1).CStr("range").CBytes("md").NoTags()
                   .NoTags()
                   .str(),
               6);
  // v8: the reason last (null here).
  ExpectLayout(WriteJoinGroupRequest, ReadJoinGroupRequest, req,
               HandBytes()
                   .CStr("g").I32(10000).I32(60000).CStr("m").CStr("i").CStr("consumer")
                   .CArray(1).CStr("range").CBytes("md").NoTags()
                   .CNull()
                   .NoTags()
                   .str(),
               8);
}

TEST(KafkaJoinGroup, ResponseBytesMatchTheProtocolLayout) {
  JoinGroupResponse resp;
  resp.generation_id = 1;
  resp.protocol_name = "range";
  resp.leader = "m";
  resp.member_id = "m";
  resp.members = {{"m", std::nullopt, "md"}};
  // v0: error, generation, protocol name, leader, member id, members (id, metadata).
  ExpectLayout(WriteJoinGroupResponse, ReadJoinGroupResponse, resp,
               HandBytes().I16(0).I32(1).Str("range").Str("m").Str("m").Array(1).Str("m").Bytes("md").str(), 0);
  // v5: throttle first; each member's instance id (null) after its id.
  ExpectLayout(WriteJoinGroupResponse, ReadJoinGroupResponse, resp,
               HandBytes().I32(0).I16(0).I32(1).Str("range").Str("m").Str("m").Array(1).Str("m").NullStr().Bytes("md").str(),
               5);
  // v9: compact; protocol type before the name; skip_assignment after the leader.
  resp.protocol_type = "consumer";
  resp.skip_assignment = true;
  ExpectLayout(WriteJoinGroupResponse, ReadJoinGroupResponse, resp,
               HandBytes()
                   .I32(0).I16(0).I32(1).CStr("consumer").CStr("range").CStr("m").Bool(true).CStr("m")
                   .CArray(1).CStr("m").CNull().CBytes("md").NoTags()
                   .NoTags()
                   .str(),
               9);
  // v7: a null protocol name is a compact null; before v7 it is written as "".
  JoinGroupResponse none;
  none.protocol_name.reset();
  ExpectLayout(WriteJoinGroupResponse, ReadJoinGroupResponse, none,
               HandBytes().I32(0).I16(0).I32(-1).CNull().CNull().CStr("").CStr("").CArray(0).NoTags().str(), 7);
  EXPECT_EQ(Encode(none, 6, WriteJoinGroupResponse),
            HandBytes().I32(0).I16(0).I32(-1).CStr("").CStr("").CStr("").CArray(0).NoTags().str());
}

TEST(KafkaJoinGroup, NullMetadataBytesAreRefused) {
  // Protocol metadata is bytes, not nullable bytes.
  std::string bytes = HandBytes().Str("g").I32(1).Str("").Str("consumer").Array(1).Str("range").NullBytes().str();
  Reader r(bytes);
  auto req = ReadJoinGroupRequest(r, 0);
  ASSERT_FALSE(req.ok());
  EXPECT_NE(req.status().message().find("is null"), std::string::npos) << req.status();
}

// ---- SyncGroup ----

SyncGroupRequest SampleSyncGroupRequest() {
  SyncGroupRequest req;
  req.group_id = "orders-app";
  req.generation_id = 12;
  req.member_id = "m-1";
  req.group_instance_id = "i-1";
  req.protocol_type = "consumer";
  req.protocol_name = "range";
  req.assignments = {{"m-1", std::string("\x00\x00\x00\x00\x00\x01", 6)}, {"m-2", ""}};
  return req;
}

SyncGroupRequest SyncGroupRequestAt(SyncGroupRequest req, int16_t version) {
  if (version < 3) req.group_instance_id.reset();
  if (version < 5) {
    req.protocol_type.reset();
    req.protocol_name.reset();
  }
  return req;
}

TEST(KafkaSyncGroup, RequestsRoundTripInEveryVersion) {
  SyncGroupRequest req = SampleSyncGroupRequest();
  SyncGroupRequest follower = req;  // a follower sends no assignments
  follower.assignments.clear();
  for (int16_t v = 0; v <= 5; ++v) {
    ExpectRoundTrip(WriteSyncGroupRequest, ReadSyncGroupRequest, req, SyncGroupRequestAt(req, v), v);
    ExpectRoundTrip(WriteSyncGroupRequest, ReadSyncGroupRequest, follower, SyncGroupRequestAt(follower, v), v);
  }
}

TEST(KafkaSyncGroup, ResponsesRoundTripInEveryVersion) {
  SyncGroupResponse resp{9, 0, std::string("consumer"), std::string("range"), std::string("assign\x00ment", 11)};
  for (int16_t v = 0; v <= 5; ++v) {
    SyncGroupResponse expected = resp;
    if (v < 1) expected.throttle_time_ms = 0;
    if (v < 5) {
      expected.protocol_type.reset();
      expected.protocol_name.reset();
    }
    ExpectRoundTrip(WriteSyncGroupResponse, ReadSyncGroupResponse, resp, expected, v);
  }
}

TEST(KafkaSyncGroup, BytesMatchTheProtocolLayout) {
  SyncGroupRequest req;
  req.group_id = "g";
  req.generation_id = 3;
  req.member_id = "m";
  req.assignments = {{"m", "a"}};
  // v0: group, generation, member, assignments (member id, bytes).
  ExpectLayout(WriteSyncGroupRequest, ReadSyncGroupRequest, req,
               HandBytes().Str("g").I32(3).Str("m").Array(1).Str("m").Bytes("a").str(), 0);
  // v3: the instance id after the member id.
  ExpectLayout(WriteSyncGroupRequest, ReadSyncGroupRequest, req,
               HandBytes().Str("g").I32(3).Str("m").NullStr().Array(1).Str("m").Bytes("a").str(), 3);
  // v5: compact; protocol type and name after the instance id.
  req.protocol_type = "consumer";
  ExpectLayout(WriteSyncGroupRequest, ReadSyncGroupRequest, req,
               HandBytes()
                   .CStr("g").I32(3).CStr("m").CNull().CStr("consumer").CNull()
                   .CArray(1).CStr("m").CBytes("a").NoTags()
                   .NoTags()
                   .str(),
               5);
  SyncGroupResponse resp;
  resp.error_code = 27;  // REBALANCE_IN_PROGRESS
  // v0: error code, assignment bytes.
  ExpectLayout(WriteSyncGroupResponse, ReadSyncGroupResponse, resp, HandBytes().I16(27).Bytes("").str(), 0);
  // v1: throttle first.
  ExpectLayout(WriteSyncGroupResponse, ReadSyncGroupResponse, resp, HandBytes().I32(0).I16(27).Bytes("").str(), 1);
  // v5: compact; protocol type and name before the assignment.
  resp.protocol_name = "range";
  ExpectLayout(WriteSyncGroupResponse, ReadSyncGroupResponse, resp,
               HandBytes().I32(0).I16(27).CNull().CStr("range").CBytes("").NoTags().str(), 5);
}

// ---- Heartbeat ----

TEST(KafkaHeartbeat, RequestsAndResponsesRoundTripInEveryVersion) {
  HeartbeatRequest req{"orders-app", 12, "m-1", std::string("i-1")};
  HeartbeatResponse resp{5, 27};
  for (int16_t v = 0; v <= 4; ++v) {
    HeartbeatRequest expected = req;
    if (v < 3) expected.group_instance_id.reset();
    ExpectRoundTrip(WriteHeartbeatRequest, ReadHeartbeatRequest, req, expected, v);
    ExpectRoundTrip(WriteHeartbeatResponse, ReadHeartbeatResponse, resp, HeartbeatResponse{v >= 1 ? 5 : 0, 27}, v);
  }
}

TEST(KafkaHeartbeat, BytesMatchTheProtocolLayout) {
  HeartbeatRequest req{"g", 3, "m", std::nullopt};
  ExpectLayout(WriteHeartbeatRequest, ReadHeartbeatRequest, req, HandBytes().Str("g").I32(3).Str("m").str(), 0);
  ExpectLayout(WriteHeartbeatRequest, ReadHeartbeatRequest, req, HandBytes().Str("g").I32(3).Str("m").NullStr().str(), 3);
  req.group_instance_id = "i";
  ExpectLayout(WriteHeartbeatRequest, ReadHeartbeatRequest, req,
               HandBytes().CStr("g").I32(3).CStr("m").CStr("i").NoTags().str(), 4);
  HeartbeatResponse resp{2, 25};  // UNKNOWN_MEMBER_ID
  ExpectLayout(WriteHeartbeatResponse, ReadHeartbeatResponse, HeartbeatResponse{0, 25}, HandBytes().I16(25).str(), 0);
  ExpectLayout(WriteHeartbeatResponse, ReadHeartbeatResponse, resp, HandBytes().I32(2).I16(25).str(), 1);
  ExpectLayout(WriteHeartbeatResponse, ReadHeartbeatResponse, resp, HandBytes().I32(2).I16(25).NoTags().str(), 4);
}

// ---- LeaveGroup ----

LeaveGroupRequest SampleLeaveGroupRequest() {
  LeaveGroupRequest req;
  req.group_id = "orders-app";
  req.member_id = "m-0";
  req.members = {{"m-1", std::nullopt, std::string("shutting down")}, {"", std::string("i-2"), std::nullopt}};
  return req;
}

// One member to v2, a batch from v3 (each with a reason from v5).
LeaveGroupRequest LeaveGroupRequestAt(LeaveGroupRequest req, int16_t version) {
  if (version < 3) {
    req.members.clear();
  } else {
    req.member_id.clear();
  }
  if (version < 5) {
    for (auto& m : req.members) m.reason.reset();
  }
  return req;
}

TEST(KafkaLeaveGroup, RequestsRoundTripInEveryVersion) {
  LeaveGroupRequest req = SampleLeaveGroupRequest();
  for (int16_t v = 0; v <= 5; ++v) {
    ExpectRoundTrip(WriteLeaveGroupRequest, ReadLeaveGroupRequest, req, LeaveGroupRequestAt(req, v), v);
  }
}

TEST(KafkaLeaveGroup, ResponsesRoundTripInEveryVersion) {
  LeaveGroupResponse resp;
  resp.throttle_time_ms = 3;
  resp.members = {{"m-1", std::nullopt, 0}, {"", std::string("i-2"), 25}};
  for (int16_t v = 0; v <= 5; ++v) {
    LeaveGroupResponse expected = resp;
    if (v < 1) expected.throttle_time_ms = 0;
    if (v < 3) expected.members.clear();
    ExpectRoundTrip(WriteLeaveGroupResponse, ReadLeaveGroupResponse, resp, expected, v);
  }
}

TEST(KafkaLeaveGroup, BytesMatchTheProtocolLayout) {
  LeaveGroupRequest one;
  one.group_id = "g";
  one.member_id = "m";
  // v0-v2: group id, member id.
  ExpectLayout(WriteLeaveGroupRequest, ReadLeaveGroupRequest, one, HandBytes().Str("g").Str("m").str(), 0);
  ExpectLayout(WriteLeaveGroupRequest, ReadLeaveGroupRequest, one, HandBytes().Str("g").Str("m").str(), 2);
  // v3: group id, members (member id, instance id).
  LeaveGroupRequest batch;
  batch.group_id = "g";
  batch.members = {{"m", std::nullopt, std::nullopt}, {"", std::string("i"), std::nullopt}};
  ExpectLayout(WriteLeaveGroupRequest, ReadLeaveGroupRequest, batch,
               HandBytes().Str("g").Array(2).Str("m").NullStr().Str("").Str("i").str(), 3);
  // v5: compact; each member's reason after its instance id.
  batch.members[0].reason = "r";
  ExpectLayout(WriteLeaveGroupRequest, ReadLeaveGroupRequest, batch,
               HandBytes()
                   .CStr("g").CArray(2)
                   .CStr("m").CNull().CStr("r").NoTags()
                   .CStr("").CStr("i").CNull().NoTags()
                   .NoTags()
                   .str(),
               5);
  LeaveGroupResponse resp;
  resp.error_code = 0;
  resp.members = {{"m", std::string("i"), 82}};  // FENCED_INSTANCE_ID
  // v0: the error code alone; v1 the throttle time first.
  ExpectLayout(WriteLeaveGroupResponse, ReadLeaveGroupResponse, LeaveGroupResponse{}, HandBytes().I16(0).str(), 0);
  // v3: throttle, error, members (member id, instance id, error).
  ExpectLayout(WriteLeaveGroupResponse, ReadLeaveGroupResponse, resp,
               HandBytes().I32(0).I16(0).Array(1).Str("m").Str("i").I16(82).str(), 3);
  ExpectLayout(WriteLeaveGroupResponse, ReadLeaveGroupResponse, resp,
               HandBytes().I32(0).I16(0).CArray(1).CStr("m").CStr("i").I16(82).NoTags().NoTags().str(), 4);
}

// ---- ListGroups ----

TEST(KafkaListGroups, RequestsRoundTripInEveryVersion) {
  ListGroupsRequest req{{"Stable", "Empty"}, {"classic"}};
  for (int16_t v = 0; v <= 5; ++v) {
    ListGroupsRequest expected = req;
    if (v < 4) expected.states_filter.clear();
    if (v < 5) expected.types_filter.clear();
    ExpectRoundTrip(WriteListGroupsRequest, ReadListGroupsRequest, req, expected, v);
  }
}

TEST(KafkaListGroups, ResponsesRoundTripInEveryVersion) {
  ListGroupsResponse resp;
  resp.throttle_time_ms = 1;
  resp.groups = {{"orders-app", "consumer", "Stable", "classic"}, {"connect", "connect", "Empty", "classic"}};
  for (int16_t v = 0; v <= 5; ++v) {
    ListGroupsResponse expected = resp;
    if (v < 1) expected.throttle_time_ms = 0;
    for (auto& g : expected.groups) {
      if (v < 4) g.group_state.clear();
      if (v < 5) g.group_type.clear();
    }
    ExpectRoundTrip(WriteListGroupsResponse, ReadListGroupsResponse, resp, expected, v);
  }
}

TEST(KafkaListGroups, BytesMatchTheProtocolLayout) {
  ListGroupsRequest req{{"Stable"}, {"classic"}};
  // v0-v2: an empty body; v3 the tagged section alone.
  ExpectLayout(WriteListGroupsRequest, ReadListGroupsRequest, ListGroupsRequest{}, std::string(), 0);
  ExpectLayout(WriteListGroupsRequest, ReadListGroupsRequest, ListGroupsRequest{}, HandBytes().NoTags().str(), 3);
  ExpectLayout(WriteListGroupsRequest, ReadListGroupsRequest, ListGroupsRequest{{"Stable"}, {}},
               HandBytes().CArray(1).CStr("Stable").NoTags().str(), 4);
  ExpectLayout(WriteListGroupsRequest, ReadListGroupsRequest, req,
               HandBytes().CArray(1).CStr("Stable").CArray(1).CStr("classic").NoTags().str(), 5);
  ListGroupsResponse resp;
  resp.groups = {{"g", "consumer", "", ""}};
  // v0: error code, groups (id, protocol type).
  ExpectLayout(WriteListGroupsResponse, ReadListGroupsResponse, resp,
               HandBytes().I16(0).Array(1).Str("g").Str("consumer").str(), 0);
  // v5: throttle, error, groups (id, protocol type, state, type), compact.
  resp.groups[0].group_state = "Stable";
  resp.groups[0].group_type = "classic";
  ExpectLayout(WriteListGroupsResponse, ReadListGroupsResponse, resp,
               HandBytes()
                   .I32(0).I16(0).CArray(1)
                   .CStr("g").CStr("consumer").CStr("Stable").CStr("classic").NoTags()
                   .NoTags()
                   .str(),
               5);
}

// ---- DescribeGroups ----

TEST(KafkaDescribeGroups, RequestsRoundTripInEveryVersion) {
  DescribeGroupsRequest req{{"orders-app", "connect"}, true};
  for (int16_t v = 0; v <= 5; ++v) {
    DescribeGroupsRequest expected = req;
    if (v < 3) expected.include_authorized_operations = false;
    ExpectRoundTrip(WriteDescribeGroupsRequest, ReadDescribeGroupsRequest, req, expected, v);
  }
}

DescribeGroupsResponse SampleDescribeGroupsResponse() {
  DescribeGroupsResponse resp;
  resp.throttle_time_ms = 2;
  DescribeGroupsResponse::Group stable;
  stable.group_id = "orders-app";
  stable.group_state = "Stable";
  stable.protocol_type = "consumer";
  stable.protocol_data = "range";
  stable.members = {{"m-1", std::string("i-1"), "rdkafka", "/10.0.0.1", std::string("\x00\x00md", 4), "asg"},
                    {"m-2", std::nullopt, "java", "/10.0.0.2", "", ""}};
  stable.authorized_operations = 0x1f8;
  DescribeGroupsResponse::Group dead;
  dead.error_code = 69;  // GROUP_ID_NOT_FOUND
  dead.group_id = "gone";
  dead.group_state = "Dead";
  resp.groups = {stable, dead};
  return resp;
}

TEST(KafkaDescribeGroups, ResponsesRoundTripInEveryVersion) {
  DescribeGroupsResponse resp = SampleDescribeGroupsResponse();
  for (int16_t v = 0; v <= 5; ++v) {
    DescribeGroupsResponse expected = resp;
    if (v < 1) expected.throttle_time_ms = 0;
    for (auto& g : expected.groups) {
      if (v < 3) g.authorized_operations = INT32_MIN;
      for (auto& m : g.members) {
        if (v < 4) m.group_instance_id.reset();
      }
    }
    ExpectRoundTrip(WriteDescribeGroupsResponse, ReadDescribeGroupsResponse, resp, expected, v);
  }
}

TEST(KafkaDescribeGroups, BytesMatchTheProtocolLayout) {
  // v0: the group ids; v3 include_authorized_operations; v5 compact.
  DescribeGroupsRequest req{{"g"}, true};
  ExpectLayout(WriteDescribeGroupsRequest, ReadDescribeGroupsRequest, DescribeGroupsRequest{{"g"}, false},
               HandBytes().Array(1).Str("g").str(), 0);
  ExpectLayout(WriteDescribeGroupsRequest, ReadDescribeGroupsRequest, req, HandBytes().Array(1).Str("g").Bool(true).str(),
               3);
  ExpectLayout(WriteDescribeGroupsRequest, ReadDescribeGroupsRequest, req,
               HandBytes().CArray(1).CStr("g").Bool(true).NoTags().str(), 5);
  DescribeGroupsResponse resp;
  DescribeGroupsResponse::Group g;
  g.group_id = "g";
  g.group_state = "Stable";
  g.protocol_type = "consumer";
  g.protocol_data = "range";
  g.members = {{"m", std::nullopt, "c", "h", "md", "as"}};
  resp.groups = {g};
  // v0: per group error, id, state, protocol type, protocol data, members (id, client
  // id, client host, metadata, assignment).
  ExpectLayout(WriteDescribeGroupsResponse, ReadDescribeGroupsResponse, resp,
               HandBytes()
                   .Array(1)
                   .I16(0).Str("g").Str("Stable").Str("consumer").Str("range")
                   .Array(1).Str("m").Str("c").Str("h").Bytes("md").Bytes("as")
                   .str(),
               0);
  // v4: throttle first; each member's instance id after its id; authorized operations
  // after the members.
  resp.groups[0].authorized_operations = 8;
  ExpectLayout(WriteDescribeGroupsResponse, ReadDescribeGroupsResponse, resp,
               HandBytes()
                   .I32(0).Array(1)
                   .I16(0).Str("g").Str("Stable").Str("consumer").Str("range")
                   .Array(1).Str("m").NullStr().Str("c").Str("h").Bytes("md").Bytes("as")
                   .I32(8)
                   .str(),
               4);
  // v5: compact.
  ExpectLayout(WriteDescribeGroupsResponse, ReadDescribeGroupsResponse, resp,
               HandBytes()
                   .I32(0).CArray(1)
                   .I16(0).CStr("g").CStr("Stable").CStr("consumer").CStr("range")
                   .CArray(1).CStr("m").CNull().CStr("c").CStr("h").CBytes("md").CBytes("as").NoTags()
                   .I32(8).NoTags()
                   .NoTags()
                   .str(),
               5);
}

// ---- DeleteGroups ----

TEST(KafkaDeleteGroups, RequestsAndResponsesRoundTripInEveryVersion) {
  DeleteGroupsRequest req{{"orders-app", "gone", ""}};
  DeleteGroupsResponse resp{6, {{"orders-app", 0}, {"gone", 69}, {"busy", 68}}};
  for (int16_t v = 0; v <= 2; ++v) {
    ExpectRoundTrip(WriteDeleteGroupsRequest, ReadDeleteGroupsRequest, req, req, v);
    ExpectRoundTrip(WriteDeleteGroupsResponse, ReadDeleteGroupsResponse, resp, resp, v);
  }
}

TEST(KafkaDeleteGroups, BytesMatchTheProtocolLayout) {
  DeleteGroupsRequest req{{"a", "b"}};
  ExpectLayout(WriteDeleteGroupsRequest, ReadDeleteGroupsRequest, req, HandBytes().Array(2).Str("a").Str("b").str(), 0);
  ExpectLayout(WriteDeleteGroupsRequest, ReadDeleteGroupsRequest, req,
               HandBytes().CArray(2).CStr("a").CStr("b").NoTags().str(), 2);
  DeleteGroupsResponse resp{1, {{"a", 68}}};  // NON_EMPTY_GROUP
  // v0: the throttle time (in every version), results (group id, error code).
  ExpectLayout(WriteDeleteGroupsResponse, ReadDeleteGroupsResponse, resp,
               HandBytes().I32(1).Array(1).Str("a").I16(68).str(), 1);
  ExpectLayout(WriteDeleteGroupsResponse, ReadDeleteGroupsResponse, resp,
               HandBytes().I32(1).CArray(1).CStr("a").I16(68).NoTags().NoTags().str(), 2);
}

// Flexible requests from newer clients may carry tagged fields these codecs do not know.
TEST(KafkaGroupCodecs, UnknownTaggedFieldsAreSkipped) {
  // Heartbeat v4 with a tagged field (tag 5, 2 bytes) at the end.
  std::string bytes = HandBytes().CStr("g").I32(1).CStr("m").CNull().I8(1).I8(5).I8(2).Raw("xy").str();
  auto req = DecodeWhole(bytes, 4, ReadHeartbeatRequest);
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(req->member_id, "m");
  // JoinGroup v6 with one inside a protocol.
  std::string join = HandBytes()
                         .CStr("g").I32(1).I32(2).CStr("").CNull().CStr("consumer")
                         .CArray(1).CStr("range").CBytes("").I8(1).I8(0).I8(1).Raw("z")
                         .NoTags()
                         .str();
  auto j = DecodeWhole(join, 6, ReadJoinGroupRequest);
  ASSERT_TRUE(j.ok());
  ASSERT_EQ(j->protocols.size(), 1u);
  EXPECT_EQ(j->protocols[0].name, "range");
}

}  // namespace
}  // namespace strata::proto::kafka
