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
    : call_timeout_(call_timeout),
      credentials_(credentials != nullptr ? std::move(credentials) : grpc::InsecureChannelCredentials()),
      controllers_(std::move(controllers)) {
  ABSL_CHECK(!controllers_.empty());
  last_active_ = controllers_.front();
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

std::shared_ptr<grpc::Channel> ControllerClient::Channel(const std::string& address) {
  absl::MutexLock lock(&mu_);
  auto it = channels_.find(address);
  if (it != channels_.end()) return it->second;
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  auto channel = grpc::CreateCustomChannel(address, credentials_, args);
  channels_[address] = channel;
  return channel;
}

std::shared_ptr<grpc::Channel> ControllerClient::ActiveChannel() {
  std::string address;
  {
    absl::MutexLock lock(&mu_);
    address = last_active_.address;
  }
  return Channel(address);
}

void ControllerClient::NoteActive(int32_t controller_id) {
  absl::MutexLock lock(&mu_);
  for (const ControllerAddress& c : controllers_) {
    if (controller_id > 0 && c.id == controller_id) last_active_ = c;
  }
}

void ControllerClient::SetControllers(std::vector<ControllerAddress> controllers) {
  ABSL_CHECK(!controllers.empty());
  absl::MutexLock lock(&mu_);
  controllers_ = std::move(controllers);
  for (auto it = channels_.begin(); it != channels_.end();) {
    bool kept = std::any_of(controllers_.begin(), controllers_.end(),
                            [&](const ControllerAddress& c) { return c.address == it->first; });
    it = kept ? std::next(it) : channels_.erase(it);
  }
  const ControllerAddress active = last_active_;
  bool known = std::any_of(controllers_.begin(), controllers_.end(), [&](const ControllerAddress& c) {
    return c.id == active.id && c.address == active.address;
  });
  if (!known) last_active_ = controllers_.front();
}

void ControllerClient::SetRediscover(std::function<std::vector<ControllerAddress>()> rediscover) {
  absl::MutexLock lock(&mu_);
  rediscover_ = std::move(rediscover);
}

bool ControllerClient::Rediscover() {
  std::function<std::vector<ControllerAddress>()> rediscover;
  std::vector<ControllerAddress> before;
  {
    absl::MutexLock lock(&mu_);
    rediscover = rediscover_;
    before = controllers_;
  }
  if (!rediscover) return false;
  std::vector<ControllerAddress> found = rediscover();
  if (found.empty()) return false;
  auto same = [](const std::vector<ControllerAddress>& a, const std::vector<ControllerAddress>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const ControllerAddress& x, const ControllerAddress& y) {
      return x.id == y.id && x.address == y.address;
    });
  };
  if (same(found, before)) return false;
  SetControllers(std::move(found));
  return true;
}

absl::Status ControllerClient::CallActive(const Call& call, std::chrono::milliseconds deadline) {
  using std::chrono::milliseconds;
  auto end = std::chrono::steady_clock::now() + deadline;
  std::vector<ControllerAddress> controllers;
  size_t target = 0;
  // The list as it stands, starting at the controller that answered last.
  auto load = [&] {
    absl::MutexLock lock(&mu_);
    controllers = controllers_;
    target = 0;
    for (size_t i = 0; i < controllers.size(); ++i) {
      if (controllers[i].address == last_active_.address) target = i;
    }
  };
  load();
  size_t tried = 0;
  bool rediscovered = false;  // this round
  std::string last_error = "no controller answered";
  while (true) {
    const size_t n = controllers.size();
    auto remaining = std::chrono::duration_cast<milliseconds>(end - std::chrono::steady_clock::now());
    if (remaining <= milliseconds(0)) break;
    // A controller that is cut off answers nothing: give each attempt a share of the
    // caller's deadline, so that one call can still reach the others.
    milliseconds attempt = std::min({call_timeout_, remaining, std::max(remaining / static_cast<int64_t>(n),
                                                                         milliseconds(100))});
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + attempt);
    int32_t error_code = 0, controller_id = 0;
    const ControllerAddress& c = controllers[target];
    grpc::Status status = call(&context, Channel(c.address), &error_code, &controller_id);
    if (status.ok() && error_code != static_cast<int32_t>(proto::kafka::ErrorCode::kNotController)) {
      absl::MutexLock lock(&mu_);
      last_active_ = c;
      return absl::OkStatus();
    }
    last_error = status.ok() ? absl::StrCat("controller at ", c.address, " is not active")
                             : absl::StrCat("controller at ", c.address, ": ", status.error_message());
    if (status.ok() && controller_id > 0 && controller_id != c.id) {
      auto leader = std::find_if(controllers.begin(), controllers.end(),
                                 [&](const ControllerAddress& x) { return x.id == controller_id; });
      if (leader != controllers.end()) {
        target = static_cast<size_t>(leader - controllers.begin());  // the leader it named
        continue;
      }
      // A leader this list does not hold: the quorum's voters changed.
      if (!rediscovered && Rediscover()) {
        rediscovered = true;
        load();
        NoteActive(controller_id);
        load();
        continue;
      }
    }
    if (!status.ok()) {
      // Unreachable: the next call starts at another controller too, not here again.
      absl::MutexLock lock(&mu_);
      if (last_active_.address == c.address) last_active_ = controllers[(target + 1) % n];
    }
    target = (target + 1) % n;
    // All tried without an answer: look for the controllers again, then wait a little
    // for an election before the next round.
    if (++tried % n == 0) {
      if (!rediscovered && Rediscover()) load();
      rediscovered = false;
      std::this_thread::sleep_for(milliseconds(50));  // retry pacing, not synchronisation
    }
  }
  return absl::UnavailableError(absl::StrCat("no active controller within ", deadline.count(), " ms: ", last_error));
}

}  // namespace strata::broker
