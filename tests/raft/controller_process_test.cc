// Three real strata-server controller processes on 127.0.0.1 (free ports, temp dirs).
// Proposals are metadata entries (a broker config each), read back with DescribeConfigs:
// proposals commit; kill -9 of the leader elects another and committed entries survive;
// the killed node restarts and catches up (the nodes snapshot every few dozen entries,
// so restarts load snapshots and followers install them); a node whose metadata log dir
// runs out of space, or whose metadata log files are deleted, stops itself with one
// ERROR line and a non-zero exit; /metrics names the leader; many proposals in flight
// all commit. Prints (never asserts) commit latency, proposals/s of one client and
// failover times (STRATA_FAILOVER_RUNS kill/restart cycles, default 3); proposals/s with
// many in flight: tests/bench/controller_proposals_bench.cc. The processes:
// tests/support/controller_processes.h. Every process is killed at the end, whatever
// happens.

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <chrono>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include "admin.grpc.pb.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/lifecycle/producer_id_manager.h"
#include "proto/kafka/error_code.h"
#include "metadata.pb.h"
#include "raft.grpc.pb.h"
#include "storage/meta_properties.h"
#include "tests/support/controller_processes.h"
#include "tests/support/free_port.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::raft {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Everything in `acknowledged` that `applied` lacks.
std::vector<std::string> Missing(const std::vector<std::string>& applied, const std::vector<std::string>& acknowledged) {
  std::vector<std::string> sorted_applied = Sorted(applied), missing;
  for (const std::string& name : Sorted(acknowledged)) {
    if (!std::binary_search(sorted_applied.begin(), sorted_applied.end(), name)) missing.push_back(name);
  }
  return missing;
}

// Many proposals in flight at once (16 clients, one proposal each at a time, through
// whichever node leads): every one is acknowledged, and every node applies every one.
// (The proposals/s figure: tests/bench/controller_proposals_bench.cc.)
TEST(ControllerProcesses, ManyProposalsInFlightAllCommit) {
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0) << ReadFile(c.Log(1));
  constexpr int kClients = 16, kEach = 20;
  std::vector<std::vector<std::string>> refused(kClients);
  std::vector<std::thread> threads;
  for (int k = 0; k < kClients; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < kEach; ++i) {
        std::string name = "m" + std::to_string(k) + "-" + std::to_string(i);
        if (c.Propose(name) <= 0) refused[k].push_back(name);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::string> proposed, not_acknowledged;
  for (int k = 0; k < kClients; ++k) {
    for (int i = 0; i < kEach; ++i) proposed.push_back("m" + std::to_string(k) + "-" + std::to_string(i));
    not_acknowledged.insert(not_acknowledged.end(), refused[k].begin(), refused[k].end());
  }
  EXPECT_TRUE(not_acknowledged.empty()) << not_acknowledged.size() << " proposals not acknowledged, e.g. "
                                        << not_acknowledged.front();
  for (int id = 1; id <= 3; ++id) {
    EXPECT_TRUE(testing::WaitUntil([&] { return Missing(c.Applied(id), proposed).empty(); }, 20s))
        << "node " << id << " lacks " << Missing(c.Applied(id), proposed).size() << " of the " << proposed.size()
        << " proposals, e.g. '" << Missing(c.Applied(id), proposed).front() << "'";
  }
}

