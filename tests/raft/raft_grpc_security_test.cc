// The controllers' gRPC port with mutual TLS and the control plane's authorization
// (security/grpc_tls.h, security/control_plane_authorizer.h), between real RaftNodes on
// 127.0.0.1: the quorum commits over TLS and a broker's certificate follows the log;
// callers without a certificate, with one from another CA or an expired one are refused
// in the handshake; a broker's certificate calling Raft's RPCs, a voter sending messages
// as another voter and a controller's certificate asking for the metadata stream are
// refused before anything reaches the node; there is no Propose RPC; rotated
// certificates are taken up without a restart.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "raft.grpc.pb.h"
#include "raft/observer.h"
#include "security/grpc_tls.h"
#include "tests/support/grpc_quorum.h"
#include "tests/support/raw_propose.h"
#include "tests/support/wait.h"
#include "tests/support/test_certs.h"
#include "tests/support/wait.h"

namespace strata::raft {
namespace {

using namespace std::chrono_literals;
using testing::GrpcQuorum;
using testing::TestCerts;

// A stub to node id's port, as a caller holding `keystore` (empty: no certificate)
// and trusting `truststore`.
std::unique_ptr<v1::RaftTransport::Stub> StubAs(const std::string& address, const std::string& keystore,
                                                const std::string& truststore) {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (keystore.empty()) {
    grpc::SslCredentialsOptions ssl;  // server verified, no client certificate
    FILE* f = std::fopen(truststore.c_str(), "r");
    char buf[8192];
    size_t n = f ? std::fread(buf, 1, sizeof(buf), f) : 0;
    if (f) std::fclose(f);
    ssl.pem_root_certs.assign(buf, n);
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = security::ChannelCredentials({.keystore = keystore, .truststore = truststore});
  }
  return v1::RaftTransport::NewStub(grpc::CreateChannel(address, credentials));
}

grpc::Status Heartbeat(v1::RaftTransport::Stub& stub, NodeId from, NodeId to, Term term) {
  v1::RaftBatch batch;
  v1::RaftMessage* m = batch.add_messages();
  m->set_type(v1::HEARTBEAT);
  m->set_term(term);
  m->set_from(from);
  m->set_to(to);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::DeliverResponse response;
  return stub.Deliver(&context, batch, &response);
}

grpc::Status DescribeQuorum(v1::RaftTransport::Stub& stub) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 5s);
  v1::DescribeQuorumResponse response;
  return stub.DescribeQuorum(&context, v1::DescribeQuorumRequest(), &response);
}

class RaftGrpcSecurity : public ::testing::Test {
 protected:
  TestCerts certs_;
};

TEST_F(RaftGrpcSecurity, TheQuorumCommitsOverMutualTlsAndABrokerFollowsTheLog) {
  GrpcQuorum q(20 << 20, 1 << 30, &certs_);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(q.Propose("e" + std::to_string(i)).ok());
  NodeId leader = q.WaitForLeader();
  AppliedLog observed;
  RaftObserverOptions o;
  for (NodeId id : q.ids_) o.voters.push_back({id, q.address(id)});
  o.state_machine = &observed;
  o.dir = q.observer_dir();
  o.credentials = security::ChannelCredentials({.keystore = certs_.Make("broker-4", "--broker 4"), .truststore = certs_.Ca()});
  auto observer = RaftObserver::Start(o);
  ASSERT_TRUE(observer.ok()) << observer.status();
  Index commit = q.node(leader).status().commit;
  ASSERT_TRUE((*observer)->WaitForApplied(commit, 20s)) << "applied " << (*observer)->applied();
  EXPECT_EQ(q.authorizer()->denied(), 0);
}

TEST_F(RaftGrpcSecurity, CallersWithoutAGoodCertificateAreRefusedInTheHandshake) {
  GrpcQuorum q(20 << 20, 1 << 30, &certs_);
  ASSERT_NE(q.WaitForLeader(), kNoNode);
  NodeId follower = q.WaitForLeader() == 1 ? 2 : 1;
  Term term = q.node(follower).status().term;
  std::string other_ca = certs_.Make("rogue", "--controller 3 --ca other");
  std::string expired = certs_.Make("expired", "--controller 3 --days 0");
  struct Case {
    const char* what;
    std::string keystore;
    std::string truststore;
  } cases[] = {
      {"no client certificate", "", certs_.Ca()},
      {"a certificate from another CA", other_ca, certs_.Ca()},
      {"an expired certificate", expired, certs_.Ca()},
      {"plaintext", "-", ""},
  };
  for (const Case& c : cases) {
    std::unique_ptr<v1::RaftTransport::Stub> stub =
        c.keystore == "-" ? v1::RaftTransport::NewStub(grpc::CreateChannel(q.address(follower),
                                                                           grpc::InsecureChannelCredentials()))
                          : StubAs(q.address(follower), c.keystore, c.truststore);
    grpc::Status status = Heartbeat(*stub, 3, follower, term + 1000);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << c.what << ": " << status.error_message();
  }
  // None reached the node: its term did not jump, and the quorum goes on.
  EXPECT_LT(q.node(follower).status().term, term + 1000);
  EXPECT_TRUE(q.Propose("after").ok());
}

