// Three real strata-server controller processes on 127.0.0.1 (free ports, temp dirs).
// Proposals are metadata entries (a broker config each), read back with DescribeConfigs:
// proposals commit; kill -9 of the leader elects another and committed entries survive;
// the killed node restarts and catches up (the nodes snapshot every few dozen entries,
// so restarts load snapshots and followers install them); a node whose metadata log dir
// runs out of space, or whose metadata log files are deleted, stops itself with one
// ERROR line and a non-zero exit; /metrics names the leader. Prints commit latency,
// proposals/s (one client, and many in flight) and failover times
// (STRATA_FAILOVER_RUNS kill/restart cycles, default 3).
// Every process is killed at the end, whatever happens.

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
#include "broker/controller_client.h"
#include "broker/producer_id_manager.h"
#include "proto/kafka/error_code.h"
#include "metadata.pb.h"
#include "raft.grpc.pb.h"
#include "storage/meta_properties.h"
#include "tests/support/free_port.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

extern char** environ;

namespace strata::raft {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A Raft entry the controller's metadata image applies: a cluster-wide broker config
// named `name`, so that what was committed can be read back with DescribeConfigs.
std::string ConfigEntry(const std::string& name) {
  metadata::v1::MetadataBatch batch;
  auto* c = batch.add_records()->mutable_config();
  c->set_resource_type(metadata::v1::Config::BROKER);
  c->set_name(name);
  c->set_value("1");
  return batch.SerializeAsString();
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

class Controllers {
 public:
  // snapshot_bytes: metadata.log.max.record.bytes.between.snapshots; small by default so
  // that the tests exercise snapshots and compaction.
  explicit Controllers(std::map<int, std::string> log_dirs = {}, int64_t snapshot_bytes = 256) {
    for (int id = 1; id <= 3; ++id) {
      ports_[id] = testing::FreePort();
      metrics_ports_[id] = testing::FreePort();
    }
    std::string voters;
    for (int id = 1; id <= 3; ++id) {
      voters += (id > 1 ? "," : "") + std::to_string(id) + "@127.0.0.1:" + std::to_string(ports_[id]);
    }
    for (int id = 1; id <= 3; ++id) {
      std::string dir = log_dirs.count(id) ? log_dirs[id] : tmp_.Sub("metadata" + std::to_string(id));
      auto formatted = storage::FormatDirectory(*storage::FileOps::Default(), dir, cluster_id_, id);
      EXPECT_TRUE(formatted.ok()) << formatted.status();
      std::ofstream(Config(id)) << "node.id=" << id << "\nprocess.roles=controller\ncontroller.quorum.voters="
                                << voters << "\nmetadata.log.dir=" << dir
                                << "\ncontroller.quorum.election.timeout.ms=200"
                                << "\nmetadata.log.max.record.bytes.between.snapshots=" << snapshot_bytes
                                << "\nmetadata.log.segment.bytes=2097152"
                                << "\nmetrics.listener=127.0.0.1:" << metrics_ports_[id] << "\n";
      Start(id);
    }
  }
  ~Controllers() {
    for (auto& [id, pid] : pids_) {
      if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  }
  std::string Config(int id) { return tmp_.Sub("controller" + std::to_string(id) + ".properties"); }
  std::string Log(int id) { return tmp_.Sub("controller" + std::to_string(id) + ".log"); }

  void Start(int id) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, Log(id).c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::string config = Config(id);
    const char* argv[] = {STRATA_SERVER_PATH, "--config", config.c_str(), nullptr};
    pid_t pid = 0;
    int rc = posix_spawn(&pid, STRATA_SERVER_PATH, &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(rc, 0) << "posix_spawn " << STRATA_SERVER_PATH;
    pids_[id] = pid;
    // A channel made before the server listens sits in gRPC's reconnect backoff for
    // seconds: connect once this start of the process says it listens.
    ++starts_[id];
    ASSERT_TRUE(testing::WaitUntil([&] { return Count(ReadFile(Log(id)), "listening on") >= starts_[id]; }, 20s))
        << ReadFile(Log(id));
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(ports_[id]), grpc::InsecureChannelCredentials());
    stubs_[id] = v1::RaftTransport::NewStub(channel);
    admin_stubs_[id] = admin::v1::AdminService::NewStub(channel);
  }
  static int Count(const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  }
  void Kill9(int id) {
    kill(pids_[id], SIGKILL);
    waitpid(pids_[id], nullptr, 0);
    pids_[id] = 0;
  }
  // Waits for the process to exit by itself; its exit status, or -1 at the deadline.
  int WaitExit(int id, std::chrono::milliseconds deadline) {
    auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
      int status = 0;
      if (waitpid(pids_[id], &status, WNOHANG) == pids_[id]) {
        pids_[id] = 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(5ms);  // polling a child's exit status; not synchronisation
    }
    return -1;
  }

  std::optional<v1::DescribeQuorumResponse> Describe(int id) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 200ms);
    v1::DescribeQuorumRequest request;
    v1::DescribeQuorumResponse response;
    if (!stubs_[id]->DescribeQuorum(&context, request, &response).ok()) return std::nullopt;
    return response;
  }
  int WaitForLeader(int not_this = 0, std::chrono::milliseconds deadline = 20s) {
    auto end = Clock::now() + deadline;
    while (Clock::now() < end) {
      for (int id = 1; id <= 3; ++id) {
        if (id == not_this || pids_[id] == 0) continue;
        auto d = Describe(id);
        if (d && d->role() == "leader") return id;
      }
    }
    return 0;
  }
  // Proposes through the leader (following NOT_LEADER answers); the index, or -1.
  // One attempt on node id: the response, or nullopt when the call failed.
  std::optional<v1::ProposeResponse> ProposeOnce(int id, const std::string& data) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 3s);
    v1::ProposeRequest request;
    request.set_data(ConfigEntry(data));
    request.set_timeout_ms(2000);
    v1::ProposeResponse response;
    if (!stubs_[id]->Propose(&context, request, &response).ok()) return std::nullopt;
    return response;
  }
  // Proposes through the leader (following NOT_LEADER answers); the index, or -1.
  int64_t Propose(const std::string& data, std::chrono::milliseconds deadline = 20s) {
    auto end = Clock::now() + deadline;
    int target = WaitForLeader(0, deadline);
    while (Clock::now() < end && target != 0) {
      auto response = ProposeOnce(target, data);
      if (response && response->error() == v1::NONE) return response->index();
      if (response && response->error() == v1::NOT_LEADER && response->leader_id() != 0) {
        target = response->leader_id();
      } else {
        target = WaitForLeader(0, std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()));
      }
    }
    return -1;
  }
  // One attempt on node id only; the index, or -1.
  int64_t ProposeTo(int id, const std::string& data) {
    auto response = ProposeOnce(id, data);
    return response && response->error() == v1::NONE ? response->index() : -1;
  }
  std::vector<std::string> Applied(int id) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 2s);
    admin::v1::DescribeConfigsRequest request;
    request.add_resources()->set_type(admin::v1::ConfigResource::BROKER);
    admin::v1::DescribeConfigsResponse response;
    std::vector<std::string> out;
    if (!admin_stubs_[id]->DescribeConfigs(&context, request, &response).ok() || response.results_size() != 1) return out;
    for (const auto& e : response.results(0).entries()) out.push_back(e.name());
    return out;
  }

  bool running(int id) const { return pids_.at(id) != 0; }
  std::map<int32_t, std::string> Voters() const {
    std::map<int32_t, std::string> voters;
    for (const auto& [id, port] : ports_) voters[id] = "127.0.0.1:" + std::to_string(port);
    return voters;
  }
  std::string MetadataDir(int id) { return tmp_.Sub("metadata" + std::to_string(id)); }

  // GET /metrics from the node's metrics.listener; the body, or "" on failure.
  std::string ScrapeMetrics(int id) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(metrics_ports_[id]));
    std::string response;
    timeval timeout{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      std::string request = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
      if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0) response.append(buf, static_cast<size_t>(n));
      }
    }
    close(fd);
    size_t body = response.find("\r\n\r\n");
    return body == std::string::npos ? "" : response.substr(body + 4);
  }
  // The value of a metric line "name{node_id="id"} value", or -1.
  static double MetricValue(const std::string& metrics, const std::string& name) {
    std::istringstream in(metrics);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(name + "{", 0) == 0) return std::stod(line.substr(line.rfind(' ') + 1));
    }
    return -1;
  }

 private:
  testing::TempDir tmp_;
  std::map<int, int> ports_;
  std::map<int, int> metrics_ports_;
  const std::string cluster_id_ = storage::NewBase64Uuid();
  std::map<int, pid_t> pids_;
  std::map<int, std::unique_ptr<v1::RaftTransport::Stub>> stubs_;
  std::map<int, std::unique_ptr<admin::v1::AdminService::Stub>> admin_stubs_;
  std::map<int, int> starts_;
};

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// `clients` threads propose to the leader, each one proposal at a time, for `how_long`;
// returns proposals/s.
double ProposeFromClients(Controllers& c, int clients, std::chrono::milliseconds how_long) {
  std::atomic<int64_t> done{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  int leader = c.WaitForLeader();
  auto t0 = Clock::now();
  for (int k = 0; k < clients; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; !stop.load(); ++i) {
        if (c.ProposeTo(leader, "c" + std::to_string(k) + "-" + std::to_string(i) + std::string(100, '.')) > 0) ++done;
      }
    });
  }
  testing::WaitUntil([&] { return Clock::now() - t0 >= how_long; }, how_long + 10s);
  stop = true;
  for (auto& t : threads) t.join();
  return static_cast<double>(done.load()) / std::chrono::duration<double>(Clock::now() - t0).count();
}

