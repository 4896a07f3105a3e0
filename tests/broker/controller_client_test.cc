// ControllerClient against real gRPC servers on loopback: a controller that stops
// answering (cut off by a network partition: its connections go silent rather than
// refused) must not hold the broker's calls. Each call's deadline is shared among the
// controllers, and the next call starts at another one.

#include "broker/lifecycle/controller_client.h"

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "controller.grpc.pb.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;

// Answers heartbeats as the active controller, or, once `silent`, holds each call until
// released (as a controller behind a partition: the call only ends at its deadline).
class Controller final : public controller::v1::ControllerService::Service {
 public:
  grpc::Status BrokerHeartbeat(grpc::ServerContext* context, const controller::v1::BrokerHeartbeatRequest*,
                               controller::v1::BrokerHeartbeatResponse* response) override {
    ++calls;
    absl::MutexLock lock(&mu);
    auto released = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return !silent || stopping; };
    while (!mu.AwaitWithTimeout(absl::Condition(&released), absl::Milliseconds(10))) {
      if (context->IsCancelled()) return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
    }
    if (stopping) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "stopping");
    response->set_error_code(0);
    return grpc::Status::OK;
  }
  void SetSilent(bool value) {
    absl::MutexLock lock(&mu);
    silent = value;
  }
  void Stop() {
    absl::MutexLock lock(&mu);
    stopping = true;
  }
  std::atomic<int> calls{0};
  absl::Mutex mu;
  bool silent ABSL_GUARDED_BY(mu) = false;
  bool stopping ABSL_GUARDED_BY(mu) = false;
};

struct Server {
  explicit Server(Controller* service) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service);
    server = builder.BuildAndStart();
  }
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

absl::Status Heartbeat(ControllerClient& client, std::chrono::milliseconds deadline) {
  controller::v1::BrokerHeartbeatRequest request;
  controller::v1::BrokerHeartbeatResponse response;
  return client.CallController(&controller::v1::ControllerService::Stub::BrokerHeartbeat, request, &response,
                               deadline);
}

TEST(ControllerClient, AControllerThatGoesSilentDoesNotHoldCallsThatAnotherCanAnswer) {
  Controller first, second;
  Server a(&first), b(&second);
  ASSERT_NE(a.server, nullptr);
  ASSERT_NE(b.server, nullptr);
  ControllerClient client(std::vector<ControllerAddress>{{1, "127.0.0.1:" + std::to_string(a.port)},
                                                         {2, "127.0.0.1:" + std::to_string(b.port)}});
  ASSERT_TRUE(Heartbeat(client, 300ms).ok());  // the first is active: the client remembers it
  ASSERT_EQ(first.calls.load(), 1);
  first.SetSilent(true);
  // A heartbeat's deadline (300 ms) is far below the client's per-call timeout (5 s): the
  // silent controller gets a share of it, the other answers within it.
  absl::Status answered = Heartbeat(client, 300ms);
  EXPECT_TRUE(answered.ok()) << answered;
  EXPECT_EQ(second.calls.load(), 1);
  // The next call goes to the one that answered, not to the silent one first.
  int silent_calls = first.calls.load();
  EXPECT_TRUE(Heartbeat(client, 300ms).ok());
  EXPECT_EQ(first.calls.load(), silent_calls);
  first.Stop();
  second.Stop();
  a.server->Shutdown();
  b.server->Shutdown();
}

}  // namespace
}  // namespace strata::broker
