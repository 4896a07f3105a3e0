#pragma once
// Three real strata-server controller processes on 127.0.0.1 (free ports, temp dirs),
// for tests/raft/controller_process_test.cc and tests/bench/controller_proposals_bench.cc:
// start, kill -9, restart, DescribeQuorum, metadata writes (a broker config each through
// AlterConfigs, read back with DescribeConfigs) and /metrics. Every process is killed when the
// Controllers object goes. STRATA_SERVER_PATH (a compile definition) names the binary.
// Not thread-safe, except ProposeTo, which threads may call at once.

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "admin.grpc.pb.h"
#include "metadata.pb.h"
#include "raft.grpc.pb.h"
#include "storage/meta_properties.h"
#include "tests/support/free_port.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

extern char** environ;

namespace strata::raft {

using namespace std::chrono_literals;

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

class Controllers {
 public:
  using Clock = std::chrono::steady_clock;

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
    static_assert(sizeof(STRATA_SERVER_PATH) > 1, "STRATA_SERVER_PATH names the strata-server binary");
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
  // One metadata write on node id: AlterConfigs of a cluster-wide broker config named
  // `name` (the controller builds the record; nothing is proposed raw). The answer, or
  // nullopt when the call failed.
  std::optional<admin::v1::AlterConfigsResponse> ProposeOnce(int id, const std::string& name) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 3s);
    admin::v1::AlterConfigsRequest request;
    auto* resource = request.add_resources();
    resource->mutable_resource()->set_type(admin::v1::ConfigResource::BROKER);
    auto* op = resource->add_ops();
    op->set_name(name);
    op->set_value("1");
    admin::v1::AlterConfigsResponse response;
    if (!admin_stubs_[id]->AlterConfigs(&context, request, &response).ok()) return std::nullopt;
    return response;
  }
  // The commit index of node id once its write committed; -1 when it did not.
  static bool Succeeded(const std::optional<admin::v1::AlterConfigsResponse>& response) {
    return response && response->error_code() == 0 && response->results_size() == 1 &&
           response->results(0).error_code() == 0;
  }
  int64_t CommittedOn(int id, const std::optional<admin::v1::AlterConfigsResponse>& response) {
    if (!Succeeded(response)) return -1;
    auto d = Describe(id);
    return d ? d->commit_index() : -1;
  }
  // Writes through the leader (following NOT_CONTROLLER answers); on success the
  // leader's commit index after the write (at least the write's index), else -1.
  int64_t Propose(const std::string& name, std::chrono::milliseconds deadline = 20s) {
    auto end = Clock::now() + deadline;
    int target = WaitForLeader(0, deadline);
    while (Clock::now() < end && target != 0) {
      auto response = ProposeOnce(target, name);
      if (int64_t index = CommittedOn(target, response); index > 0) return index;
      if (response && response->error_code() != 0 && response->controller_id() > 0 &&
          response->controller_id() != target) {
        target = response->controller_id();
      } else {
        target = WaitForLeader(0, std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()));
      }
    }
    return -1;
  }
  // One attempt on node id only: 1 when the write committed, else -1 (no index: the
  // proposals benchmark counts writes and adds no call to each).
  int64_t ProposeTo(int id, const std::string& name) { return Succeeded(ProposeOnce(id, name)) ? 1 : -1; }
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

inline double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

// What ProposeFromClients did: proposals/s, and the proposals the leader acknowledged
// as committed (each client's in its order).
struct ClientProposals {
  double per_second = 0;
  std::vector<std::string> acknowledged;
};

// `clients` threads propose ~110-byte entries to the leader, each one proposal at a
// time, for `how_long`; the entries of client k are named "<prefix>k-<i>".
inline ClientProposals ProposeFromClients(Controllers& c, int clients, std::chrono::milliseconds how_long,
                                          const std::string& prefix = "c") {
  using Clock = Controllers::Clock;
  std::atomic<bool> stop{false};
  std::vector<std::vector<std::string>> acknowledged(static_cast<size_t>(clients));
  std::vector<std::thread> threads;
  int leader = c.WaitForLeader();
  auto t0 = Clock::now();
  for (int k = 0; k < clients; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; !stop.load(); ++i) {
        std::string name = prefix + std::to_string(k) + "-" + std::to_string(i) + std::string(100, '.');
        if (c.ProposeTo(leader, name) > 0) acknowledged[static_cast<size_t>(k)].push_back(name);
      }
    });
  }
  testing::WaitUntil([&] { return Clock::now() - t0 >= how_long; }, how_long + 10s);
  stop = true;
  for (auto& t : threads) t.join();
  ClientProposals out;
  for (auto& names : acknowledged) out.acknowledged.insert(out.acknowledged.end(), names.begin(), names.end());
  out.per_second = static_cast<double>(out.acknowledged.size()) / std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

}  // namespace strata::raft