// The baseline for the figures below, on the same disk in the same run: 128-byte
// appends each followed by fdatasync, per second (a commit needs one on the leader
// and one on a follower).
double FdatasyncPerSecond(const std::string& dir) {
  std::string path = dir + "/fdatasync-baseline";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string block(128, 'b');
  int64_t n = 0;
  auto t0 = Clock::now();
  while (Clock::now() - t0 < 1s) {
    if (write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) || fdatasync(fd) != 0) break;
    ++n;
  }
  double rate = static_cast<double>(n) / std::chrono::duration<double>(Clock::now() - t0).count();
  close(fd);
  unlink(path.c_str());
  return rate;
}

// Figures only (printed, never asserted): proposals/s of ~110-byte entries with 1, 16
// and 64 clients in flight, Kafka's default snapshot interval, next to the disk's
// fdatasync rate measured just before.
TEST(ControllerProcesses, ThroughputWithManyProposalsInFlight) {
  testing::TempDir scratch;
  std::cout << "baseline_fdatasync_per_s(128-byte appends, same disk)=" << FdatasyncPerSecond(scratch.path())
            << std::endl;
  Controllers c({}, /*snapshot_bytes=*/20 << 20);
  ASSERT_NE(c.WaitForLeader(), 0);
  for (int clients : {1, 16, 64}) {
    std::cout << "controller_processes_proposals_per_s clients=" << clients << " "
              << ProposeFromClients(c, clients, 2s) << std::endl;
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

  // Proposals from many clients at once are committed too, in the order applied.
  ProposeFromClients(c, 16, 1s);
  committed = c.Applied(c.WaitForLeader());

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
    // Everything committed before the kill is still there.
    std::vector<std::string> applied = c.Applied(new_leader);
    ASSERT_EQ(applied, Sorted(committed)) << "run " << run << ": " << applied.size() << " applied, " << committed.size()
                                  << " committed; last applied '" << (applied.empty() ? "" : applied.back()) << "'";
    // The killed node restarts from its metadata log and catches up.
    c.Start(leader);
    ASSERT_TRUE(testing::WaitUntil([&] { return c.Applied(leader) == Sorted(committed); }, 20s))
        << ReadFile(c.Log(leader));
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
  EXPECT_NE(log.find("was removed"), std::string::npos) << log;
  ASSERT_GT(c.Propose("after-node-2-stopped"), 0);
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
  std::map<int32_t, int64_t> epochs;
  for (int32_t broker : {101, 102}) {
    cv1::BrokerRegistrationRequest reg;
    reg.set_broker_id(broker);
    reg.set_incarnation_id(std::string(16, static_cast<char>(broker)));
    cv1::BrokerRegistrationResponse registered;
    ASSERT_TRUE(client.CallController(&cv1::ControllerService::Stub::BrokerRegistration, reg, &registered, 20s).ok());
    ASSERT_EQ(registered.error_code(), 0) << registered.error_message();
    epochs[broker] = registered.broker_epoch();
    cv1::BrokerHeartbeatRequest hb;
    hb.set_broker_id(broker);
    hb.set_broker_epoch(registered.broker_epoch());
    hb.set_current_metadata_offset(1'000'000);  // caught up
    cv1::BrokerHeartbeatResponse beat;
    ASSERT_TRUE(client.CallController(&cv1::ControllerService::Stub::BrokerHeartbeat, hb, &beat, 20s).ok());
    ASSERT_EQ(beat.error_code(), 0) << beat.error_message();
    EXPECT_FALSE(beat.is_fenced());
  }
  av1::CreateTopicsRequest create;
  auto* topic = create.add_topics();
  topic->set_name("isr");
  topic->set_num_partitions(1);
  topic->set_replication_factor(2);
  av1::CreateTopicsResponse created;
  ASSERT_TRUE(client.CallAdmin(&av1::AdminService::Stub::CreateTopics, create, &created, 20s).ok());
  ASSERT_EQ(created.topics(0).error_code(), 0) << created.topics(0).error_message();
  auto describe = [&] {
    av1::DescribeTopicsRequest request;
    request.add_names("isr");
    av1::DescribeTopicsResponse response;
    EXPECT_TRUE(client.CallAdmin(&av1::AdminService::Stub::DescribeTopics, request, &response, 20s).ok());
    return response.topics(0).partitions(0);
  };
  auto before = describe();
  int32_t leader = before.leader();
  int32_t follower = leader == 101 ? 102 : 101;
  ASSERT_EQ(before.isr_size(), 2);

  auto alter = [&](int32_t from, int32_t partition_epoch) {
    cv1::AlterPartitionRequest request;
    request.set_broker_id(from);
    request.set_broker_epoch(epochs[from]);
    auto* p = request.add_partitions();
    p->set_topic_id(created.topics(0).topic_id());
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

}  // namespace
}  // namespace strata::raft
