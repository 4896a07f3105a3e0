// server/group_metrics.h: the figures a scrape shows come from the group coordinator.

#include "server/group_metrics.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "storage/clock.h"
#include "tests/support/memory_group_log.h"
#include "tests/support/scrape.h"

namespace strata::server {
namespace {

using testing::Scrape;

TEST(GroupMetrics, ShowGroupsByStateRebalancesCommitsAndLoadsAsTheCoordinatorHasThem) {
  storage::ManualClock clock;
  broker::testing::MemoryGroupLog log;
  broker::GroupCoordinatorOptions o;
  o.offsets_topic_partitions = 1;
  o.group_initial_rebalance_delay_ms = 0;
  o.clock = &clock;
  o.start_thread = false;
  broker::GroupCoordinator coordinator(o, &log);
  GroupMetrics metrics(coordinator);
  EXPECT_EQ(Scrape(metrics)["strata_group_partitions_loaded_total"], 0);
  coordinator.OnLeadership({{0, 1}}, 1);
  coordinator.RunDueTimers();

  broker::OffsetCommitParams commit;
  commit.group_id = "tools";
  commit.partitions = {{"orders", 0, 5, -1, std::nullopt}, {"orders", 1, 6, -1, std::nullopt}};
  coordinator.CommitOffsets(commit, [](auto) {});
  broker::JoinGroupParams join;
  join.group_id = "app";
  join.session_timeout_ms = 10000;
  join.rebalance_timeout_ms = 10000;
  join.protocol_type = "consumer";
  join.protocols = {{"range", ""}};
  std::string member;
  coordinator.JoinGroup(join, [&member](broker::JoinGroupResult r) { member = r.member_id; });
  coordinator.RunDueTimers();  // the initial delay (0) ends: generation 1
  ASSERT_FALSE(member.empty());
  broker::SyncGroupParams sync;
  sync.group_id = "app";
  sync.generation_id = 1;
  sync.member_id = member;
  coordinator.SyncGroup(sync, [](auto) {});
  coordinator.RunDueTimers();

  std::map<std::string, double> m = Scrape(metrics);
  EXPECT_EQ(m["strata_groups{state=Stable}"], 1);
  EXPECT_EQ(m["strata_groups{state=Empty}"], 1);  // "tools": offsets only
  EXPECT_EQ(m["strata_groups{state=PreparingRebalance}"], 0);
  EXPECT_EQ(m["strata_group_rebalances_total"], 1);
  EXPECT_EQ(m["strata_group_offset_commits_total"], 2);
  EXPECT_EQ(m["strata_group_offset_commit_requests_total"], 1);
  EXPECT_EQ(m["strata_group_offset_commit_seconds_count"], 1);
  EXPECT_EQ(m["strata_group_partitions_loaded_total"], 1);
  EXPECT_EQ(m["strata_share_groups{state=Stable}"], 0);

  // A KIP-932 share group with one member.
  coordinator.OnTopicsChanged({{"jobs", {std::string(16, 'j'), 2}}}, {}, true);
  broker::ShareHeartbeatParams share;
  share.member_id = "s1";
  share.subscribed_topic_names = std::vector<std::string>{"jobs"};
  coordinator.ShareGroupHeartbeat("queue", share, [](auto) {});
  coordinator.RunDueTimers();
  m = Scrape(metrics);
  EXPECT_EQ(m["strata_share_groups{state=Stable}"], 1);
  EXPECT_EQ(m["strata_share_groups{state=Empty}"], 0);
  EXPECT_EQ(m["strata_share_group_members"], 1);
  EXPECT_EQ(m["strata_share_group_rebalances_total"], 1);
}

}  // namespace
}  // namespace strata::server
