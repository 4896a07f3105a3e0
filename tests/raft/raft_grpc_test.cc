// Three RaftNodes in one process talking real gRPC over 127.0.0.1 (free ports), each
// with its metadata log on disk: commits through the gRPC transport, a stopped leader is
// replaced, a follower behind the compacted log receives a snapshot through
// InstallSnapshot, and an observer follows the committed log (snapshot first). Figures
// are printed (commit latency, proposals/s, failover time), never asserted.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <atomic>
#include <filesystem>
#include <thread>
#include <iostream>

#include <grpcpp/grpcpp.h>

#include "raft.grpc.pb.h"
#include "raft/grpc_transport.h"
#include "raft/observer.h"
#include "raft/raft_node.h"
#include "tests/support/grpc_quorum.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::raft {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::GrpcQuorum;

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

TEST(RaftGrpc, CommitsOverGrpcAndFailsOverWhenTheLeaderStops) {
  GrpcQuorum q;
  ASSERT_NE(q.WaitForLeader(), kNoNode);
  // Commit latency: one proposal at a time, until applied on the leader.
  std::vector<double> latencies_ms;
  auto start = Clock::now();
  for (int i = 0; i < 300; ++i) {
    auto t0 = Clock::now();
    auto index = q.Propose("p" + std::to_string(i));
    if (!index.ok()) {
      --i;  // a leader change: retry
      continue;
    }
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "raft_grpc_commit_latency_ms p50=" << Percentile(latencies_ms, 0.5)
            << " p99=" << Percentile(latencies_ms, 0.99) << " proposals_per_s(sequential)=" << 300 / seconds
            << " (3 voters in one process over gRPC on 127.0.0.1, fsync per Ready)" << std::endl;
  // Failover: stop the leader; time until a proposal commits again.
  NodeId leader = q.WaitForLeader();
  auto t0 = Clock::now();
  q.Stop(leader);
  absl::StatusOr<Index> after;
  for (int attempt = 0; attempt < 100; ++attempt) {
    after = q.Propose("after-failover");
    if (after.ok()) break;
  }
  ASSERT_TRUE(after.ok()) << after.status();
  NodeId new_leader = q.WaitForLeader();
  EXPECT_NE(new_leader, leader);
  std::cout << "raft_grpc_failover_ms=" << std::chrono::duration<double, std::milli>(Clock::now() - t0).count()
            << " (leader stopped -> next proposal committed; election timeout 100-200 ms)" << std::endl;
}

// GrpcTransport::SetPeers (a dynamic quorum's voters change): a leader whose peers are
// all taken away reaches nobody, so the others elect a new leader and commit without
// it; given its peers back, it catches up.
TEST(RaftGrpc, PeersReplacedAtRunTimeAreUsedAtOnce) {
  GrpcQuorum q;
  NodeId cut = q.WaitForLeader();
  ASSERT_NE(cut, kNoNode);
  ASSERT_TRUE(q.Propose("before").ok());
  std::map<NodeId, std::string> peers;
  for (NodeId id : q.ids_) {
    if (id != cut) peers[id] = q.address(id);
  }
  q.transport(cut).SetPeers({});
  absl::StatusOr<Index> during;
  ASSERT_TRUE(testing::WaitUntil([&] {
    NodeId leader = q.WaitForLeader(100ms);
    if (leader == kNoNode || leader == cut) return false;
    during = q.node(leader).Propose("without " + std::to_string(cut), 2s);
    return during.ok();
  }, 20s)) << during.status();
  // The others still reach it, but it answers nobody: the leader never saw it take the
  // entry.
  auto match_of_cut = [&] {
    NodeId leader = q.WaitForLeader(100ms);
    if (leader == kNoNode) return Index{-1};
    for (const auto& v : q.node(leader).status().voters) {
      if (v.id == cut) return v.match;
    }
    return Index{-1};
  };
  EXPECT_LT(match_of_cut(), *during);
  q.transport(cut).SetPeers(peers);
  auto after = q.Propose("after");
  ASSERT_TRUE(after.ok()) << after.status();
  ASSERT_TRUE(testing::WaitUntil([&] { return match_of_cut() >= *after; }, 10s)) << match_of_cut();
  ASSERT_TRUE(testing::WaitUntil([&] { return q.node(cut).status().applied >= *after; }, 10s));
}

TEST(RaftGrpc, AMalformedMessageIsRefusedAndNeverReachesTheCore) {
  auto server = RaftServer::Start("127.0.0.1:0");
  ASSERT_TRUE(server.ok());
  auto stub = v1::RaftTransport::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));
  v1::RaftBatch batch;
  v1::RaftMessage* m = batch.add_messages();
  m->set_type(v1::APPEND);
  m->set_term(1);
  m->set_index(5);
  v1::LogEntry* e = m->add_entries();
  e->set_index(9);  // not index + 1
  e->set_term(1);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::DeliverResponse response;
  grpc::Status status = stub->Deliver(&context, batch, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
}

