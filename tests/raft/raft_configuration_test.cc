// The Raft core's configuration (KIP-853): the voters are the latest VotersRecord in the
// log, from the moment it is appended until it is truncated, and only they campaign,
// vote, commit and keep a leader's lease; voters change one at a time, each refused
// with the reason when it may not go ahead (one test per rule); a static quorum is
// upgraded to a dynamic one (kraft.version 1) with the keys its voters answered with.

#include <gtest/gtest.h>

#include <set>

#include "absl/strings/match.h"
#include "raft/raft.h"
#include "raft/voter_set.h"
#include "tests/raft/raft_net.h"

namespace strata::raft {
namespace {

using testing::Net;

std::string Dir(NodeId id) { return std::string(16, static_cast<char>('a' + id)); }

Voter VoterOf(NodeId id, uint16_t port = 0) {
  return Voter{.id = id, .directory_id = Dir(id),
               .endpoints = {{"CONTROLLER", "127.0.0.1", port != 0 ? port : static_cast<uint16_t>(9090 + id)}}};
}

VoterSet Voters(std::vector<NodeId> ids) {
  std::vector<Voter> voters;
  for (NodeId id : ids) voters.push_back(VoterOf(id));
  return *VoterSet::Of(std::move(voters));
}

// A dynamic quorum: nodes 1..initial were formatted with the bootstrap voters; a node
// with a higher id was formatted to be added later (it knows no voters).
Net DynamicNet(int initial, bool check_quorum = true) {
  std::vector<NodeId> ids;
  for (NodeId id = 1; id <= initial; ++id) ids.push_back(id);
  return Net(ids, [ids, check_quorum](Config& c) {
    c.check_quorum = check_quorum;
    c.voters.clear();
    c.directory_id = Dir(c.id);
    if (std::find(ids.begin(), ids.end(), c.id) != ids.end()) c.bootstrap = Voters(ids);
  });
}

VoterChange Add(NodeId id, int timeout_ticks = 100) {
  return VoterChange{.kind = VoterChange::Kind::kAdd, .voter = VoterOf(id), .timeout_ticks = timeout_ticks};
}

VoterChange Remove(NodeId id) {
  return VoterChange{.kind = VoterChange::Kind::kRemove, .voter = Voter{.id = id, .directory_id = Dir(id), .endpoints = {}}};
}

bool HasConfigurationEntry(const std::vector<Entry>& log) {
  return std::any_of(log.begin(), log.end(), [](const Entry& e) { return e.type != EntryType::kData; });
}

Entry VotersEntry(Term term, Index index, std::vector<NodeId> ids) {
  return Entry{term, index, Voters(std::move(ids)).Encode(), EntryType::kVoters};
}

Config ConfigOf(NodeId id, std::vector<NodeId> static_voters) {
  Config c;
  c.id = id;
  c.voters = std::move(static_voters);
  c.pre_vote = false;
  c.check_quorum = false;
  return c;
}

Message AppendFrom(NodeId from, NodeId to, Term term, Index prev, Term prev_term, std::vector<Entry> entries) {
  Message m;
  m.type = MessageType::kAppend;
  m.from = from;
  m.to = to;
  m.term = term;
  m.index = prev;
  m.log_term = prev_term;
  m.entries = std::move(entries);
  return m;
}

// Ticks until the node campaigns; returns to whom it sent vote requests.
std::set<NodeId> CampaignOf(Raft& raft) {
  for (int i = 0; i < 100 && raft.role() != Role::kCandidate; ++i) raft.Tick();
  std::set<NodeId> asked;
  for (const Message& m : raft.GetReady().messages) {
    if (m.type == MessageType::kVote) asked.insert(m.to);
  }
  return asked;
}

Message GrantFrom(NodeId from, const Raft& to) {
  Message m;
  m.type = MessageType::kVoteResponse;
  m.from = from;
  m.to = to.id();
  m.term = to.term();
  return m;
}

TEST(RaftConfiguration, AVotersEntryTakesEffectWhenAppendedAndIsUndoneWhenTruncated) {
  Raft raft(ConfigOf(2, {1, 2, 3}), HardState{}, {});
  EXPECT_EQ(raft.config().ids(), (std::vector<NodeId>{1, 2, 3}));
  raft.Step(AppendFrom(1, 2, 1, 0, 0, {Entry{1, 1, ""}, VotersEntry(1, 2, {1, 2, 3, 4})}));
  // In effect although not committed (the leader sent commit 0).
  EXPECT_EQ(raft.commit_index(), 0);
  EXPECT_EQ(raft.config().ids(), (std::vector<NodeId>{1, 2, 3, 4}));
  EXPECT_EQ(raft.ConfigAt(1).ids(), (std::vector<NodeId>{1, 2, 3}));
  EXPECT_TRUE(raft.IsVoter(4));
  // The leader of term 2 never had it: entry 2 is replaced, and the set reverts.
  raft.Step(AppendFrom(3, 2, 2, 1, 1, {Entry{2, 2, "x"}}));
  EXPECT_EQ(raft.last_index(), 2);
  EXPECT_EQ(raft.EntryAt(2)->data, "x");
  EXPECT_EQ(raft.config().ids(), (std::vector<NodeId>{1, 2, 3}));
  EXPECT_FALSE(raft.IsVoter(4));
}

TEST(RaftConfiguration, ARestartRecoversTheLatestConfigurationFromTheLog) {
  Raft raft(ConfigOf(2, {1, 2, 3}), HardState{1, 0, 1},
            {Entry{1, 1, ""}, VotersEntry(1, 2, {1, 2, 3, 4}), Entry{1, 3, "a"}, VotersEntry(1, 4, {2, 3, 4})});
  EXPECT_EQ(raft.config().ids(), (std::vector<NodeId>{2, 3, 4}));
  EXPECT_EQ(raft.ConfigAt(3).ids(), (std::vector<NodeId>{1, 2, 3, 4}));
  EXPECT_EQ(raft.ConfigAt(0).ids(), (std::vector<NodeId>{1, 2, 3}));
}

TEST(RaftConfiguration, CompactionKeepsTheConfigurationAsOfTheSnapshot) {
  Raft follower(ConfigOf(2, {1, 2, 3}), HardState{1, 0, 0},
                {Entry{1, 1, ""}, VotersEntry(1, 2, {1, 2, 3, 4}), Entry{1, 3, "a"}});
  Message commit = AppendFrom(1, 2, 1, 3, 1, {});
  commit.commit = 3;
  follower.Step(commit);
  ASSERT_EQ(follower.commit_index(), 3);
  follower.Advance(follower.GetReady());
  ASSERT_EQ(follower.applied_index(), 3);
  follower.Compact(3);
  EXPECT_EQ(follower.snapshot().index, 3);
  EXPECT_EQ(follower.ConfigAt(3).ids(), (std::vector<NodeId>{1, 2, 3, 4}));
  EXPECT_EQ(follower.config().ids(), (std::vector<NodeId>{1, 2, 3, 4}));
}

TEST(RaftConfiguration, ANodeOutsideItsConfigurationNeverCampaigns) {
  Raft raft(ConfigOf(4, {1, 2, 3}), HardState{}, {});
  for (int i = 0; i < 1000; ++i) raft.Tick();
  EXPECT_EQ(raft.role(), Role::kFollower);
  EXPECT_EQ(raft.elections_started(), 0);
  EXPECT_TRUE(raft.GetReady().messages.empty());
}

TEST(RaftConfiguration, OnlyTheConfigurationsVotersElect) {
  Raft raft(ConfigOf(1, {1, 2, 3}), HardState{}, {});
  EXPECT_EQ(CampaignOf(raft), (std::set<NodeId>{2, 3}));
  // Grants from nodes outside the configuration decide nothing.
  raft.Step(GrantFrom(4, raft));
  raft.Step(GrantFrom(5, raft));
  EXPECT_EQ(raft.role(), Role::kCandidate);
  raft.Step(GrantFrom(2, raft));
  EXPECT_EQ(raft.role(), Role::kLeader);
}

TEST(RaftConfiguration, ALeaderCountsAndReplicatesToTheVotersItsLogNames) {
  // Its log added voter 4: four voters, so two grants besides its own are not enough.
  Raft raft(ConfigOf(1, {1, 2, 3}), HardState{1, 0, 0}, {Entry{1, 1, ""}, VotersEntry(1, 2, {1, 2, 3, 4})});
  EXPECT_EQ(CampaignOf(raft), (std::set<NodeId>{2, 3, 4}));
  raft.Step(GrantFrom(2, raft));
  EXPECT_EQ(raft.role(), Role::kCandidate);
  raft.Step(GrantFrom(4, raft));
  ASSERT_EQ(raft.role(), Role::kLeader);
  std::set<NodeId> appended;
  for (const Message& m : raft.GetReady().messages) {
    if (m.type == MessageType::kAppend) appended.insert(m.to);
  }
  EXPECT_EQ(appended, (std::set<NodeId>{2, 3, 4}));
  EXPECT_EQ(raft.VoterMatchIndexes().size(), 4u);
}

TEST(RaftVoterChange, TheFirstLeaderWritesTheBootstrapVotersIntoTheLog) {
  Net net = DynamicNet(3);
  net.Elect(1);
  const std::vector<Entry>& log = net.persisted_log(2);
  ASSERT_GE(log.size(), 3u);
  EXPECT_EQ(log[1].type, EntryType::kKraftVersion);
  EXPECT_EQ(DecodeKraftVersion(log[1].data).value(), kKraftVersionDynamic);
  EXPECT_EQ(log[2].type, EntryType::kVoters);
  EXPECT_EQ(VoterSet::Decode(log[2].data).value(), Voters({1, 2, 3}));
  // A node formatted to be added later knows no voters and never campaigns.
  net.AddNode(4);
  net.TickAll(50);
  EXPECT_EQ(net[4].elections_started(), 0);
  EXPECT_TRUE(net[4].config().empty());
  EXPECT_EQ(net[1].role(), Role::kLeader);
}

TEST(RaftVoterChange, AnAddedVoterCatchesUpAsALearnerThenCountsOnceAppended) {
  Net net = DynamicNet(3);
  net.Elect(1);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(net[1].Propose("before " + std::to_string(i)).ok());
  net.Settle();
  net.AddNode(4);
  VoterChangeResult started = net[1].ProposeVoterChange(Add(4));
  ASSERT_TRUE(started.ok()) << started.message;
  net.Settle();
  ASSERT_EQ(net.change_results(1).size(), 1u);
  EXPECT_EQ(net.change_results(1)[0].id, started.id);
  EXPECT_TRUE(net.change_results(1)[0].ok()) << net.change_results(1)[0].message;
  for (NodeId id : {1, 2, 3, 4}) EXPECT_EQ(net[id].config(), Voters({1, 2, 3, 4})) << id;
  EXPECT_EQ(net[4].commit_index(), net[1].commit_index());
  // Four voters: a commit needs three of them.
  net.Isolate(3);
  net.Isolate(4);
  Index commit = net[1].commit_index();
  ASSERT_TRUE(net[1].Propose("needs three").ok());
  net.Settle();
  EXPECT_EQ(net[1].commit_index(), commit);
  net.Rejoin(4);
  net.TickAll(2);
  EXPECT_GT(net[1].commit_index(), commit);
}

TEST(RaftVoterChange, ALearnerIsNotCountedWhileItCatchesUp) {
  Net net = DynamicNet(3);
  net.Elect(1);
  net.AddNode(4);
  // 4 never answers: it stays a learner, and commits go on with the three voters.
  net.set_drop([](const Message& m) { return m.from == 4; });
  ASSERT_TRUE(net[1].ProposeVoterChange(Add(4)).ok());
  net.Settle();
  EXPECT_EQ(net[1].learner(), 4);
  Index commit = net[1].commit_index();
  ASSERT_TRUE(net[1].Propose("x").ok());
  net.Settle();
  EXPECT_EQ(net[1].commit_index(), commit + 1);
  EXPECT_EQ(net[1].config(), Voters({1, 2, 3}));
}

TEST(RaftVoterChange, ALeaderRefusesASecondChangeWhileOneIsUncommitted) {
  Net net = DynamicNet(3);
  net.Elect(1);
  net.set_drop([](const Message& m) { return m.type == MessageType::kAppend; });
  VoterChange update{.kind = VoterChange::Kind::kUpdate, .voter = VoterOf(2, 19092)};
  VoterChangeResult first = net[1].ProposeVoterChange(update);
  ASSERT_TRUE(first.ok()) << first.message;
  net.Settle();
  Index entry = net[1].last_index();
  EXPECT_EQ(net[1].EntryAt(entry)->type, EntryType::kVoters);
  VoterChangeResult second = net[1].ProposeVoterChange(VoterChange{.kind = VoterChange::Kind::kUpdate,
                                                                   .voter = VoterOf(3, 19093)});
  EXPECT_EQ(second.error, VoterChangeError::kInProgress);
  EXPECT_TRUE(absl::StrContains(second.message, "is not committed")) << second.message;
  net.set_drop(nullptr);
  net.TickAll(2);
  ASSERT_EQ(net.change_results(1).size(), 1u);
  EXPECT_TRUE(net.change_results(1)[0].ok());
  EXPECT_EQ(net[3].config().Find(2)->endpoints[0].port, 19092);
  EXPECT_TRUE(net[1].ProposeVoterChange(VoterChange{.kind = VoterChange::Kind::kUpdate, .voter = VoterOf(3, 19093)})
                  .ok());
}

TEST(RaftVoterChange, ANewLeaderRefusesAChangeUntilAnEntryOfItsTermCommitted) {
  Net net = DynamicNet(3, /*check_quorum=*/false);
  net.Elect(1);
  // The leader of term 2 cannot replicate its no-op yet.
  net.Isolate(1);
  net.set_drop([](const Message& m) { return m.type == MessageType::kAppend; });
  net.Elect(2);
  net.AddNode(4);
  VoterChangeResult early = net[2].ProposeVoterChange(Add(4));
  EXPECT_EQ(early.error, VoterChangeError::kNotReady);
  EXPECT_TRUE(absl::StrContains(early.message, "has not committed an entry of its term 2")) << early.message;
  net.set_drop(nullptr);
  net.TickAll(2);
  VoterChangeResult later = net[2].ProposeVoterChange(Add(4));
  EXPECT_TRUE(later.ok()) << later.message;
}

TEST(RaftVoterChange, AnAddThatCannotCatchUpTimesOutAndLeavesTheVotersUnchanged) {
  Net net = DynamicNet(3);
  net.Elect(1);
  net.AddNode(4);
  net.Isolate(4);
  ASSERT_TRUE(net[1].ProposeVoterChange(Add(4, /*timeout_ticks=*/20)).ok());
  net.Tick(1, 25);
  ASSERT_EQ(net.change_results(1).size(), 1u);
  EXPECT_EQ(net.change_results(1)[0].error, VoterChangeError::kTimedOut);
  EXPECT_TRUE(absl::StrContains(net.change_results(1)[0].message, "voter 4 is still catching up: at index 0 of"))
      << net.change_results(1)[0].message;
  EXPECT_EQ(net[1].config(), Voters({1, 2, 3}));
  EXPECT_FALSE(HasConfigurationEntry(std::vector<Entry>(net.persisted_log(1).begin() + 3,
                                                        net.persisted_log(1).end())));
  EXPECT_EQ(net[1].learner(), kNoNode);
  // Once it is reachable, a retry succeeds.
  net.Rejoin(4);
  ASSERT_TRUE(net[1].ProposeVoterChange(Add(4)).ok());
  net.Settle();
  EXPECT_EQ(net[4].config(), Voters({1, 2, 3, 4}));
}

TEST(RaftVoterChange, RemovingTheLeaderCommitsByTheNewMajorityThenItStepsDown) {
  Net net = DynamicNet(3);
  net.Elect(1);
  int64_t elections = net[1].elections_started();
  VoterChangeResult started = net[1].ProposeVoterChange(Remove(1));
  ASSERT_TRUE(started.ok()) << started.message;
  net.Settle();
  ASSERT_EQ(net.change_results(1).size(), 1u);
  EXPECT_TRUE(net.change_results(1)[0].ok()) << net.change_results(1)[0].message;
  EXPECT_EQ(net[1].role(), Role::kFollower);
  EXPECT_FALSE(net[1].IsVoter(1));
  for (NodeId id : {2, 3}) EXPECT_EQ(net[id].config(), Voters({2, 3})) << id;
  net.TickAll(60);
  EXPECT_TRUE(net[2].role() == Role::kLeader || net[3].role() == Role::kLeader);
  EXPECT_EQ(net[1].elections_started(), elections);  // a removed voter never campaigns
  NodeId leader = net[2].role() == Role::kLeader ? 2 : 3;
  ASSERT_TRUE(net[leader].Propose("after").ok());
  net.Settle();
  EXPECT_EQ(net.applied(leader).back().data, "after");
}

TEST(RaftVoterChange, RemovingTheLastVoterIsRefused) {
  Net net = DynamicNet(1);
  net.Elect(1);
  VoterChangeResult refused = net[1].ProposeVoterChange(Remove(1));
  EXPECT_EQ(refused.error, VoterChangeError::kInvalidRequest);
  EXPECT_TRUE(absl::StrContains(refused.message, "last")) << refused.message;
  EXPECT_EQ(net[1].config(), Voters({1}));
}

TEST(RaftVoterChange, ARemovalThatWouldLoseTheQuorumIsRefused) {
  Net net = DynamicNet(3);
  net.Elect(1);
  net.Isolate(3);
  net.TickAll(12);  // 3 has not answered for more than an election timeout
  ASSERT_EQ(net[1].role(), Role::kLeader);
  VoterChangeResult refused = net[1].ProposeVoterChange(Remove(2));
  EXPECT_EQ(refused.error, VoterChangeError::kInvalidRequest);
  EXPECT_TRUE(absl::StrContains(refused.message, "removing voter 2 would lose the quorum: of the voters {1,3} after "
                                                 "it, only 1 ({1})"))
      << refused.message;
  // Removing the unreachable one leaves {1,2}, both caught up.
  EXPECT_TRUE(net[1].ProposeVoterChange(Remove(3)).ok());
}

// A voter that answered a moment ago but does not yet hold the latest committed entry (a
// busy leader commits by the fastest majority) is caught up: a removal is not refused
// because of it, and commits once it answers again.
TEST(RaftVoterChange, AVoterAnEntryBehindButAnsweringCountsForTheQuorum) {
  Net net = DynamicNet(3);
  net.Elect(1);
  ASSERT_TRUE(net[1].Propose("before").ok());
  net.Settle();
  net.Isolate(3);  // answered up to here; the next entry commits by 1 and 2 only
  ASSERT_TRUE(net[1].Propose("busy").ok());
  net.Settle();
  ASSERT_EQ(net.applied(1).back().data, "busy");
  VoterChangeResult started = net[1].ProposeVoterChange(Remove(2));
  ASSERT_TRUE(started.ok()) << started.message;
  net.Rejoin(3);
  net.TickAll(2);
  ASSERT_EQ(net.change_results(1).size(), 1u);
  EXPECT_TRUE(net.change_results(1)[0].ok()) << net.change_results(1)[0].message;
  EXPECT_EQ(net[1].config(), Voters({1, 3}));
  const std::vector<Entry>& applied = net.applied(3);
  EXPECT_TRUE(std::any_of(applied.begin(), applied.end(), [](const Entry& e) { return e.data == "busy"; }));
}

TEST(RaftVoterChange, UnknownAndDuplicateVotersAreRefused) {
  Net net = DynamicNet(3);
  net.Elect(1);
  EXPECT_EQ(net[1].ProposeVoterChange(Add(2)).error, VoterChangeError::kDuplicateVoter);
  VoterChange other_disk = Remove(2);
  other_disk.voter.directory_id = Dir(9);
  EXPECT_EQ(net[1].ProposeVoterChange(other_disk).error, VoterChangeError::kVoterNotFound);
  EXPECT_EQ(net[1].ProposeVoterChange(Remove(7)).error, VoterChangeError::kVoterNotFound);
  VoterChange update{.kind = VoterChange::Kind::kUpdate, .voter = VoterOf(2)};
  update.voter.directory_id = Dir(9);
  EXPECT_EQ(net[1].ProposeVoterChange(update).error, VoterChangeError::kInvalidVoterKey);
  EXPECT_EQ(net[2].ProposeVoterChange(Add(4)).error, VoterChangeError::kNotLeader);
}

TEST(RaftVoterChange, AStaticQuorumRefusesChangesAndWritesNoControlEntry) {
  Net net(3);
  net.Elect(1);
  VoterChangeResult refused = net[1].ProposeVoterChange(Add(4));
  EXPECT_EQ(refused.error, VoterChangeError::kStaticQuorum);
  EXPECT_FALSE(HasConfigurationEntry(net.persisted_log(1)));
}

TEST(RaftVoterChange, AVoteRequestForAnotherDirectoryIdIsRejected) {
  Config c = ConfigOf(2, {});
  c.bootstrap = Voters({1, 2, 3});
  c.directory_id = Dir(2);
  for (const std::string& addressed : {Dir(9), Dir(2)}) {
    Raft raft(c, HardState{}, {});
    Message vote;
    vote.type = MessageType::kVote;
    vote.from = 1;
    vote.to = 2;
    vote.term = 1;
    vote.to_directory = addressed;
    raft.Step(vote);
    std::vector<Message> out = raft.GetReady().messages;
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].reject, addressed != Dir(2));
    EXPECT_EQ(out[0].from_directory, Dir(2));
  }
}