TEST(ControllerProcesses, KillNineOfTheLeaderLosesNoCommittedEntry) {
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0) << ReadFile(c.Log(1));
  std::vector<std::string> committed;
  std::vector<double> latencies_ms;
  auto start = Clock::now();
  for (int i = 0; i < 200; ++i) {
    std::string data = "p" + std::to_string(i);
    auto t0 = Clock::now();
    ASSERT_GT(c.Propose(data), 0) << data;
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    committed.push_back(data);
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::cout << "controller_processes_commit_latency_ms p50=" << Percentile(latencies_ms, 0.5)
            << " p99=" << Percentile(latencies_ms, 0.99) << " proposals_per_s(one client, sequential)="
            << 200 / seconds << std::endl;

  // Proposals from many clients at once: the ones the leader acknowledged join what must
  // survive (a proposal that timed out at the client may have committed too, or not).
  ClientProposals in_flight = ProposeFromClients(c, 16, 1s);
  ASSERT_FALSE(in_flight.acknowledged.empty()) << "no proposal of 16 clients in flight was acknowledged";
  committed.insert(committed.end(), in_flight.acknowledged.begin(), in_flight.acknowledged.end());

  int runs = 3;
  if (const char* env = std::getenv("STRATA_FAILOVER_RUNS")) runs = std::max(1, std::atoi(env));
  std::vector<double> failover_ms;
  for (int run = 0; run < runs; ++run) {
    int leader = c.WaitForLeader();
    ASSERT_NE(leader, 0);
    auto t0 = Clock::now();
    c.Kill9(leader);
    std::string data = "after-kill-" + std::to_string(run);
    ASSERT_GT(c.Propose(data), 0) << data << ReadFile(c.Log(1)) << ReadFile(c.Log(2)) << ReadFile(c.Log(3));
    failover_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    committed.push_back(data);
    int new_leader = c.WaitForLeader();
    ASSERT_NE(new_leader, leader);
    // Everything acknowledged before the kill is still there.
    std::vector<std::string> applied = c.Applied(new_leader);
    std::vector<std::string> lost = Missing(applied, committed);
    ASSERT_TRUE(lost.empty()) << "run " << run << ": " << lost.size() << " of " << committed.size()
                              << " acknowledged proposals are not applied on the new leader, e.g. '" << lost.front()
                              << "'";
    // The killed node restarts from its metadata log and catches up: it applies what the
    // new leader applied (nothing is proposed meanwhile).
    c.Start(leader);
    ASSERT_TRUE(testing::WaitUntil([&] { return c.Applied(leader) == applied; }, 20s))
        << Missing(c.Applied(leader), applied).size() << " entries missing; " << ReadFile(c.Log(leader));
  }
  std::cout << "controller_processes_failover_ms median=" << Percentile(failover_ms, 0.5)
            << " max=" << *std::max_element(failover_ms.begin(), failover_ms.end()) << " runs=" << runs
            << " (kill -9 of the leader -> next proposal committed; election timeout 200-400 ms)" << std::endl;
}

TEST(ControllerProcesses, ANodeWhoseMetadataLogDiskFillsUpStopsItself) {
  testing::TempDir mount_point;
  if (mount("tmpfs", mount_point.path().c_str(), "tmpfs", 0, "size=4m") != 0) {
    GTEST_SKIP() << "mounting a small tmpfs needs root (CI runs as root): " << strerror(errno);
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount_point.path()};
  Controllers c({{3, mount_point.path() + "/metadata"}});
  ASSERT_NE(c.WaitForLeader(), 0);
  ASSERT_GT(c.Propose("before-full"), 0);
  // Fill the disk under node 3's metadata log.
  {
    std::ofstream filler(mount_point.path() + "/filler", std::ios::binary);
    std::string block(64 << 10, 'x');
    while (filler.write(block.data(), block.size())) {
    }
  }
  // Keep proposing (node 3 may lead): the cluster must go on, and node 3 must stop.
  int exit_code = -1;
  for (int i = 0; i < 50 && exit_code < 0; ++i) {
    c.Propose(std::string(16 << 10, 'y'), 5s);
    exit_code = c.WaitExit(3, 100ms);
  }
  if (exit_code < 0) exit_code = c.WaitExit(3, 10s);
  EXPECT_EQ(exit_code, 70) << ReadFile(c.Log(3));
  std::string log = ReadFile(c.Log(3));
  EXPECT_NE(log.find("[error] node 3: metadata log failure, stopping"), std::string::npos) << log;
  EXPECT_NE(log.find("No space left on device"), std::string::npos) << log;
  ASSERT_GT(c.Propose("after-node-3-stopped"), 0) << ReadFile(c.Log(1)) << ReadFile(c.Log(2));  // still a quorum
}

