// A whole cluster with mutual TLS on the controllers' gRPC port (tools/strata-cluster up
// --secure: 3 controllers, 3 brokers, certificates from tools/strata-certs), as real
// processes on 127.0.0.1. Brokers register, heartbeat and follow the metadata log over
// TLS, also after a kill -9; the CLI gets in only with the admin's client config; kcat
// produces and consumes as the admin over SASL_SSL with SCRAM-SHA-512. Then
// the refusals, each checked to commit nothing to the metadata log and to leave the
// cluster serving: callers without a certificate or with one from another CA (the
// handshake), a broker's certificate calling Raft or heartbeating as another broker, a
// principal that is no broker asking for the metadata stream, and Propose, which no
// longer exists. STRATA_CLUSTER_PATH and STRATA_BIN_DIR are compile definitions.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "absl/strings/str_split.h"
#include "admin.grpc.pb.h"
#include "controller.grpc.pb.h"
#include "raft.grpc.pb.h"
#include "security/grpc_tls.h"
#include "tests/support/raw_propose.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"
#include "tests/support/wait.h"

namespace strata {
namespace {

using namespace std::chrono_literals;

// Runs a shell command; its exit status and output (stdout and stderr).
std::pair<int, std::string> Shell(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, ""};
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class SecureControlPlane : public ::testing::Test {
 protected:
  void SetUp() override {
    auto [code, out] = Cluster("up --controllers 3 --brokers 3 --secure");
    ASSERT_EQ(code, 0) << out;
    for (absl::string_view line : absl::StrSplit(ReadFile(dir_.Sub("cluster.env")), '\n')) {
      std::pair<std::string, std::string> kv = absl::StrSplit(line, absl::MaxSplits('=', 1));
      env_[kv.first] = kv.second;
    }
    for (absl::string_view voter : absl::StrSplit(env_["bootstrap.controllers"], ',')) {
      std::pair<std::string, std::string> id_address = absl::StrSplit(voter, '@');
      controllers_[std::stoi(id_address.first)] = id_address.second;
    }
    ASSERT_EQ(controllers_.size(), 3u);
  }
  void TearDown() override { Cluster("down"); }

  std::pair<int, std::string> Cluster(const std::string& args) {
    return Shell(std::string("STRATA_BIN_DIR=") + STRATA_BIN_DIR + " bash " + STRATA_CLUSTER_PATH + " " + args +
               " --dir " + dir_.path());
  }
  std::pair<int, std::string> Cli(const std::string& args, bool as_admin = true) {
    std::string command = std::string(STRATA_BIN_DIR) + "/strata --bootstrap-controller " +
                          env_["bootstrap.controllers"] + (as_admin ? " --command-config " + env_["command.config"] : "") +
                          " " + args;
    return Shell(command);
  }
  std::string Certs(const std::string& name) { return dir_.Sub("certs/" + name + ".pem"); }
  // kcat as the admin over SASL_SSL with SCRAM-SHA-512 (the cluster's client.properties).
  std::string Kcat() { return "kcat -q -F " + dir_.Sub("client.properties"); }
  std::shared_ptr<grpc::Channel> ChannelAs(int controller, const std::string& keystore) {
    return grpc::CreateChannel(controllers_[controller],
                               security::ChannelCredentials({.keystore = keystore, .truststore = Certs("ca")}));
  }
  // The active controller's commit index, asked with the admin's certificate; -1 if none.
  int64_t CommitIndex() {
    for (const auto& [id, address] : controllers_) {
      auto stub = raft::v1::RaftTransport::NewStub(ChannelAs(id, Certs("admin")));
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + 5s);
      raft::v1::DescribeQuorumResponse response;
      if (stub->DescribeQuorum(&context, raft::v1::DescribeQuorumRequest(), &response).ok() &&
          response.role() == "leader") {
        return response.commit_index();
      }
    }
    return -1;
  }
  std::string ServerLogs() {
    std::string all;
    for (int id = 1; id <= 6; ++id) all += ReadFile(dir_.Sub("node-" + std::to_string(id) + "/server.log"));
    return all;
  }

