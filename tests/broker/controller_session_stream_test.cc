// The broker's session stream (ControllerSessionStream) against real gRPC servers on
// loopback that play the controller: it opens for the current registration, a new epoch
// or Close ends it with the closing message (which the controller sees as a clean end,
// never as a broken connection), a stream the controller ends is opened again, and
// NOT_CONTROLLER sends it to the controller named.

#include "broker/lifecycle/controller_session_stream.h"

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "controller.grpc.pb.h"
#include "proto/kafka/error_code.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace cv1 = strata::controller::v1;

class Controller final : public cv1::ControllerService::Service {
 public:
  explicit Controller(int32_t redirect_to = 0) : redirect_to_(redirect_to) {}

  grpc::Status BrokerSession(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<cv1::BrokerSessionResponse, cv1::BrokerSessionRequest>* stream) override {
    cv1::BrokerSessionRequest request;
    if (!stream->Read(&request)) return grpc::Status::OK;
    cv1::BrokerSessionResponse response;
    if (redirect_to_ != 0) {
      response.set_error_code(static_cast<int32_t>(proto::kafka::ErrorCode::kNotController));
      response.set_controller_id(redirect_to_);
      stream->Write(response);
      absl::MutexLock lock(&mu_);
      refused_.push_back(request.broker_epoch());
      return grpc::Status::OK;
    }
    {
      absl::MutexLock lock(&mu_);
      opened_.push_back(request.broker_epoch());
      context_ = context;
    }
    stream->Write(response);
    bool closing = false;  // as the controller reads it (controller_service.h)
    while (stream->Read(&request)) closing = closing || request.closing();
    absl::MutexLock lock(&mu_);
    context_ = nullptr;
    ends_.push_back(closing ? "clean" : "broken");
    return grpc::Status::OK;
  }

  // Ends the open stream from this side, as a controller that stops being active.
  void EndStream() {
    absl::MutexLock lock(&mu_);
    ASSERT_NE(context_, nullptr);
    context_->TryCancel();
  }

  // Waits (5 s at most) until `ready` holds of the epochs opened and the ends seen.
  bool WaitFor(const std::function<bool(const std::vector<int64_t>&, const std::vector<std::string>&)>& ready) {
    absl::MutexLock lock(&mu_);
    auto met = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return ready(opened_, ends_); };
    return mu_.AwaitWithTimeout(absl::Condition(&met), absl::Seconds(5));
  }
  std::vector<int64_t> opened() {
    absl::MutexLock lock(&mu_);
    return opened_;
  }
  std::vector<std::string> ends() {
    absl::MutexLock lock(&mu_);
    return ends_;
  }
  std::vector<int64_t> refused() {
    absl::MutexLock lock(&mu_);
    return refused_;
  }

 private:
  const int32_t redirect_to_;
  absl::Mutex mu_;
  std::vector<int64_t> opened_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> refused_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> ends_ ABSL_GUARDED_BY(mu_);
  grpc::ServerContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
};

struct Server {
  explicit Server(Controller* service) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service);
    server = builder.BuildAndStart();
  }
  ~Server() { server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1)); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
  int port = 0;
  std::unique_ptr<grpc::Server> server;
};

using Epochs = std::vector<int64_t>;
using Ends = std::vector<std::string>;

TEST(ControllerSessionStream, OpensForTheRegistrationAndClosesCleanly) {
  Controller controller;
  Server server(&controller);
  ControllerClient client(std::vector<ControllerAddress>{{1, server.address()}});
  ControllerSessionStream stream(client, 4);
  EXPECT_FALSE(stream.open());  // no registration yet: nothing opens
  stream.SetEpoch(10);
  ASSERT_TRUE(controller.WaitFor([](const Epochs& o, const Ends&) { return o.size() == 1; }));
  EXPECT_EQ(controller.opened(), Epochs{10});
  // Open once the controller's answer is read (a stream ended before is cancelled).
  ASSERT_TRUE(testing::WaitUntil([&] { return stream.open(); }, std::chrono::seconds(5)));
  stream.Close();
  ASSERT_TRUE(controller.WaitFor([](const Epochs&, const Ends& e) { return e.size() == 1; }));
  EXPECT_EQ(controller.ends(), Ends{"clean"});  // the closing message: the controller fences nothing
  EXPECT_EQ(stream.accepted(), 1);
  EXPECT_FALSE(stream.open());
}