TEST(ControllerProcesses, ANodeWhoseMetadataLogFilesAreDeletedStopsItself) {
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0);
  ASSERT_GT(c.Propose("before"), 0);
  // An operator's mistake: node 2's metadata log directory is emptied under it.
  std::filesystem::remove_all(c.MetadataDir(2));
  EXPECT_EQ(c.WaitExit(2, 10s), 70) << ReadFile(c.Log(2));
  std::string log = ReadFile(c.Log(2));
  EXPECT_NE(log.find("[error] node 2: metadata log failure, stopping"), std::string::npos) << log;
  // Named either by the periodic check ("... was removed") or by the write that found it
  // first (opening the removed directory: ENOENT), whichever ran first.
  EXPECT_TRUE(log.find("was removed") != std::string::npos ||
              log.find("__cluster_metadata-0: No such file or directory") != std::string::npos)
      << log;
  ASSERT_GT(c.Propose("after-node-2-stopped"), 0);
}

// A controller whose port another process holds exits with the startup code (2) and the
// reason. It crashed instead on its way out (a server that never started was detached).
TEST(ControllerProcesses, AControllerWhosePortIsTakenExitsNamingIt) {
  testing::TempDir tmp;
  int holder = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(holder, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  ASSERT_EQ(getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string dir = tmp.Sub("metadata");
  ASSERT_TRUE(storage::FormatDirectory(*storage::FileOps::Default(), dir, storage::NewBase64Uuid(), 1).ok());
  std::ofstream(tmp.Sub("c.properties")) << "node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@127.0.0.1:"
                                         << ntohs(address.sin_port) << "\nmetadata.log.dir=" << dir << "\n";
  const std::string command = std::string("timeout 60 ") + STRATA_SERVER_PATH + " --config " +
                              tmp.Sub("c.properties") + " > " + tmp.Sub("out.log") + " 2>&1";
  int status = std::system(command.c_str());
  close(holder);
  std::string log = ReadFile(tmp.Sub("out.log"));
  ASSERT_TRUE(WIFEXITED(status)) << status << log;
  EXPECT_EQ(WEXITSTATUS(status), 2) << log;
  EXPECT_NE(log.find("cannot start the controller"), std::string::npos) << log;
}

TEST(ControllerProcesses, MetricsNameTheLeaderAndTheCommitIndex) {
  Controllers c;
  int leader = c.WaitForLeader();
  ASSERT_NE(leader, 0);
  int64_t index = c.Propose("measured");
  ASSERT_GT(index, 0);
  for (int id = 1; id <= 3; ++id) {
    // Followers learn the commit index with the next heartbeat.
    std::string metrics;
    ASSERT_TRUE(testing::WaitUntil([&] {
      metrics = c.ScrapeMetrics(id);
      return Controllers::MetricValue(metrics, "strata_raft_commit_index") >= index;
    }, 10s)) << "node " << id << ":\n" << metrics;
    EXPECT_EQ(Controllers::MetricValue(metrics, "strata_raft_current_leader"), leader) << metrics;
    EXPECT_EQ(Controllers::MetricValue(metrics, "strata_raft_is_leader"), id == leader ? 1 : 0) << metrics;
    EXPECT_GE(Controllers::MetricValue(metrics, "strata_raft_current_term"), 1) << metrics;
    EXPECT_GE(Controllers::MetricValue(metrics, "strata_raft_elections_total"), 0) << metrics;
  }
}

// A caught-up broker's heartbeat, naming the partitions its tier state machine cannot
// yet build (tier_state_failing) and its offline log dirs; the answer.
strata::controller::v1::BrokerHeartbeatResponse Heartbeat(broker::ControllerClient& client, int32_t broker,
                                                          int64_t epoch,
                                                          const std::vector<std::string>& tier_state_failing = {},
                                                          const std::vector<std::string>& offline_log_dirs = {}) {
  namespace cv1 = strata::controller::v1;
  cv1::BrokerHeartbeatRequest hb;
  hb.set_broker_id(broker);
  hb.set_broker_epoch(epoch);
  hb.set_current_metadata_offset(1'000'000);  // caught up
  for (const auto& tp : tier_state_failing) hb.add_tier_state_failing(tp);
  for (const auto& dir : offline_log_dirs) hb.add_offline_log_dirs(dir);
  cv1::BrokerHeartbeatResponse beat;
  EXPECT_TRUE(client.CallController(&cv1::ControllerService::Stub::BrokerHeartbeat, hb, &beat, 20s).ok());
  EXPECT_EQ(beat.error_code(), 0) << beat.error_message();
  return beat;
}

// Broker b's log dir n, a 16-byte directory id.
std::string LogDir(int32_t broker, int n) {
  std::string dir = "dir-" + std::to_string(broker) + "-" + std::to_string(n);
  dir.resize(16, '.');
  return dir;
}

// Registers the brokers (each with `log_dirs` directory ids, LogDir) and heartbeats each
// once, caught up, as broker processes do: they are unfenced. Their broker epochs.
std::map<int32_t, int64_t> RegisterUnfencedBrokers(broker::ControllerClient& client, std::vector<int32_t> brokers,
                                                   int log_dirs = 0) {
  namespace cv1 = strata::controller::v1;
  std::map<int32_t, int64_t> epochs;
  for (int32_t broker : brokers) {
    cv1::BrokerRegistrationRequest reg;
    reg.set_broker_id(broker);
    reg.set_incarnation_id(std::string(16, static_cast<char>(broker)));
    for (int n = 0; n < log_dirs; ++n) reg.add_log_dirs(LogDir(broker, n));
    cv1::BrokerRegistrationResponse registered;
    EXPECT_TRUE(client.CallController(&cv1::ControllerService::Stub::BrokerRegistration, reg, &registered, 20s).ok());
    EXPECT_EQ(registered.error_code(), 0) << registered.error_message();
    epochs[broker] = registered.broker_epoch();
    EXPECT_FALSE(Heartbeat(client, broker, registered.broker_epoch()).is_fenced());
  }
  return epochs;
}

// Creates a topic of one partition with two replicas through AdminService; its id
// (empty when refused).
std::string CreateTopicOfOnePartition(broker::ControllerClient& client, const std::string& name) {
  namespace av1 = strata::admin::v1;
  av1::CreateTopicsRequest create;
  auto* topic = create.add_topics();
  topic->set_name(name);
  topic->set_num_partitions(1);
  topic->set_replication_factor(2);
  av1::CreateTopicsResponse created;
  EXPECT_TRUE(client.CallAdmin(&av1::AdminService::Stub::CreateTopics, create, &created, 20s).ok());
  if (created.topics_size() != 1 || created.topics(0).error_code() != 0) {
    ADD_FAILURE() << "CreateTopics " << name << ": " << created.ShortDebugString();
    return "";
  }
  return created.topics(0).topic_id();
}

// The only partition of topic as DescribeTopics answers it.
strata::admin::v1::PartitionDescription DescribeOnlyPartition(broker::ControllerClient& client,
                                                             const std::string& topic) {
  namespace av1 = strata::admin::v1;
  av1::DescribeTopicsRequest request;
  request.add_names(topic);
  av1::DescribeTopicsResponse response;
  EXPECT_TRUE(client.CallAdmin(&av1::AdminService::Stub::DescribeTopics, request, &response, 20s).ok());
  return response.topics(0).partitions(0);
}

// AlterPartition end to end over gRPC against real controllers: two brokers register and
// heartbeat (as broker processes do), a topic is created through AdminService, and the
// partition's leader shrinks its ISR; a stale partition epoch and a non-leader are
// refused, and DescribeTopics shows the new ISR.
TEST(ControllerProcesses, ALeaderChangesItsIsrThroughAlterPartition) {
  namespace cv1 = strata::controller::v1;
  namespace av1 = strata::admin::v1;
  using proto::kafka::ErrorCode;
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0);
  broker::ControllerClient client(c.Voters());
  std::map<int32_t, int64_t> epochs = RegisterUnfencedBrokers(client, {101, 102});
  const std::string topic_id = CreateTopicOfOnePartition(client, "isr");
  ASSERT_FALSE(topic_id.empty());
  auto describe = [&] { return DescribeOnlyPartition(client, "isr"); };
  auto before = describe();
  int32_t leader = before.leader();
  int32_t follower = leader == 101 ? 102 : 101;
  ASSERT_EQ(before.isr_size(), 2);

  auto alter = [&](int32_t from, int32_t partition_epoch) {
    cv1::AlterPartitionRequest request;
    request.set_broker_id(from);
    request.set_broker_epoch(epochs[from]);
    auto* p = request.add_partitions();
    p->set_topic_id(topic_id);
    p->set_partition_id(0);
    p->set_leader_epoch(before.leader_epoch());
    p->set_partition_epoch(partition_epoch);
    p->add_new_isr(leader);
    cv1::AlterPartitionResponse response;
    EXPECT_TRUE(client.CallController(&cv1::ControllerService::Stub::AlterPartition, request, &response, 20s).ok());
    return response;
  };
  auto shrunk = alter(leader, /*partition_epoch=*/0);
  ASSERT_EQ(shrunk.partitions(0).error_code(), 0) << shrunk.partitions(0).error_message();
  EXPECT_EQ(shrunk.partitions(0).isr_size(), 1);
  EXPECT_EQ(shrunk.partitions(0).partition_epoch(), 1);
  EXPECT_EQ(alter(leader, 0).partitions(0).error_code(), static_cast<int32_t>(ErrorCode::kInvalidUpdateVersion));
  EXPECT_EQ(alter(follower, 1).partitions(0).error_code(), static_cast<int32_t>(ErrorCode::kNotLeaderOrFollower));
  auto after = describe();
  ASSERT_EQ(after.isr_size(), 1);
  EXPECT_EQ(after.isr(0), leader);
}

// AssignReplicasToDirs end to end over gRPC against real controllers: three brokers
// register with two log dirs each and a topic of one partition gets two of them (each
// replica in its broker's dir 0, the controller's choice for partition 0). A replica's
// broker moves it to its dir 1: dir 0 going offline leaves the replica online, dir 1 going
// offline takes it offline (DescribeTopics). A broker that is not a replica, an offline
// dir and a stale broker epoch are refused.
TEST(ControllerProcesses, AReplicaMovedToAnotherLogDirGoesOfflineWithThatDir) {
  namespace cv1 = strata::controller::v1;
  namespace av1 = strata::admin::v1;
  using proto::kafka::ErrorCode;
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0);
  broker::ControllerClient client(c.Voters());
  std::map<int32_t, int64_t> epochs = RegisterUnfencedBrokers(client, {101, 102, 103}, /*log_dirs=*/2);
  const std::string topic_id = CreateTopicOfOnePartition(client, "moved");
  ASSERT_FALSE(topic_id.empty());
  auto describe = [&] { return DescribeOnlyPartition(client, "moved"); };
  auto before = describe();
  ASSERT_EQ(before.replicas_size(), 2);
  const int32_t mover = before.replicas(1);
  int32_t outsider = 0;
  for (int32_t b : {101, 102, 103}) {
    if (b != before.replicas(0) && b != mover) outsider = b;
  }
  auto assign = [&](int32_t from, int64_t epoch, const std::string& dir) {
    cv1::AssignReplicasToDirsRequest request;
    request.set_broker_id(from);
    request.set_broker_epoch(epoch);
    auto* a = request.add_assignments();
    a->set_topic_id(topic_id);
    a->set_partition_id(0);
    a->set_directory_id(dir);
    cv1::AssignReplicasToDirsResponse response;
    EXPECT_TRUE(client.CallController(&cv1::ControllerService::Stub::AssignReplicasToDirs, request, &response, 20s).ok());
    return response;
  };
  // The partition's result, or the request's error when there is none.
  auto code = [](const cv1::AssignReplicasToDirsResponse& r) {
    return static_cast<ErrorCode>(r.partitions_size() == 1 ? r.partitions(0).error_code() : r.error_code());
  };
  auto moved = assign(mover, epochs[mover], LogDir(mover, 1));
  ASSERT_EQ(moved.error_code(), 0) << moved.error_message();
  ASSERT_EQ(moved.partitions_size(), 1);
  EXPECT_EQ(moved.partitions(0).error_code(), 0) << moved.partitions(0).error_message();
  EXPECT_EQ(code(assign(outsider, epochs[outsider], LogDir(outsider, 1))), ErrorCode::kNotLeaderOrFollower);
  EXPECT_EQ(code(assign(mover, epochs[mover] + 1, LogDir(mover, 1))), ErrorCode::kStaleBrokerEpoch);
  EXPECT_EQ(describe().leader_epoch(), before.leader_epoch()) << "a directory is no change of leader";

  // The mover's dir n goes offline: whether DescribeTopics then counts its replica offline.
  auto offline = [&](int n) {
    Heartbeat(client, mover, epochs[mover], /*tier_state_failing=*/{}, {LogDir(mover, n)});
    auto p = describe();
    return std::find(p.offline_replicas().begin(), p.offline_replicas().end(), mover) != p.offline_replicas().end();
  };
  EXPECT_FALSE(offline(0)) << "the dir the replica left";
  EXPECT_EQ(code(assign(mover, epochs[mover], LogDir(mover, 0))), ErrorCode::kKafkaStorageError) << "the dir is offline";
  EXPECT_TRUE(offline(1)) << "the dir that holds the replica now";
}