TEST(RaftVoterChange, ASnapshotCarriesTheConfigurationToANewNode) {
  Net net = DynamicNet(3);
  net.Elect(1);
  net.AddNode(4);
  ASSERT_TRUE(net[1].ProposeVoterChange(Add(4)).ok());
  net.Settle();
  ASSERT_TRUE(net[1].Propose("a").ok());
  net.Settle();
  net.Snapshot(1);  // the voters entries are compacted away
  net.AddNode(5);
  ASSERT_TRUE(net[1].ProposeVoterChange(Add(5)).ok());
  net.Settle();
  EXPECT_EQ(net.installs(5), 1);
  EXPECT_EQ(net[5].config(), Voters({1, 2, 3, 4, 5}));
  EXPECT_EQ(net[5].ConfigAt(net[5].snapshot().index), Voters({1, 2, 3, 4}));
  // A restart recovers both from the snapshot and the log.
  net.Start(5);
  EXPECT_EQ(net[5].config(), Voters({1, 2, 3, 4, 5}));
  EXPECT_EQ(net[5].ConfigAt(net[5].snapshot().index), Voters({1, 2, 3, 4}));
}

TEST(RaftVoterChange, AnUpdateChangesEndpointsButNotTheMajority) {
  Net net = DynamicNet(3);
  net.Elect(1);
  ASSERT_TRUE(net[1].ProposeVoterChange(VoterChange{.kind = VoterChange::Kind::kUpdate, .voter = VoterOf(3, 29093)})
                  .ok());
  net.Settle();
  for (NodeId id : {1, 2, 3}) {
    EXPECT_EQ(net[id].config().Find(3)->endpoints[0].port, 29093);
    EXPECT_EQ(net[id].config().ids(), (std::vector<NodeId>{1, 2, 3}));
  }
}

