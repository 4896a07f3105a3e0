// broker/group/share_group_log.h: a share group's records in __consumer_offsets replay to
// the same group (epochs, members, their partitions), and tombstones remove what left.

#include "broker/group/share_group_log.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata::broker {
namespace {

const std::string kJobs(16, 'j');

// Replays records as a loading coordinator does (keys decoded, share types applied).
ShareGroup Replay(const std::vector<GroupLogRecord>& records) {
  ShareGroup g;
  for (const GroupLogRecord& r : records) {
    auto key = DecodeGroupRecordKey(r.key);
    EXPECT_TRUE(key.ok()) << key.status();
    const auto* k = std::get_if<ConsumerGroupKey>(&*key);
    EXPECT_TRUE(k != nullptr && IsShareRecordType(k->type));
    absl::Status s = ApplyShareRecord(g, *k, r.value);
    EXPECT_TRUE(s.ok()) << s;
  }
  return g;
}

TEST(ShareGroupRecords, ReplayGivesBackEpochsMembersAndPartitions) {
  ShareGroup g;
  const ConsumerTopics topics{{"jobs", {kJobs, 2}}};
  std::vector<GroupLogRecord> log;
  auto beat = [&](const std::string& member, int32_t epoch, bool join) {
    ShareHeartbeatParams p;
    p.member_id = member;
    p.member_epoch = epoch;
    if (join) p.subscribed_topic_names = std::vector<std::string>{"jobs"};
    p.rack_id = "rack-" + member;
    p.client_id = "client-" + member;
    p.client_host = "/10.0.0.1";
    ShareGroupChanges changes;
    ShareHeartbeatResult r = ShareHeartbeat(g, p, topics, {}, 0, changes);
    EXPECT_EQ(r.error, proto::kafka::ErrorCode::kNone);
    for (GroupLogRecord& rec : ShareRecordsOf("app", g, changes)) log.push_back(std::move(rec));
    return r.member_epoch;
  };
  beat("a", 0, true);
  beat("b", 0, true);
  const int32_t a_epoch = beat("a", 1, false);  // a catches up with b's join
  ShareGroup replayed = Replay(log);
  EXPECT_EQ(replayed.group_epoch, g.group_epoch);
  EXPECT_EQ(replayed.assignment_epoch, g.assignment_epoch);
  EXPECT_EQ(replayed.subscribed_partitions, g.subscribed_partitions);
  ASSERT_EQ(replayed.members.size(), 2u);
  for (const auto& [id, m] : g.members) {
    const ShareGroupMember& r = replayed.members.at(id);
    EXPECT_EQ(r.member_epoch, m.member_epoch) << id;
    EXPECT_EQ(r.assignment, m.assignment) << id;
    EXPECT_EQ(r.subscribed_topic_names, m.subscribed_topic_names) << id;
    EXPECT_EQ(r.rack_id, m.rack_id) << id;
    EXPECT_EQ(r.client_id, m.client_id) << id;
  }
  EXPECT_EQ(replayed.members.at("a").member_epoch, a_epoch);

  // b leaves: its tombstones remove it; the group's new epoch is written.
  beat("b", g.members.at("b").member_epoch, false);
  ShareGroupChanges left;
  RemoveShareMember(g, "b", topics, left);
  for (GroupLogRecord& rec : ShareRecordsOf("app", g, left)) log.push_back(std::move(rec));
  replayed = Replay(log);
  EXPECT_EQ(replayed.members.count("b"), 0u);
  EXPECT_EQ(replayed.group_epoch, g.group_epoch);

  // The group deleted: nothing is left.
  for (GroupLogRecord& rec : ShareTombstonesOf("app", g)) log.push_back(std::move(rec));
  replayed = Replay(log);
  EXPECT_TRUE(replayed.members.empty());
  EXPECT_EQ(replayed.group_epoch, 0);
}

TEST(ShareGroupRecords, AnAssignmentBeforeItsMemberIsRefused) {
  ShareGroup g;
  ConsumerGroupKey key{ConsumerRecordType::kShareMemberAssignment, "app", "ghost"};
  // What a member's assignment record holds (the consumer groups' encoding).
  std::vector<GroupLogRecord> records = ShareRecordsOf("app", [] {
    ShareGroup one;
    one.members["ghost"].member_id = "ghost";
    return one;
  }(), ShareGroupChanges{{"ghost"}, {}, false});
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(ApplyShareRecord(g, key, records[1].value).code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace strata::broker