// Producer-id blocks end to end over gRPC against real controllers: registered brokers
// get consecutive blocks of 1000 from 0; a stale epoch and an unknown broker are refused;
// a broker's ProducerIdManager fed by the controllers hands out ids that stay unique and
// increasing across a kill -9 of the leader (the new leader goes on after the last block
// recorded in the metadata log, never handing one out again).
TEST(ControllerProcesses, ProducerIdsAreNeverHandedOutTwiceAcrossALeaderKill) {
  namespace cv1 = strata::controller::v1;
  using proto::kafka::ErrorCode;
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0);
  broker::ControllerClient client(c.Voters());
  std::map<int32_t, int64_t> epochs;
  for (int32_t broker : {101, 102}) {
    cv1::BrokerRegistrationRequest reg;
    reg.set_broker_id(broker);
    reg.set_incarnation_id(std::string(16, static_cast<char>(broker)));
    cv1::BrokerRegistrationResponse registered;
    ASSERT_TRUE(client.CallController(&cv1::ControllerService::Stub::BrokerRegistration, reg, &registered, 20s).ok());
    ASSERT_EQ(registered.error_code(), 0) << registered.error_message();
    epochs[broker] = registered.broker_epoch();
  }
  auto allocate = [&](int32_t broker, int64_t epoch) {
    cv1::AllocateProducerIdsRequest request;
    request.set_broker_id(broker);
    request.set_broker_epoch(epoch);
    cv1::AllocateProducerIdsResponse response;
    EXPECT_TRUE(client.CallController(&cv1::ControllerService::Stub::AllocateProducerIds, request, &response, 20s).ok());
    return response;
  };
  auto first = allocate(101, epochs[101]);
  ASSERT_EQ(first.error_code(), 0) << first.error_message();
  EXPECT_EQ(first.first_producer_id(), 0);
  EXPECT_EQ(first.length(), 1000);
  auto second = allocate(102, epochs[102]);
  ASSERT_EQ(second.error_code(), 0) << second.error_message();
  EXPECT_EQ(second.first_producer_id(), 1000);
  auto stale = allocate(101, epochs[101] + 1);
  EXPECT_EQ(stale.error_code(), static_cast<int32_t>(ErrorCode::kStaleBrokerEpoch)) << stale.error_message();
  EXPECT_EQ(stale.length(), 0);
  auto unknown = allocate(999, 1);
  EXPECT_EQ(unknown.error_code(), static_cast<int32_t>(ErrorCode::kBrokerIdNotRegistered)) << unknown.error_message();

  // Broker 101's manager, as the broker runs it; requests may wait out the failover.
  broker::ProducerIdManagerOptions options;
  options.wait = 20s;
  broker::ProducerIdManager manager(broker::ControllerBlockSource(client, 101, [&] { return epochs[101]; }), options);
  std::vector<int64_t> ids;
  auto take = [&](int n) {
    for (int i = 0; i < n; ++i) {
      auto id = manager.NextProducerId();
      ASSERT_TRUE(id.ok()) << id.status();
      ids.push_back(*id);
    }
  };
  take(2500);  // three blocks, the next prefetched
  int leader = c.WaitForLeader();
  c.Kill9(leader);
  take(2500);
  ASSERT_EQ(ids.size(), 5000u);
  EXPECT_EQ(ids.front(), 2000) << "the manager's first block follows the two allocated above";
  for (size_t i = 1; i < ids.size(); ++i) ASSERT_LT(ids[i - 1], ids[i]) << "at " << i;
  EXPECT_GE(manager.stats().blocks_fetched, 5);
  // The new leader's next block starts past every id handed out, old leader's included.
  auto after = allocate(102, epochs[102]);
  ASSERT_EQ(after.error_code(), 0) << after.error_message();
  EXPECT_GT(after.first_producer_id(), ids.back());
  EXPECT_EQ(after.first_producer_id() % 1000, 0);
}

