#include "broker/lifecycle/controller_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

std::vector<ControllerAddress> ParseControllerAddresses(absl::string_view text) {
  std::vector<ControllerAddress> out;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    ControllerAddress c;
    size_t at = item.find('@');
    if (at != absl::string_view::npos && absl::SimpleAtoi(item.substr(0, at), &c.id)) item = item.substr(at + 1);
    c.address = std::string(item);
    out.push_back(std::move(c));
  }
  return out;
}

ControllerClient::ControllerClient(std::vector<ControllerAddress> controllers, std::chrono::milliseconds call_timeout,
                                   std::shared_ptr<grpc::ChannelCredentials> credentials)
    : controllers_(std::move(controllers)),
      call_timeout_(call_timeout),
      credentials_(credentials != nullptr ? std::move(credentials) : grpc::InsecureChannelCredentials()) {
  ABSL_CHECK(!controllers_.empty());
}

namespace {
std::vector<ControllerAddress> FromVoters(const std::map<int32_t, std::string>& voters) {
  std::vector<ControllerAddress> out;
  for (const auto& [id, address] : voters) out.push_back({id, address});
  return out;
}
}  // namespace

ControllerClient::ControllerClient(const std::map<int32_t, std::string>& controllers,
                                   std::chrono::milliseconds call_timeout,
                                   std::shared_ptr<grpc::ChannelCredentials> credentials)
    : ControllerClient(FromVoters(controllers), call_timeout, std::move(credentials)) {}

std::shared_ptr<grpc::Channel> ControllerClient::Channel(size_t index) {
  absl::MutexLock lock(&mu_);
  auto it = channels_.find(index);
  if (it != channels_.end()) return it->second;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  auto channel = grpc::CreateCustomChannel(controllers_[index].address, credentials_, args);
  channels_[index] = channel;
  return channel;
}

std::shared_ptr<grpc::Channel> ControllerClient::ActiveChannel() {
  size_t target;
  {
    absl::MutexLock lock(&mu_);
    target = last_active_;
  }
  return Channel(target);
}

void ControllerClient::NoteActive(int32_t controller_id) {
  auto it = std::find_if(controllers_.begin(), controllers_.end(),
                         [&](const ControllerAddress& c) { return controller_id > 0 && c.id == controller_id; });
  if (it == controllers_.end()) return;
  absl::MutexLock lock(&mu_);
  last_active_ = static_cast<size_t>(it - controllers_.begin());
}

absl::Status ControllerClient::CallActive(const Call& call, std::chrono::milliseconds deadline) {
  using std::chrono::milliseconds;
  auto end = std::chrono::steady_clock::now() + deadline;
  const size_t n = controllers_.size();
  size_t target;
  {
    absl::MutexLock lock(&mu_);
    target = last_active_;
  }
  size_t tried = 0;
  std::string last_error = "no controller answered";
  while (true) {
    auto remaining = std::chrono::duration_cast<milliseconds>(end - std::chrono::steady_clock::now());
    if (remaining <= milliseconds(0)) break;
    // A controller that is cut off answers nothing: give each attempt a share of the
    // caller's deadline, so that one call can still reach the others.
    milliseconds attempt = std::min({call_timeout_, remaining, std::max(remaining / static_cast<int64_t>(n),
                                                                         milliseconds(100))});
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + attempt);
    int32_t error_code = 0, controller_id = 0;
    grpc::Status status = call(&context, Channel(target), &error_code, &controller_id);
    if (status.ok() && error_code != static_cast<int32_t>(proto::kafka::ErrorCode::kNotController)) {
      absl::MutexLock lock(&mu_);
      last_active_ = target;
      return absl::OkStatus();
    }
    const std::string& address = controllers_[target].address;
    last_error = status.ok() ? absl::StrCat("controller at ", address, " is not active")
                             : absl::StrCat("controller at ", address, ": ", status.error_message());
    if (status.ok() && controller_id > 0 && controller_id != controllers_[target].id) {
      auto leader = std::find_if(controllers_.begin(), controllers_.end(),
                                 [&](const ControllerAddress& c) { return c.id == controller_id; });
      if (leader != controllers_.end()) {
        target = static_cast<size_t>(leader - controllers_.begin());  // the leader it named
        continue;
      }
    }
    if (!status.ok()) {
      // Unreachable: the next call starts at another controller too, not here again.
      absl::MutexLock lock(&mu_);
      if (last_active_ == target) last_active_ = (target + 1) % n;
    }
    target = (target + 1) % n;
    // All tried without an answer: wait a little for an election before the next round.
    if (++tried % n == 0) std::this_thread::sleep_for(milliseconds(50));  // retry pacing, not synchronisation
  }
  return absl::UnavailableError(absl::StrCat("no active controller within ", deadline.count(), " ms: ", last_error));
}

}  // namespace strata::broker