// A static quorum whose voters send their directory ids (those without: an older build);
// a node above 3 is added later and knows no voters.
Net StaticNet(std::set<NodeId> without_directory = {}) {
  return Net(std::vector<NodeId>{1, 2, 3}, [without_directory](Config& c) {
    if (c.id > 3) c.voters.clear();
    c.directory_id = without_directory.count(c.id) != 0 ? "" : Dir(c.id);
  });
}

VoterChange Upgrade(std::vector<NodeId> ids) {
  VoterChange change{.kind = VoterChange::Kind::kUpgrade};
  for (NodeId id : ids) {
    Voter v = VoterOf(id);
    v.directory_id.clear();  // as the controller asks: the core fills in what was answered
    change.voters.push_back(v);
  }
  return change;
}

TEST(RaftUpgrade, AStaticQuorumBecomesDynamicWithTheDirectoryIdsItsVotersAnswered) {
  Net net = StaticNet();
  net.Elect(1);
  net.Settle();
  ASSERT_TRUE(net[1].config().is_static());
  VoterChangeResult started = net[1].ProposeVoterChange(Upgrade({1, 2, 3}));
  ASSERT_TRUE(started.ok()) << started.message;
  net.Settle();
  ASSERT_EQ(net.change_results(1).size(), 1u);
  EXPECT_TRUE(net.change_results(1)[0].ok()) << net.change_results(1)[0].message;
  for (NodeId id : {1, 2, 3}) {
    EXPECT_FALSE(net[id].config().is_static()) << "node " << id;
    EXPECT_EQ(net[id].config(), Voters({1, 2, 3})) << "node " << id << ": the keys its voters answered with";
  }
  // As a dynamic quorum's first leader writes them: kraft.version, then the voters.
  const std::vector<Entry>& log = net.persisted_log(2);
  std::vector<EntryType> control;
  for (const Entry& e : log) {
    if (e.type != EntryType::kData) control.push_back(e.type);
  }
  EXPECT_EQ(control, (std::vector<EntryType>{EntryType::kKraftVersion, EntryType::kVoters}));
  // A restart of a node still configured static takes the log's voters.
  net.Start(3);
  EXPECT_EQ(net[3].config(), Voters({1, 2, 3}));
  // Voters change from now on.
  net.AddNode(4);
  ASSERT_TRUE(net[1].ProposeVoterChange(Add(4)).ok());
  net.Settle();
  EXPECT_EQ(net[4].config(), Voters({1, 2, 3, 4}));
  EXPECT_EQ(net[1].ProposeVoterChange(Upgrade({1, 2, 3, 4})).error, VoterChangeError::kInvalidRequest)
      << "dynamic already";
}