TEST(RaftGrpc, ACallFromAnotherClusterOrForAnotherNodeIsRefusedAndNeverReachesTheCore) {
  // Another cluster's node may be left sending to a reused address (a restart on a port
  // this cluster took): its heartbeats would make a follower here take it for its leader.
  auto server = RaftServer::Start("127.0.0.1:0", {}, "cluster-a");
  ASSERT_TRUE(server.ok());
  auto stub = v1::RaftTransport::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));
  auto deliver = [&](const std::string& cluster) {
    v1::RaftBatch batch;
    batch.set_cluster_id(cluster);
    v1::RaftMessage* m = batch.add_messages();
    m->set_type(v1::HEARTBEAT);
    m->set_term(7);
    m->set_from(3);
    m->set_to(1);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    v1::DeliverResponse response;
    return stub->Deliver(&context, batch, &response);
  };
  EXPECT_EQ(deliver("cluster-b").error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(deliver("").error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(deliver("cluster-a").error_code(), grpc::StatusCode::UNAVAILABLE) << "ours: on to the (absent) node";
  grpc::ClientContext context;
  v1::ObserveRequest observe;
  observe.set_cluster_id("cluster-b");
  v1::ObserveResponse response;
  auto reader = stub->Observe(&context, observe);
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST(RaftGrpc, AMessageForAnotherNodeIsRefusedAndNeverReachesTheCore) {
  GrpcQuorum q;
  NodeId leader = q.WaitForLeader();
  ASSERT_NE(leader, kNoNode);
  NodeId follower = leader == 1 ? 2 : 1;
  Term term = q.node(follower).status().term;
  auto stub = v1::RaftTransport::NewStub(grpc::CreateChannel(q.address(follower), grpc::InsecureChannelCredentials()));
  v1::RaftBatch batch;
  v1::RaftMessage* m = batch.add_messages();
  m->set_type(v1::HEARTBEAT);
  m->set_term(term + 1000);  // would move the follower there (no election gets that far meanwhile)
  m->set_from(3);
  m->set_to(follower == 1 ? 2 : 1);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::DeliverResponse response;
  EXPECT_EQ(stub->Deliver(&context, batch, &response).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(q.node(follower).status().term, term + 1000);
}

std::vector<std::string> Data(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const Entry& e : entries) out.push_back(e.data);
  return out;
}

int SegmentFiles(const std::string& metadata_log_dir) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(metadata_log_dir + "/__cluster_metadata-0")) {
    n += entry.path().extension() == ".log";
  }
  return n;
}

TEST(RaftGrpc, AFollowerBehindTheCompactedLogGetsASnapshotThroughInstallSnapshot) {
  // A snapshot every ~2 KB of entries, 4 KB segments: the log is compacted often.
  GrpcQuorum q(/*snapshot_bytes=*/2000, /*segment_bytes=*/4096);
  NodeId leader = q.WaitForLeader();
  ASSERT_NE(leader, kNoNode);
  NodeId lagging = leader == 3 ? 2 : 3;
  q.Stop(lagging);
  for (int i = 0; i < 300; ++i) ASSERT_TRUE(q.Propose("entry-" + std::to_string(i) + std::string(80, 'x')).ok());
  leader = q.WaitForLeader();
  RaftNodeStatus st = q.node(leader).status();
  EXPECT_GT(st.snapshots_taken, 5);
  EXPECT_GT(st.snapshot_index, 200);
  // Whole segments below the previous snapshot are gone: of ~30 KB of entries in 4 KB
  // segments, the ~2-4 KB since the previous snapshot are left.
  EXPECT_LE(SegmentFiles(q.dir(leader)), 3);
  q.Start(lagging);
  ASSERT_TRUE(testing::WaitUntil([&] { return q.node(lagging).status().applied >= st.commit; }, 20s));
  EXPECT_GE(q.node(lagging).status().snapshots_installed, 1);
  // Its state machine was restored from the snapshot and matches the leader's.
  auto commit = static_cast<size_t>(st.commit);
  EXPECT_EQ(Data(q.state_machine(lagging).Read(1, commit)), Data(q.state_machine(leader).Read(1, commit)));
  // And it takes part again: a new entry is applied there.
  auto index = q.Propose("after-snapshot");
  ASSERT_TRUE(index.ok());
  ASSERT_TRUE(testing::WaitUntil([&] { return q.node(lagging).status().applied >= *index; }, 10s));
  EXPECT_EQ(q.state_machine(lagging).Read(*index, 1).at(0).data, "after-snapshot");
  // A restart of the compacted node resumes from its own snapshot.
  q.Stop(lagging);
  q.Start(lagging);
  EXPECT_GE(q.node(lagging).status().snapshot_index, st.snapshot_index);
  ASSERT_TRUE(testing::WaitUntil([&] { return q.node(lagging).status().applied >= *index; }, 10s));
  EXPECT_EQ(q.state_machine(lagging).Read(*index, 1).at(0).data, "after-snapshot");
}