// Remote log segment metadata end to end over gRPC against real controllers: the
// partition's leader records a copy STARTED and FINISHED through RemoteLogSegmentUpdate;
// a repeated or out-of-order transition and another broker are refused; after a kill -9
// of the active controller the new one knows the copy (its delete may start, the same
// segment id may not be started again).
TEST(ControllerProcesses, RemoteLogSegmentCopiesAreRecordedAndSurviveALeaderKill) {
  namespace cv1 = strata::controller::v1;
  namespace av1 = strata::admin::v1;
  namespace mv1 = strata::metadata::v1;
  using proto::kafka::ErrorCode;
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0);
  broker::ControllerClient client(c.Voters());
  std::map<int32_t, int64_t> epochs = RegisterUnfencedBrokers(client, {101, 102});
  const std::string topic_id = CreateTopicOfOnePartition(client, "tiered");
  ASSERT_FALSE(topic_id.empty());
  av1::DescribeTopicsRequest describe;
  describe.add_names("tiered");
  av1::DescribeTopicsResponse described;
  ASSERT_TRUE(client.CallAdmin(&av1::AdminService::Stub::DescribeTopics, describe, &described, 20s).ok());
  const int32_t leader = described.topics(0).partitions(0).leader();
  const int32_t leader_epoch = described.topics(0).partitions(0).leader_epoch();
  const int32_t other = leader == 101 ? 102 : 101;

  auto update = [&](int32_t from, mv1::RemoteLogSegment::State state) {
    cv1::RemoteLogSegmentUpdateRequest request;
    request.set_broker_id(from);
    request.set_broker_epoch(epochs[from]);
    auto* s = request.mutable_segment();
    s->set_topic_id(topic_id);
    s->set_partition_id(0);
    s->set_segment_id(std::string(16, 's'));
    s->set_state(state);
    s->set_broker_id(from);
    s->set_leader_epoch(leader_epoch);
    if (state == mv1::RemoteLogSegment::COPY_SEGMENT_STARTED) {
      s->set_start_offset(0);
      s->set_end_offset(999);
      (*s->mutable_segment_leader_epochs())[leader_epoch] = 0;
      s->set_segment_size_in_bytes(1 << 20);
    }
    cv1::RemoteLogSegmentUpdateResponse response;
    EXPECT_TRUE(client.CallController(&cv1::ControllerService::Stub::RemoteLogSegmentUpdate, request, &response, 20s).ok());
    return response;
  };
  auto code = [](const cv1::RemoteLogSegmentUpdateResponse& r) { return static_cast<ErrorCode>(r.error_code()); };
  EXPECT_EQ(code(update(other, mv1::RemoteLogSegment::COPY_SEGMENT_STARTED)), ErrorCode::kNotLeaderOrFollower);
  auto started = update(leader, mv1::RemoteLogSegment::COPY_SEGMENT_STARTED);
  ASSERT_EQ(started.error_code(), 0) << started.error_message();
  auto finished = update(leader, mv1::RemoteLogSegment::COPY_SEGMENT_FINISHED);
  ASSERT_EQ(finished.error_code(), 0) << finished.error_message();
  EXPECT_EQ(code(update(leader, mv1::RemoteLogSegment::COPY_SEGMENT_FINISHED)), ErrorCode::kInvalidRequest);

  c.Kill9(c.WaitForLeader());
  ASSERT_NE(c.WaitForLeader(), 0);
  EXPECT_EQ(code(update(leader, mv1::RemoteLogSegment::COPY_SEGMENT_STARTED)), ErrorCode::kInvalidRequest)
      << "the new controller knows the segment id";
  auto deleting = update(leader, mv1::RemoteLogSegment::DELETE_SEGMENT_STARTED);
  EXPECT_EQ(deleting.error_code(), 0) << deleting.error_message();
}

