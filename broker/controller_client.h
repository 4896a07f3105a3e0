#pragma once
// ControllerClient: a broker's (or a tool's) way to the active controller. It knows every
// controller's address, remembers the one that answered last, and follows NOT_CONTROLLER
// answers to the leader they name, trying the others when none is named or one is down.
// Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "admin.grpc.pb.h"
#include "controller.grpc.pb.h"

namespace strata::broker {

class ControllerClient {
 public:
  // controllers: node id -> host:port (controller.quorum.voters).
  explicit ControllerClient(std::map<int32_t, std::string> controllers,
                            std::chrono::milliseconds call_timeout = std::chrono::seconds(5));

  // Calls `call` on controllers until one answers with something other than
  // NOT_CONTROLLER, or `deadline` passes. call makes its stub on the channel, returns
  // the gRPC status and sets *error_code / *controller_id from the response.
  using Call = std::function<grpc::Status(grpc::ClientContext*, const std::shared_ptr<grpc::Channel>&,
                                          int32_t* error_code, int32_t* controller_id)>;
  absl::Status CallActive(const Call& call, std::chrono::milliseconds deadline);

 private:
  std::shared_ptr<grpc::Channel> Channel(int32_t id);

  const std::map<int32_t, std::string> controllers_;
  const std::chrono::milliseconds call_timeout_;
  std::mutex mu_;
  std::map<int32_t, std::shared_ptr<grpc::Channel>> channels_;
  int32_t last_active_ = 0;
};

}  // namespace strata::broker