  testing::TempDir dir_;
  std::map<std::string, std::string> env_;
  std::map<int, std::string> controllers_;
};

TEST_F(SecureControlPlane, BrokersWorkOverMutualTlsAndOnlyTheAdminsConfigGetsTheCliIn) {
  auto [created, out] = Cli("topics create orders --partitions 3 --replication-factor 3");
  ASSERT_EQ(created, 0) << out;
  auto [refused, why] = Cli("--output json cluster describe", /*as_admin=*/false);
  EXPECT_EQ(refused, 1) << why;
  // A broker killed -9 comes back: it registers (a new epoch) and is unfenced, which it
  // is only once it caught up with the metadata log, over TLS again.
  auto broker5 = [&]() -> std::pair<int64_t, bool> {
    auto [code, json] = Cli("--output json cluster describe");
    std::smatch m;
    if (code != 0 || !std::regex_search(json, m, std::regex(R"("epoch":(\d+),"fenced":(true|false),"id":5,)"))) {
      return {-1, true};
    }
    return {std::stoll(m[1]), m[2] == "true"};
  };
  int64_t epoch = broker5().first;
  ASSERT_GT(epoch, 0) << Cli("cluster describe").second;
  ASSERT_EQ(Cluster("kill 5").first, 0);
  ASSERT_EQ(Cluster("start 5").first, 0);
  ASSERT_TRUE(testing::WaitUntil([&] {
    auto [now, fenced] = broker5();
    return now > epoch && !fenced;
  }, 30s)) << Cli("cluster describe").second;
  std::string records;
  for (int i = 0; i < 100; ++i) records += "r" + std::to_string(i) + "\n";
  std::ofstream(dir_.Sub("records")) << records;
  auto [produced, produce_out] = Shell(Kcat() + " -P -t orders -X acks=all -l " + dir_.Sub("records"));
  ASSERT_EQ(produced, 0) << produce_out;
  auto [consumed, consumed_out] = Shell(Kcat() + " -C -t orders -e -q -o beginning");
  ASSERT_EQ(consumed, 0) << consumed_out;
  EXPECT_EQ(std::count(consumed_out.begin(), consumed_out.end(), '\n'), 100) << consumed_out;
}

TEST_F(SecureControlPlane, RefusedCallersCommitNothingAndTheClusterServesOn) {
  int64_t commit = CommitIndex();
  ASSERT_GT(commit, 0);
  std::string topics_before = Cli("topics list").second;
  testing::TestCerts other;
  std::string rogue = other.Make("rogue", "--controller 2 --broker 4");

  // 1. The handshake: no client certificate; a certificate from another CA.
  {
    grpc::SslCredentialsOptions no_cert;
    no_cert.pem_root_certs = ReadFile(Certs("ca"));
    auto stub = raft::v1::RaftTransport::NewStub(grpc::CreateChannel(controllers_[1], grpc::SslCredentials(no_cert)));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    raft::v1::DeliverResponse response;
    EXPECT_EQ(stub->Deliver(&context, raft::v1::RaftBatch(), &response).error_code(), grpc::StatusCode::UNAVAILABLE);
    auto foreign = controller::v1::ControllerService::NewStub(grpc::CreateChannel(
        controllers_[1], security::ChannelCredentials({.keystore = rogue, .truststore = Certs("ca")})));
    grpc::ClientContext context2;
    context2.set_deadline(std::chrono::system_clock::now() + 5s);
    controller::v1::BrokerHeartbeatRequest heartbeat;
    heartbeat.set_broker_id(4);
    controller::v1::BrokerHeartbeatResponse answer;
    EXPECT_EQ(foreign->BrokerHeartbeat(&context2, heartbeat, &answer).error_code(), grpc::StatusCode::UNAVAILABLE);
  }
  // 2. A broker's certificate calling Raft: a heartbeat from a voter with a term far ahead.
  for (const auto& [id, address] : controllers_) {
    auto stub = raft::v1::RaftTransport::NewStub(ChannelAs(id, Certs("node-4")));
    raft::v1::RaftBatch batch;
    auto* m = batch.add_messages();
    m->set_type(raft::v1::HEARTBEAT);
    m->set_term(1'000'000);
    m->set_from(id % 3 + 1);
    m->set_to(id);
    m->set_commit(commit + 100);
    batch.set_cluster_id(env_["cluster.id"]);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    raft::v1::DeliverResponse response;
    grpc::Status status = stub->Deliver(&context, batch, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  }
  // 3. Broker 4 heartbeating as broker 5 (asking to shut it down).
  {
    auto stub = controller::v1::ControllerService::NewStub(ChannelAs(1, Certs("node-4")));
    controller::v1::BrokerHeartbeatRequest heartbeat;
    heartbeat.set_broker_id(5);
    heartbeat.set_want_shut_down(true);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 5s);
    controller::v1::BrokerHeartbeatResponse answer;
    grpc::Status status = stub->BrokerHeartbeat(&context, heartbeat, &answer);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  }
  // 4. The admin (a principal, no broker) asking for the metadata stream.
  {
    auto stub = raft::v1::RaftTransport::NewStub(ChannelAs(1, Certs("admin")));
    grpc::ClientContext context;
    raft::v1::ObserveRequest observe;
    observe.set_cluster_id(env_["cluster.id"]);
    auto reader = stub->Observe(&context, observe);
    raft::v1::ObserveResponse response;
    EXPECT_FALSE(reader->Read(&response));
    EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  // 5. A raw Propose (what the RPC was) with a voter's own certificate: nothing serves it.
  for (const auto& [id, address] : controllers_) {
    grpc::Status status = testing::CallRawPropose(ChannelAs(id, Certs("node-" + std::to_string(id))));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << status.error_message();
  }

  // Nothing was committed; every broker is still in; the refusals were logged.
  EXPECT_EQ(CommitIndex(), commit);
  EXPECT_EQ(Cli("topics list").second, topics_before);
  auto [code, json] = Cli("--output json cluster describe");
  ASSERT_EQ(code, 0) << json;
  EXPECT_EQ(json.find("\"fenced\":true"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"in_controlled_shutdown\":true"), std::string::npos) << json;
  std::string logs = ServerLogs();
  EXPECT_NE(logs.find("Deliver refused to User:node-4"), std::string::npos);
  EXPECT_NE(logs.find("BrokerHeartbeat refused to User:node-4"), std::string::npos);
  EXPECT_NE(logs.find("Observe refused to User:admin"), std::string::npos);
  // And serves: a topic is created and records go through it.
  auto [created, out] = Cli("topics create after --partitions 1 --replication-factor 3");
  ASSERT_EQ(created, 0) << out;
  auto [produced, produce_out] =
      Shell("echo one | " + Kcat() + " -P -t after -X acks=all && " + Kcat() + " -C -t after -e -q -o beginning");
  EXPECT_EQ(produced, 0) << produce_out;
  EXPECT_EQ(produce_out, "one\n");
}

}  // namespace
}  // namespace strata
