// The records of KIP-848 consumer groups (broker/group/consumer_group_record.h): each
// value round-trips, and a reader refuses what it cannot read (truncated values, an
// unknown member state, bytes after the last field) instead of loading a wrong state.
#include "broker/group/consumer_group_record.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "broker/group/group_record.h"

namespace strata::broker {
namespace {

const std::string kTopicA(16, 'a');
const std::string kTopicB(16, 'b');

template <typename T, typename Decode>
void ExpectTruncationsRefused(const std::string& bytes, Decode decode) {
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(decode(absl::string_view(bytes).substr(0, cut)).ok()) << "cut at " << cut;
  }
  EXPECT_FALSE(decode(bytes + "x").ok()) << "a byte after the last field";
}

TEST(ConsumerGroupRecord, GroupMetadataRoundTrips) {
  ConsumerGroupMetadataValue v{7, {{kTopicA, 4}, {kTopicB, 12}}};
  std::string bytes = EncodeConsumerGroupMetadataValue(v);
  EXPECT_EQ(DecodeConsumerGroupMetadataValue(bytes).value(), v);
  ExpectTruncationsRefused<ConsumerGroupMetadataValue>(bytes, DecodeConsumerGroupMetadataValue);
}

TEST(ConsumerGroupRecord, MemberMetadataRoundTrips) {
  ConsumerMemberMetadataValue v;
  v.instance_id = "app-1";
  v.client_id = "consumer-1";
  v.client_host = "/127.0.0.1";
  v.rebalance_timeout_ms = 300000;
  v.subscribed_topic_names = {"audit", "orders"};
  v.server_assignor = "range";
  std::string bytes = EncodeConsumerMemberMetadataValue(v);
  EXPECT_EQ(DecodeConsumerMemberMetadataValue(bytes).value(), v);
  ExpectTruncationsRefused<ConsumerMemberMetadataValue>(bytes, DecodeConsumerMemberMetadataValue);
  ConsumerMemberMetadataValue bare;  // every nullable field null
  EXPECT_EQ(DecodeConsumerMemberMetadataValue(EncodeConsumerMemberMetadataValue(bare)).value(), bare);
}

TEST(ConsumerGroupRecord, TargetRoundTrips) {
  ConsumerTargetMetadataValue meta{9, "uniform"};
  EXPECT_EQ(DecodeConsumerTargetMetadataValue(EncodeConsumerTargetMetadataValue(meta)).value(), meta);
  TopicPartitionSet part{{kTopicA, {0, 3}}, {kTopicB, {1}}};
  std::string bytes = EncodeConsumerTargetMemberValue(part);
  EXPECT_EQ(DecodeConsumerTargetMemberValue(bytes).value(), part);
  ExpectTruncationsRefused<TopicPartitionSet>(bytes, DecodeConsumerTargetMemberValue);
}

TEST(ConsumerGroupRecord, CurrentAssignmentRoundTripsAndAnUnknownStateIsRefused) {
  MemberAssignment v;
  v.member_epoch = 5;
  v.previous_member_epoch = 4;
  v.state = ConsumerMemberState::kUnrevokedPartitions;
  v.assigned = {{kTopicA, {0}}};
  v.pending_revocation = {{kTopicA, {1, 2}}};
  std::string bytes = EncodeConsumerCurrentAssignmentValue(v);
  EXPECT_EQ(DecodeConsumerCurrentAssignmentValue(bytes).value(), v);
  ExpectTruncationsRefused<MemberAssignment>(bytes, DecodeConsumerCurrentAssignmentValue);
  std::string unknown = bytes;
  unknown[2 + 4 + 4] = 9;  // version, epochs, then the state
  absl::StatusOr<MemberAssignment> refused = DecodeConsumerCurrentAssignmentValue(unknown);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(absl::StrContains(refused.status().message(), "member state 9")) << refused.status();
}

}  // namespace
}  // namespace strata::broker
