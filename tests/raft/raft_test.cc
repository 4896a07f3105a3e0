// One test per rule of the Raft paper (and of the PreVote / CheckQuorum extensions),
// on a small in-memory network that delivers at once unless a node is isolated.

#include "raft/raft.h"

#include <gtest/gtest.h>

#include "tests/raft/raft_net.h"

namespace strata::raft {
namespace {

using testing::Net;

// A vote request claiming an empty log.
Message VoteRequest(NodeId from, NodeId to, Term term) {
  Message m;
  m.type = MessageType::kVote;
  m.from = from;
  m.to = to;
  m.term = term;
  return m;
}

TEST(RaftElection, AFollowerThatTimesOutIsElectedByAMajority) {
  Net net(3);
  net.Elect(1);
  EXPECT_EQ(net[1].term(), 1);
  EXPECT_EQ(net[2].leader(), 1);
  EXPECT_EQ(net[3].leader(), 1);
  EXPECT_EQ(net[2].vote(), 1);
}

TEST(RaftElection, NoLeaderWithoutAMajority) {
  Net net(3);
  net.Isolate(2);
  net.Isolate(3);
  net.Tick(1, 100);
  EXPECT_NE(net[1].role(), Role::kLeader);
  EXPECT_EQ(net[1].term(), 0);  // pre-votes failed: the term never moved
}

TEST(RaftElection, AVoterGrantsOneVotePerTermAndRemembersItAcrossRestarts) {
  Net net(3);
  Message vote = VoteRequest(/*from=*/2, /*to=*/1, /*term=*/5);
  net[1].Step(vote);
  net.Settle();
  EXPECT_EQ(net[1].vote(), 2);
  net.Start(1);  // restart from persisted state
  EXPECT_EQ(net[1].term(), 5);
  EXPECT_EQ(net[1].vote(), 2);
  Message other = vote;
  other.from = 3;
  net[1].Step(other);
  EXPECT_EQ(net[1].vote(), 2);
}

TEST(RaftElection, AVoterRefusesACandidateWhoseLogIsBehind) {
  Net net(3);
  net.Elect(1);
  ASSERT_TRUE(net[1].Propose("x").ok());
  net.Settle();
  net.Isolate(1);
  // Node 3 claims an empty log at a higher term: 2 has entries of term 1 and refuses.
  Message vote = VoteRequest(/*from=*/3, /*to=*/2, /*term=*/7);
  for (int i = 0; i < 20; ++i) net[2].Tick();
  net[2].Step(vote);
  EXPECT_NE(net[2].vote(), 3);
}

TEST(RaftPreVote, AnIsolatedNodeDoesNotInflateItsTermOrDisruptTheLeaderWhenItReturns) {
  Net net(3);
  net.Elect(1);
  net.Isolate(3);
  net.TickAll(200);
  EXPECT_EQ(net[3].term(), 1);  // only pre-votes, which never raise the term
  net.Rejoin(3);
  net.TickAll(5);
  EXPECT_EQ(net[1].role(), Role::kLeader);
  EXPECT_EQ(net[1].term(), 1);
  EXPECT_EQ(net[3].leader(), 1);
}

TEST(RaftCheckQuorum, ALeaderCutOffFromTheMajorityStepsDownWithinAnElectionTimeout) {
  Net net(3);
  net.Elect(1);
  net.Isolate(1);
  net.Tick(1, 2 * 10);
  EXPECT_NE(net[1].role(), Role::kLeader);
}

TEST(RaftCheckQuorum, VotersInTheLeasesOfALiveLeaderIgnoreVoteRequests) {
  Net net(3);
  net.Elect(1);
  Message vote = VoteRequest(/*from=*/3, /*to=*/2, /*term=*/9);
  vote.index = 100;  // a log well ahead
  vote.log_term = 9;
  net[2].Step(vote);
  EXPECT_EQ(net[2].term(), 1);
  EXPECT_EQ(net[2].vote(), 1);
}

TEST(RaftReplication, CommittedEntriesAreAppliedEverywhereInOrder) {
  Net net(3);
  net.Elect(1);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(net[1].Propose("e" + std::to_string(i)).ok());
  net.Settle();
  net.TickAll(2);  // heartbeats carry the commit index
  for (NodeId id : {1, 2, 3}) {
    const auto& applied = net.applied(id);
    ASSERT_EQ(applied.size(), 51u) << id;  // the leader's no-op and 50 proposals
    EXPECT_EQ(applied[0].data, "");
    EXPECT_EQ(applied[50].data, "e49");
  }
}

// A commit reaches the followers at once: with no tick (no periodic heartbeat) after the
// proposal, they apply it.
TEST(RaftReplication, FollowersLearnACommitWithoutWaitingForAHeartbeat) {
  Net net(3);
  net.Elect(1);
  net.TickAll(2);  // the no-op committed everywhere
  ASSERT_TRUE(net[1].Propose("x").ok());
  net.Settle();
  for (NodeId id : {1, 2, 3}) {
    ASSERT_FALSE(net.applied(id).empty()) << id;
    EXPECT_EQ(net.applied(id).back().data, "x") << id;
  }
}

// DescribeQuorum's voters: the leader knows each voter's match index (its own: its last
// index); a follower knows none; a voter cut off stays at what it had.
TEST(RaftReplication, TheLeaderReportsEachVotersMatchIndex) {
  Net net(3);
  net.Elect(1);
  net.TickAll(2);
  EXPECT_TRUE(net[2].VoterMatchIndexes().empty());
  std::map<NodeId, Index> all{{1, net[1].last_index()}, {2, net[1].last_index()}, {3, net[1].last_index()}};
  EXPECT_EQ(net[1].VoterMatchIndexes(), all);
  net.Isolate(3);
  Index before = net[1].last_index();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(net[1].Propose("e" + std::to_string(i)).ok());
  net.Settle();
  std::map<NodeId, Index> lagging{{1, before + 5}, {2, before + 5}, {3, before}};
  EXPECT_EQ(net[1].VoterMatchIndexes(), lagging);
}

TEST(RaftReplication, ProposalsToAFollowerNameTheLeader) {
  Net net(3);
  net.Elect(2);
  absl::Status s = net[1].Propose("x");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s.message(), "not leader; leader is 2");
}

TEST(RaftReplication, ALeaderCountsItsOwnEntryOnlyOncePersisted) {
  Net net(1);
  net.Elect(1);
  ASSERT_TRUE(net[1].Propose("x").ok());
  Index before = net[1].commit_index();
  Ready rd = net[1].GetReady();
  ASSERT_EQ(rd.entries.size(), 1u);
  EXPECT_EQ(net[1].commit_index(), before);  // not durable yet, not committed
  net[1].Advance(rd);
  EXPECT_EQ(net[1].commit_index(), rd.entries.back().index);
}

TEST(RaftReplication, AnEntryNeverOnAMajorityIsReplacedByTheNextLeader) {
  // Without CheckQuorum leases, so that 2 can be elected by ticking it alone.
  Net net(3, 10, /*check_quorum=*/false);
  net.Elect(1);
  net.Isolate(3);
  net.Isolate(2);
  ASSERT_TRUE(net[1].Propose("old").ok());
  net.Settle();
  Index old_index = net[1].last_index();
  EXPECT_LT(net[1].commit_index(), old_index);
  // 1 loses leadership; 2 and 3 elect 2, which never saw "old".
  net.Rejoin(2);
  net.Rejoin(3);
  net.Isolate(1);
  net.Elect(2);
  net.Rejoin(1);
  net.TickAll(3);
  // "old" was never on a majority: it is gone and 1 follows 2's log.
  EXPECT_EQ(net[1].leader(), 2);
  for (const Entry& e : net.applied(1)) EXPECT_NE(e.data, "old");
}

TEST(RaftReplication, OnlyCurrentTermEntriesCommitByCounting) {
  // Figure 8 of the Raft paper: node 1 wins term 4 holding an entry of term 2 at index 2
  // that neither follower has. Once both followers hold it, it is on every node, yet it
  // must not commit by counting: a leader of term 3 with another entry at index 2 could
  // still have been elected and overwrite it. It commits with the new leader's no-op.
  Net net(3);
  net.set_max_append_bytes(1);  // one entry per Append
  std::vector<Entry> common = {{1, 1, "e1"}};
  net.SetPersisted(1, {3, kNoNode, 1}, {{1, 1, "e1"}, {2, 2, "old"}});
  net.SetPersisted(2, {3, kNoNode, 1}, common);
  net.SetPersisted(3, {3, kNoNode, 1}, common);
  for (NodeId id : {1, 2, 3}) net.Start(id);
  // Once a follower holds "old", Appends carrying the new term's no-op are lost for now
  // (the first probe gets through, so that the follower rejects it and is backfilled).
  net.set_drop([&net](const Message& m) {
    if (m.type != MessageType::kAppend || net[m.to].last_index() < 2) return false;
    for (const Entry& e : m.entries) {
      if (e.term == 4) return true;
    }
    return false;
  });
  net.Elect(1);
  ASSERT_EQ(net[1].term(), 4);
  net.TickAll(3);
  EXPECT_EQ(net[2].last_index(), 2);  // "old" reached both followers...
  EXPECT_EQ(net[3].last_index(), 2);
  EXPECT_EQ(net[1].commit_index(), 1);  // ...but is not committed by counting
  net.set_drop(nullptr);
  net.TickAll(3);
  EXPECT_EQ(net[1].commit_index(), 3);  // committed together with the term-4 no-op
}

TEST(RaftReplication, FastBacktrackingConvergesInFewRoundTrips) {
  Net net(3);
  net.Elect(1);
  // Node 3 misses 200 entries (the Appends to it are lost) and must catch up with few
  // probes once it is back.
  net.Isolate(3);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(net[1].Propose("a" + std::to_string(i)).ok());
  net.Settle();
  int64_t rejected_before = net.sent(MessageType::kAppendResponse);
  net.Rejoin(3);
  net.TickAll(4);
  EXPECT_EQ(net[3].last_index(), net[1].last_index());
  // Far fewer responses than entries: the probe jumps to the follower's log end.
  EXPECT_LT(net.sent(MessageType::kAppendResponse) - rejected_before, 20);
}

TEST(RaftReplication, FlowControlBoundsBytesInFlightToASilentFollower) {
  Net net(2);
  net.set_inflight(2048);
  net.Start(1);
  net.Start(2);
  net.Elect(1);
  net.TickAll(2);  // 2 acknowledges the no-op: replication mode
  net.Isolate(2);
  int64_t appends_before = net.sent(MessageType::kAppend);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(net[1].Propose(std::string(100, 'x')).ok());
  net.Settle();
  // 2 KiB of window / ~116 bytes per entry: about 17 entries, in at most that many
  // messages, and nothing more until 2 answers.
  EXPECT_LE(net.sent(MessageType::kAppend) - appends_before, 20);
}

TEST(RaftReplication, AFollowerTruncatesAConflictingUncommittedTail) {
  Net net(3, 10, /*check_quorum=*/false);
  net.Elect(1);
  net.Isolate(2);
  net.Isolate(3);
  ASSERT_TRUE(net[1].Propose("lost").ok());
  net.Settle();
  // 2 and 3 move on without 1.
  net.Rejoin(2);
  net.Rejoin(3);
  net.Isolate(1);
  net.Elect(2);
  ASSERT_TRUE(net[2].Propose("kept").ok());
  net.Settle();
  net.Rejoin(1);
  net.TickAll(3);
  EXPECT_EQ(net.persisted_log(1), net.persisted_log(2));
  bool has_lost = false;
  for (const Entry& e : net.persisted_log(1)) has_lost = has_lost || e.data == "lost";
  EXPECT_FALSE(has_lost);
}

TEST(RaftSnapshot, AFollowerBehindTheCompactedLogInstallsTheSnapshot) {
  Net net(3);
  net.Elect(1);
  net.Isolate(3);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(net[1].Propose("e" + std::to_string(i)).ok());
  net.Settle();
  net.Snapshot(1);
  ASSERT_EQ(net[1].snapshot().index, 21);
  EXPECT_EQ(net[1].EntryAt(21), nullptr);
  net.Rejoin(3);
  net.TickAll(3);
  EXPECT_EQ(net.installs(3), 1);
  EXPECT_EQ(net[3].snapshot(), net[1].snapshot());
  EXPECT_EQ(net[3].commit_index(), 21);
  // Replication continues after the snapshot.
  ASSERT_TRUE(net[1].Propose("after").ok());
  net.TickAll(2);
  ASSERT_FALSE(net.persisted_log(3).empty());
  EXPECT_EQ(net.persisted_log(3).back().data, "after");
  EXPECT_EQ(net.applied(3).back().data, "after");
  EXPECT_EQ(net.applied(3).back().index, 22);
}

TEST(RaftSnapshot, AFollowerHoldingTheSnapshotsLastEntryKeepsItsLog) {
  Net net(3);
  net.Elect(1);
  ASSERT_TRUE(net[1].Propose("a").ok());
  net.Settle();
  net.Snapshot(1);
  // 3 has entry 2 already; a snapshot message only moves its commit.
  Message m;
  m.type = MessageType::kSnapshot;
  m.from = 1;
  m.to = 3;
  m.term = net[1].term();
  m.index = 2;
  m.log_term = net[1].term();
  net[3].Step(m);
  net.Settle();
  EXPECT_EQ(net.installs(3), 0);
  EXPECT_EQ(net.persisted_log(3).size(), 2u);
}

TEST(RaftSnapshot, ALostSnapshotIsSentAgain) {
  Net net(3);
  net.Elect(1);
  net.Isolate(3);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(net[1].Propose("e").ok());
  net.Settle();
  net.Snapshot(1);
  net.Rejoin(3);
  int dropped = 0;
  net.set_drop([&](const Message& m) { return m.type == MessageType::kSnapshot && dropped++ == 0; });
  net.TickAll(5);
  EXPECT_GE(dropped, 2);
  EXPECT_EQ(net.installs(3), 1);
  EXPECT_EQ(net[3].commit_index(), net[1].commit_index());
}

TEST(RaftSnapshot, ARestartFromASnapshotAppliesOnlyWhatFollowsIt) {
  Net net(1);
  net.Elect(1);
  ASSERT_TRUE(net[1].Propose("a").ok());
  net.Settle();
  net.Snapshot(1);
  ASSERT_TRUE(net[1].Propose("b").ok());
  net.Settle();
  size_t applied_before = net.applied(1).size();
  net.Start(1);
  EXPECT_EQ(net[1].snapshot().index, 2);
  EXPECT_EQ(net[1].applied_index(), 2);
  net.Settle();
  ASSERT_EQ(net.applied(1).size(), applied_before + 1);  // only "b" again
  EXPECT_EQ(net.applied(1).back().data, "b");
}

}  // namespace
}  // namespace strata::raft