TEST(RaftGrpc, AnObserverFollowsTheCommittedLogSnapshotFirstAndAcrossLeaderChanges) {
  GrpcQuorum q(/*snapshot_bytes=*/2000, /*segment_bytes=*/4096);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(q.Propose("early-" + std::to_string(i) + std::string(80, 'y')).ok());
  NodeId leader = q.WaitForLeader();
  ASSERT_GT(q.node(leader).status().snapshot_index, 0);
  AppliedLog observed;
  RaftObserverOptions o;
  for (NodeId id : q.ids_) o.voters.push_back({id, q.address(id)});
  o.state_machine = &observed;
  o.dir = q.observer_dir();
  o.persist_log = true;
  auto observer = RaftObserver::Start(o);
  ASSERT_TRUE(observer.ok()) << observer.status();
  Index commit = q.node(leader).status().commit;
  ASSERT_TRUE((*observer)->WaitForApplied(commit, 20s)) << "applied " << (*observer)->applied();
  EXPECT_GE((*observer)->snapshots_restored(), 1);  // entry 1 was compacted away everywhere
  EXPECT_EQ(Data(observed.Read(1, static_cast<size_t>(commit))),
            Data(q.state_machine(leader).Read(1, static_cast<size_t>(commit))));
  // New entries stream in as they commit, also after the leader (maybe the node the
  // observer follows) stops.
  auto index = q.Propose("live");
  ASSERT_TRUE(index.ok());
  ASSERT_TRUE((*observer)->WaitForApplied(*index, 10s));
  q.Stop(q.WaitForLeader());
  absl::StatusOr<Index> later;
  for (int attempt = 0; attempt < 100 && !later.ok(); ++attempt) later = q.Propose("after-failover");
  ASSERT_TRUE(later.ok()) << later.status();
  ASSERT_TRUE((*observer)->WaitForApplied(*later, 20s)) << "applied " << (*observer)->applied();
  EXPECT_EQ(observed.Read(*later, 1).at(0).data, "after-failover");
  // The observer kept its own copy of the metadata log: durable before it was applied.
  observer->reset();
  auto log = RaftStorage::Open(*storage::FileOps::Default(), q.observer_dir());
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_GE((*log)->last_index(), *later);
  auto copy = (*log)->ReadFrom(*later, *later, 1 << 20);
  ASSERT_TRUE(copy.ok()) << copy.status();
  ASSERT_EQ(copy->size(), 1u);
  EXPECT_EQ(copy->at(0).data, "after-failover");
}

// A voter's RaftTransport that serves Observe badly: a stream that sends nothing (its
// connection went silent, as in a network partition; a blackhole cannot be made in
// process) or keep-alives naming no leader (a voter cut off from its quorum).
class BadVoter final : public v1::RaftTransport::Service {
 public:
  enum class Mode { kSilent, kLeaderless };
  explicit BadVoter(Mode mode) : mode_(mode) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(this);
    server_ = builder.BuildAndStart();
  }
  ~BadVoter() override { server_->Shutdown(std::chrono::system_clock::now()); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int calls() const { return calls_.load(); }

  grpc::Status Observe(grpc::ServerContext* context, const v1::ObserveRequest*,
                       grpc::ServerWriter<v1::ObserveResponse>* writer) override {
    ++calls_;
    while (!context->IsCancelled()) {
      if (mode_ == Mode::kLeaderless) {
        v1::ObserveResponse keep_alive;  // commit_index 0, leader_id 0
        if (!writer->Write(keep_alive)) break;
      }
      std::this_thread::sleep_for(20ms);  // a server's pace, not a test's synchronisation
    }
    return grpc::Status::OK;
  }

 private:
  const Mode mode_;
  int port_ = 0;
  std::atomic<int> calls_{0};
  std::unique_ptr<grpc::Server> server_;
};