TEST(ControllerSessionStream, ANewRegistrationHalfClosesTheOldStreamAndOpensOneForItself) {
  Controller controller;
  Server server(&controller);
  ControllerClient client(std::vector<ControllerAddress>{{1, server.address()}});
  ControllerSessionStream stream(client, 4);
  stream.SetEpoch(10);
  ASSERT_TRUE(testing::WaitUntil([&] { return stream.accepted() == 1 && stream.open(); }, std::chrono::seconds(5)));
  stream.SetEpoch(12);
  ASSERT_TRUE(controller.WaitFor([](const Epochs& o, const Ends& e) { return o.size() == 2 && e.size() == 1; }));
  EXPECT_EQ(controller.opened(), (Epochs{10, 12}));
  EXPECT_EQ(controller.ends(), Ends{"clean"});
  ASSERT_TRUE(testing::WaitUntil([&] { return stream.accepted() == 2 && stream.open(); }, std::chrono::seconds(5)));
  stream.SetEpoch(-1);  // the registration was refused: no stream until the next one
  ASSERT_TRUE(controller.WaitFor([](const Epochs&, const Ends& e) { return e.size() == 2; }));
  EXPECT_EQ(controller.ends(), (Ends{"clean", "clean"}));
  EXPECT_EQ(controller.opened(), (Epochs{10, 12}));
}

// Ended while it opens (its first write may wait for a connection, which must not hold
// SetEpoch or Close): cancelled, never closed with a message across that write.
TEST(ControllerSessionStream, AStreamEndedWhileItOpensIsCancelled) {
  Controller controller;
  Server server(&controller);
  ControllerClient client(std::vector<ControllerAddress>{{1, server.address()}});
  ControllerSessionStream stream(client, 4);
  stream.SetEpoch(10);
  ASSERT_TRUE(controller.WaitFor([](const Epochs& o, const Ends&) { return o.size() == 1; }));
  stream.Close();  // whether or not the answer was read yet: Close returns
  EXPECT_FALSE(stream.open());
  ASSERT_TRUE(controller.WaitFor([](const Epochs&, const Ends& e) { return e.size() == 1; }));
}

TEST(ControllerSessionStream, AStreamTheControllerEndsIsOpenedAgain) {
  Controller controller;
  Server server(&controller);
  ControllerClient client(std::vector<ControllerAddress>{{1, server.address()}});
  ControllerSessionStream stream(client, 4);
  stream.SetEpoch(10);
  ASSERT_TRUE(controller.WaitFor([](const Epochs& o, const Ends&) { return o.size() == 1; }));
  controller.EndStream();
  ASSERT_TRUE(controller.WaitFor([](const Epochs& o, const Ends& e) { return o.size() == 2 && e.size() == 1; }));
  EXPECT_EQ(controller.opened(), (Epochs{10, 10}));
  EXPECT_EQ(controller.ends(), Ends{"broken"});  // ended from the controller's side, no closing message
}

TEST(ControllerSessionStream, NotControllerSendsItToTheControllerNamed) {
  Controller inactive(/*redirect_to=*/2), active;
  Server a(&inactive), b(&active);
  ControllerClient client(std::vector<ControllerAddress>{{1, a.address()}, {2, b.address()}});
  ControllerSessionStream stream(client, 4);
  stream.SetEpoch(10);
  ASSERT_TRUE(active.WaitFor([](const Epochs& o, const Ends&) { return o.size() == 1; }));
  EXPECT_EQ(inactive.refused(), Epochs{10});
  EXPECT_EQ(active.opened(), Epochs{10});
}

TEST(ControllerSessionStream, AStreamHeldByAControllerThatIsNoLongerActiveMovesToTheActiveOne) {
  Controller old_active, new_active;
  Server a(&old_active), b(&new_active);
  ControllerClient client(std::vector<ControllerAddress>{{1, a.address()}, {2, b.address()}});
  ControllerSessionStream stream(client, 4);
  stream.SetEpoch(10);
  ASSERT_TRUE(old_active.WaitFor([](const Epochs& o, const Ends&) { return o.size() == 1; }));
  stream.FollowActive();  // still the active one: nothing moves
  client.NoteActive(2);   // as a heartbeat answered by controller 2 would
  stream.FollowActive();
  ASSERT_TRUE(new_active.WaitFor([](const Epochs& o, const Ends&) { return o.size() == 1; }));
  ASSERT_TRUE(old_active.WaitFor([](const Epochs&, const Ends& e) { return e.size() == 1; }));
  EXPECT_EQ(old_active.opened(), Epochs{10});
  EXPECT_EQ(new_active.opened(), Epochs{10});
  EXPECT_EQ(old_active.ends(), Ends{"broken"});  // cancelled by the broker: no closing message
}

}  // namespace
}  // namespace strata::broker
