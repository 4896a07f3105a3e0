// AddRaftVoter (v0-v1), RemoveRaftVoter (v0) and UpdateRaftVoter (v0), KIP-853: requests
// and responses round-trip in every version (AckWhenCommitted only from v1, true before),
// hand-built bytes pin the layouts as Kafka's schemas give them (ports as unsigned 16-bit
// fields, UpdateRaftVoter's current leader as tagged field 0), and every truncation is
// refused.

#include <gtest/gtest.h>

#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/raft_voters.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;

TEST(KafkaRaftVoters, TheApiTableAndErrorCodesKnowThem) {
  for (auto [key, name] : {std::pair{ApiKey::kAddRaftVoter, "AddRaftVoter"},
                           std::pair{ApiKey::kRemoveRaftVoter, "RemoveRaftVoter"},
                           std::pair{ApiKey::kUpdateRaftVoter, "UpdateRaftVoter"}}) {
    int16_t k = static_cast<int16_t>(key);
    EXPECT_EQ(ApiName(k), name);
    EXPECT_EQ(FirstFlexibleVersion(k), std::optional<int16_t>(0));
    EXPECT_EQ(RequestHeaderVersion(k, 0), 2);
    EXPECT_EQ(ResponseHeaderVersion(k, 0), 1);
    EXPECT_EQ(ThrottleTimeOffset(k, 0), std::optional<size_t>(0));
  }
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kAddRaftVoter), 80);
  EXPECT_EQ(static_cast<int16_t>(ApiKey::kUpdateRaftVoter), 82);
  EXPECT_EQ(ErrorName(ErrorCode::kDuplicateVoter), "DUPLICATE_VOTER");
  EXPECT_EQ(static_cast<int16_t>(ErrorCode::kDuplicateVoter), 126);
  EXPECT_EQ(static_cast<int16_t>(ErrorCode::kVoterNotFound), 127);
  EXPECT_EQ(static_cast<int16_t>(ErrorCode::kInvalidVoterKey), 125);
  EXPECT_EQ(static_cast<int16_t>(ErrorCode::kInconsistentClusterId), 104);
}

AddRaftVoterRequest Add() {
  AddRaftVoterRequest req;
  req.cluster_id = "c1";
  req.timeout_ms = 30000;
  req.voter_id = 4;
  req.voter_directory_id = std::string(16, 'd');
  req.listeners = {{"CONTROLLER", "h4", 65001}};
  req.ack_when_committed = false;
  return req;
}

TEST(KafkaRaftVoters, AddRaftVoterRoundTripsAndAckWhenCommittedIsV1) {
  for (int16_t v = 0; v <= 1; ++v) {
    AddRaftVoterRequest expected = Add();
    if (v < 1) expected.ack_when_committed = true;  // the default
    ExpectRoundTrip(WriteAddRaftVoterRequest, ReadAddRaftVoterRequest, Add(), expected, v);
  }
  AddRaftVoterRequest no_cluster = Add();
  no_cluster.cluster_id.reset();
  ExpectRoundTrip(WriteAddRaftVoterRequest, ReadAddRaftVoterRequest, no_cluster, no_cluster, 1);
}

TEST(KafkaRaftVoters, AddRaftVoterV1Layout) {
  std::string bytes = HandBytes()
                          .CStr("c1")
                          .I32(30000)
                          .I32(4)
                          .Uuid('d')
                          .CArray(1).CStr("CONTROLLER").CStr("h4").I16(65001 - 65536).NoTags()
                          .I8(0)
                          .NoTags()
                          .str();
  ExpectLayout(WriteAddRaftVoterRequest, ReadAddRaftVoterRequest, Add(), bytes, 1);
}

TEST(KafkaRaftVoters, RemoveRaftVoterLayout) {
  RemoveRaftVoterRequest req{std::nullopt, 2, std::string(16, 'b')};
  std::string bytes = HandBytes().CNull().I32(2).Uuid('b').NoTags().str();
  ExpectLayout(WriteRemoveRaftVoterRequest, ReadRemoveRaftVoterRequest, req, bytes, 0);
  ExpectRoundTrip(WriteRemoveRaftVoterRequest, ReadRemoveRaftVoterRequest, req, req, 0);
}

TEST(KafkaRaftVoters, UpdateRaftVoterLayout) {
  UpdateRaftVoterRequest req{"c1", 7, 3, std::string(16, 'c'), {{"CONTROLLER", "h3", 9093}}, 0, 1};
  std::string bytes = HandBytes()
                          .CStr("c1")
                          .I32(7)
                          .I32(3)
                          .Uuid('c')
                          .CArray(1).CStr("CONTROLLER").CStr("h3").I16(9093).NoTags()
                          .I16(0).I16(1).NoTags()
                          .NoTags()
                          .str();
  ExpectLayout(WriteUpdateRaftVoterRequest, ReadUpdateRaftVoterRequest, req, bytes, 0);
}

TEST(KafkaRaftVoters, ResponsesRoundTripWithTheCurrentLeaderTagged) {
  RaftVoterResponse refused{0, static_cast<int16_t>(ErrorCode::kDuplicateVoter), "node 4 is a voter already"};
  for (int16_t v = 0; v <= 1; ++v) ExpectRoundTrip(WriteRaftVoterResponse, ReadRaftVoterResponse, refused, refused, v);
  RaftVoterResponse ok{5, 0, std::nullopt};
  ExpectLayout(WriteRaftVoterResponse, ReadRaftVoterResponse, ok, HandBytes().I32(5).I16(0).CNull().NoTags().str(), 0);

  UpdateRaftVoterResponse with_leader{0, 0, UpdateRaftVoterResponse::CurrentLeader{1, 9, "h1", 9093}};
  std::string leader = HandBytes().I32(1).I32(9).CStr("h1").I32(9093).NoTags().str();
  std::string bytes = HandBytes().I32(0).I16(0).I8(1).I8(0).I8(static_cast<int>(leader.size())).Raw(leader).str();
  ExpectLayout(WriteUpdateRaftVoterResponse, ReadUpdateRaftVoterResponse, with_leader, bytes, 0);
  UpdateRaftVoterResponse without{0, static_cast<int16_t>(ErrorCode::kVoterNotFound), std::nullopt};
  ExpectRoundTrip(WriteUpdateRaftVoterResponse, ReadUpdateRaftVoterResponse, without, without, 0);
}

}  // namespace
}  // namespace strata::proto::kafka
