#include "broker/controller_client.h"

#include <grpcpp/grpcpp.h>

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

ControllerClient::ControllerClient(std::map<int32_t, std::string> controllers, std::chrono::milliseconds call_timeout)
    : controllers_(std::move(controllers)), call_timeout_(call_timeout) {}

std::shared_ptr<grpc::Channel> ControllerClient::Channel(int32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = channels_.find(id);
  if (it != channels_.end()) return it->second;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  auto channel = grpc::CreateCustomChannel(controllers_.at(id), grpc::InsecureChannelCredentials(), args);
  channels_[id] = channel;
  return channel;
}

absl::Status ControllerClient::CallActive(const Call& call, std::chrono::milliseconds deadline) {
  auto end = std::chrono::steady_clock::now() + deadline;
  int32_t target;
  {
    std::lock_guard<std::mutex> lock(mu_);
    target = last_active_ != 0 ? last_active_ : controllers_.begin()->first;
  }
  std::vector<int32_t> ids;
  for (const auto& [id, address] : controllers_) ids.push_back(id);
  size_t next = 0;
  std::string last_error = "no controller answered";
  while (std::chrono::steady_clock::now() < end) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + call_timeout_);
    int32_t error_code = 0, controller_id = 0;
    grpc::Status status = call(&context, Channel(target), &error_code, &controller_id);
    if (status.ok() && error_code != static_cast<int32_t>(proto::kafka::ErrorCode::kNotController)) {
      std::lock_guard<std::mutex> lock(mu_);
      last_active_ = target;
      return absl::OkStatus();
    }
    last_error = status.ok() ? absl::StrCat("controller ", target, " is not active")
                             : absl::StrCat("controller ", target, ": ", status.error_message());
    if (status.ok() && controller_id > 0 && controller_id != target && controllers_.count(controller_id)) {
      target = controller_id;  // the leader it named
      continue;
    }
    target = ids[next++ % ids.size()];
    // All tried without an answer: wait a little for an election before the next round.
    if (next % ids.size() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // retry pacing, not synchronisation
  }
  return absl::UnavailableError(absl::StrCat("no active controller within ", deadline.count(), " ms: ", last_error));
}

}  // namespace strata::broker