TEST(RaftGrpc, AnObserverLeavesAVoterThatGoesSilentOrKnowsNoLeader) {
  GrpcQuorum q;
  BadVoter silent(BadVoter::Mode::kSilent);
  BadVoter leaderless(BadVoter::Mode::kLeaderless);
  AppliedLog observed;
  RaftObserverOptions o;
  o.voters.push_back({7, silent.address()});  // followed first
  o.voters.push_back({8, leaderless.address()});
  for (NodeId id : q.ids_) o.voters.push_back({id, q.address(id)});
  o.state_machine = &observed;
  o.dir = q.observer_dir();
  o.stall_timeout = 300ms;
  auto observer = RaftObserver::Start(o);
  ASSERT_TRUE(observer.ok()) << observer.status();
  auto index = q.Propose("past-the-bad-voters");
  ASSERT_TRUE(index.ok()) << index.status();
  // Without the stall check the observer waits on the silent voter for ever.
  ASSERT_TRUE((*observer)->WaitForApplied(*index, 20s)) << "applied " << (*observer)->applied();
  EXPECT_EQ(observed.Read(*index, 1).at(0).data, "past-the-bad-voters");
  EXPECT_GE(silent.calls(), 1);
  EXPECT_GE(leaderless.calls(), 1);
  EXPECT_GE((*observer)->stalls(), 2);
}

// A dynamic quorum's voters change (KIP-853): an observer that knows only a voter that no
// longer answers follows the voters it is given.
TEST(RaftGrpc, AnObserverFollowsTheVotersItIsGiven) {
  GrpcQuorum q;
  BadVoter silent(BadVoter::Mode::kSilent);
  AppliedLog observed;
  RaftObserverOptions o;
  o.voters.push_back({7, silent.address()});
  o.state_machine = &observed;
  o.dir = q.observer_dir();
  o.stall_timeout = 300ms;
  auto observer = RaftObserver::Start(o);
  ASSERT_TRUE(observer.ok()) << observer.status();
  auto index = q.Propose("after-the-change");
  ASSERT_TRUE(index.ok()) << index.status();
  // It gave up on the silent voter twice, and has nothing else to follow.
  ASSERT_TRUE(testing::WaitUntil([&] { return (*observer)->stalls() >= 2; }, 20s));
  EXPECT_EQ((*observer)->applied(), 0);
  std::vector<ObservedVoter> voters;
  for (NodeId id : q.ids_) voters.push_back({id, q.address(id)});
  (*observer)->SetVoters(voters);
  ASSERT_TRUE((*observer)->WaitForApplied(*index, 20s)) << "applied " << (*observer)->applied();
  EXPECT_EQ(observed.Read(*index, 1).at(0).data, "after-the-change");
}

// KRaft's observers fetch from the leader: one that starts at a follower voter moves to
// the leader it names, and after a leader change to the new one.
TEST(RaftGrpc, AnObserverStreamsFromTheLeader) {
  GrpcQuorum q;
  NodeId leader = q.WaitForLeader();
  ASSERT_NE(leader, kNoNode);
  AppliedLog observed;
  RaftObserverOptions o;
  for (NodeId id : q.ids_) {
    if (id != leader) o.voters.push_back({id, q.address(id)});  // followers first
  }
  o.voters.push_back({leader, q.address(leader)});
  o.state_machine = &observed;
  o.dir = q.observer_dir();
  auto observer = RaftObserver::Start(o);
  ASSERT_TRUE(observer.ok()) << observer.status();
  auto index = q.Propose("first");
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_TRUE((*observer)->WaitForApplied(*index, 20s));
  ASSERT_TRUE(testing::WaitUntil([&] { return (*observer)->streaming_from() == leader; }, 20s))
      << "streaming from " << (*observer)->streaming_from() << ", leader " << leader;
  // The leader stops: the observer follows whichever voter leads next.
  q.Stop(leader);
  NodeId next = q.WaitForLeader();
  ASSERT_NE(next, kNoNode);
  index = q.Propose("second");
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_TRUE((*observer)->WaitForApplied(*index, 20s));
  EXPECT_EQ(observed.Read(*index, 1).at(0).data, "second");
  ASSERT_TRUE(testing::WaitUntil([&] { return (*observer)->streaming_from() == next; }, 20s))
      << "streaming from " << (*observer)->streaming_from() << ", leader " << next;
}

}  // namespace
}  // namespace strata::raft