// The follower tier state machine's failures are visible: a broker's heartbeat names the
// partitions whose state it cannot yet build from the remote tier, and DescribeTopics
// shows that replica until a heartbeat no longer names it.
TEST(ControllerProcesses, DescribeTopicsShowsFollowersThatCannotBuildTheirStateFromTheRemoteTier) {
  namespace av1 = strata::admin::v1;
  Controllers c;
  ASSERT_NE(c.WaitForLeader(), 0);
  broker::ControllerClient client(c.Voters());
  std::map<int32_t, int64_t> epochs = RegisterUnfencedBrokers(client, {101, 102});
  ASSERT_FALSE(CreateTopicOfOnePartition(client, "tiered").empty());
  auto failing = [&] {
    av1::DescribeTopicsRequest describe;
    describe.add_names("tiered");
    av1::DescribeTopicsResponse described;
    EXPECT_TRUE(client.CallAdmin(&av1::AdminService::Stub::DescribeTopics, describe, &described, 20s).ok());
    const auto& p = described.topics(0).partitions(0);
    return std::vector<int32_t>(p.tier_state_failing_replicas().begin(), p.tier_state_failing_replicas().end());
  };
  EXPECT_TRUE(failing().empty());
  Heartbeat(client, 102, epochs[102], {"tiered-0", "other-3"});
  EXPECT_EQ(failing(), std::vector<int32_t>{102});
  Heartbeat(client, 102, epochs[102]);
  EXPECT_TRUE(failing().empty());
}

}  // namespace
}  // namespace strata::raft