TEST_F(RaftGrpcSecurity, RaftRpcsAreServedOnlyToVotersForTheirOwnMessages) {
  GrpcQuorum q(20 << 20, 1 << 30, &certs_);
  NodeId leader = q.WaitForLeader();
  ASSERT_NE(leader, kNoNode);
  NodeId follower = leader == 1 ? 2 : 1;
  NodeId third = 6 - leader - follower;
  Term term = q.node(follower).status().term;
  int64_t denied = q.authorizer()->denied();
  // A broker's certificate (the CA's, so the handshake passes) calling Raft.
  auto broker = StubAs(q.address(follower), certs_.Make("broker-4", "--broker 4"), certs_.Ca());
  grpc::Status status = Heartbeat(*broker, third, follower, term + 1000);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  // A voter sending as another voter.
  auto voter = StubAs(q.address(follower), q.tls(third).keystore, certs_.Ca());
  status = Heartbeat(*voter, leader, follower, term + 1000);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  // A node that names itself a controller but is not a voter.
  auto outsider = StubAs(q.address(follower), certs_.Make("controller-9", "--controller 9"), certs_.Ca());
  status = Heartbeat(*outsider, 9, follower, term + 1000);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
  EXPECT_EQ(q.authorizer()->denied(), denied + 3);
  EXPECT_LT(q.node(follower).status().term, term + 1000);
  // The voter's own messages pass (to the node, which ignores a stale heartbeat).
  EXPECT_TRUE(Heartbeat(*voter, third, follower, 0).ok());
  // A controller's certificate (not a broker's) may not stream the metadata log.
  grpc::ClientContext context;
  v1::ObserveRequest observe;
  auto reader = voter->Observe(&context, observe);
  v1::ObserveResponse response;
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  // DescribeQuorum is an Admin call: a broker may make it (no authorizer for the rest).
  EXPECT_TRUE(DescribeQuorum(*broker).ok());
  EXPECT_TRUE(q.Propose("after").ok());
}

TEST_F(RaftGrpcSecurity, ThereIsNoProposeRpc) {
  GrpcQuorum q(20 << 20, 1 << 30, &certs_);
  NodeId leader = q.WaitForLeader();
  ASSERT_NE(leader, kNoNode);
  auto before = q.Propose("before");
  ASSERT_TRUE(before.ok()) << before.status();
  // The status catches up with the entry at the end of the driver's round.
  ASSERT_TRUE(testing::WaitUntil([&] { return q.node(leader).status().commit >= *before; }, 5s));
  Index commit = q.node(leader).status().commit;
  // The method Propose was, called with a voter's own certificate: nothing serves it.
  auto channel = grpc::CreateChannel(
      q.address(leader), security::ChannelCredentials({.keystore = q.tls(leader).keystore, .truststore = certs_.Ca()}));
  grpc::Status status = testing::CallRawPropose(channel);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << status.error_message();
  EXPECT_EQ(q.node(leader).status().commit, commit);
}

// The server's certificate is replaced by one from a new CA and its truststore by the new
// CA: after the refresh, callers holding the new CA's certificates get in and callers of
// the old CA do not, without a restart.
TEST_F(RaftGrpcSecurity, RotatedCertificatesAreTakenUpWithoutARestart) {
  security::ControlPlaneAuthorizer::Options o;
  o.secure = true;
  o.voters = {1, 2, 3};
  security::ControlPlaneAuthorizer authorizer(std::move(o));
  std::string keystore = certs_.dir() + "/server.pem";
  std::string truststore = certs_.dir() + "/server-ca.pem";
  std::filesystem::copy_file(certs_.Make("old-server", "--controller 1"), keystore);
  std::filesystem::copy_file(certs_.Ca(), truststore);
  security::TlsFiles files{.keystore = keystore, .truststore = truststore};
  auto server = RaftServer::Start("127.0.0.1:0", {}, {},
                                  {.credentials = security::ServerCredentials(files), .authorizer = &authorizer});
  ASSERT_TRUE(server.ok()) << server.status();
  std::string address = "127.0.0.1:" + std::to_string((*server)->port());
  // No node is attached: a call that gets through answers UNAVAILABLE "no Raft node".
  auto through = [&](const std::string& caller_keystore, const std::string& caller_truststore) {
    return DescribeQuorum(*StubAs(address, caller_keystore, caller_truststore)).error_message() ==
           "no Raft node attached";
  };
  std::string old_caller = certs_.Make("old-caller", "--broker 4");
  std::string new_caller = certs_.Make("new-caller", "--broker 4 --ca new");
  EXPECT_TRUE(through(old_caller, certs_.Ca()));
  EXPECT_FALSE(through(new_caller, certs_.Ca("new")));
  // Rotate: each file replaced by a rename, as the provider asks.
  std::filesystem::copy_file(certs_.Make("new-server", "--controller 1 --ca new"), keystore + ".tmp");
  std::filesystem::rename(keystore + ".tmp", keystore);
  std::filesystem::copy_file(certs_.Ca("new"), truststore + ".tmp");
  std::filesystem::rename(truststore + ".tmp", truststore);
  ASSERT_TRUE(testing::WaitUntil([&] { return through(new_caller, certs_.Ca("new")); }, 20s));
  EXPECT_FALSE(through(old_caller, certs_.Ca()));
}

}  // namespace
}  // namespace strata::raft