TEST(RaftUpgrade, AnUpgradeIsRefusedUntilEveryVoterAnsweredWithItsKeyAndChangesNothing) {
  Net net = StaticNet(/*without_directory=*/{3});
  net.Elect(1);
  net.Settle();
  VoterChangeResult unknown = net[1].ProposeVoterChange(Upgrade({1, 2, 3}));
  EXPECT_EQ(unknown.error, VoterChangeError::kInvalidRequest);
  EXPECT_TRUE(absl::StrContains(unknown.message, "voter 3's directory id is not known")) << unknown.message;
  VoterChangeResult others = net[1].ProposeVoterChange(Upgrade({1, 2}));
  EXPECT_EQ(others.error, VoterChangeError::kInvalidRequest);
  EXPECT_TRUE(absl::StrContains(others.message, "names voters [1, 2], not the quorum's [1, 2, 3]")) << others.message;
  EXPECT_EQ(net[2].ProposeVoterChange(Upgrade({1, 2, 3})).error, VoterChangeError::kNotLeader);
  EXPECT_FALSE(HasConfigurationEntry(net.persisted_log(1)));
  EXPECT_TRUE(net[1].config().is_static());

  Net keyed = StaticNet();
  keyed.Elect(1);
  keyed.Settle();
  VoterChange wrong = Upgrade({1, 2, 3});
  wrong.voters[1].directory_id = Dir(9);
  VoterChangeResult refused = keyed[1].ProposeVoterChange(wrong);
  EXPECT_EQ(refused.error, VoterChangeError::kInvalidVoterKey);
  EXPECT_TRUE(absl::StrContains(refused.message, "voter 2 answers with directory id")) << refused.message;
  EXPECT_FALSE(HasConfigurationEntry(keyed.persisted_log(1)));
}

TEST(RaftUpgrade, AnUpgradeNotCommittedIsUndoneWithItsEntries) {
  Raft raft(ConfigOf(2, {1, 2, 3}), HardState{}, {});
  raft.Step(AppendFrom(1, 2, 1, 0, 0,
                       {Entry{1, 1, ""}, Entry{1, 2, EncodeKraftVersion(kKraftVersionDynamic), EntryType::kKraftVersion},
                        VotersEntry(1, 3, {1, 2, 3})}));
  EXPECT_FALSE(raft.config().is_static());
  raft.Step(AppendFrom(3, 2, 2, 1, 1, {Entry{2, 2, "x"}}));
  EXPECT_TRUE(raft.config().is_static()) << "the leader of term 2 never had the upgrade";
  EXPECT_EQ(raft.config().ids(), (std::vector<NodeId>{1, 2, 3}));
}

}  // namespace
}  // namespace strata::raft
