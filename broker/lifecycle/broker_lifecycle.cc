#include "broker/lifecycle/broker_lifecycle.h"

#include <grpcpp/grpcpp.h>

#include "absl/cleanup/cleanup.h"

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "controller/features.h"
#include "proto/kafka/error_code.h"
#include "storage/meta_properties.h"

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;
namespace cv1 = strata::controller::v1;

std::string NewIncarnationId() {
  auto bytes = storage::DecodeBase64Uuid(storage::NewBase64Uuid());
  return *bytes;
}

}  // namespace

BrokerLifecycle::BrokerLifecycle(ControllerClient& client, BrokerLifecycleOptions options)
    : client_(client), options_(std::move(options)), incarnation_id_(NewIncarnationId()) {
  thread_ = std::thread([this] { Run(); });
}

BrokerLifecycle::~BrokerLifecycle() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
  CloseSessionStream();
}

void BrokerLifecycle::CloseSessionStream() {
  std::unique_ptr<ControllerSessionStream> stream;
  {
    absl::MutexLock lock(&mu_);
    stream = std::move(session_stream_);
  }
  stream.reset();  // closed on purpose: the controller reads a clean end
}

void BrokerLifecycle::StartSessionStream() {
  absl::MutexLock lock(&mu_);
  if (session_stream_ != nullptr || stopping_) return;
  session_stream_ = std::make_unique<ControllerSessionStream>(client_, options_.broker_id);
  session_stream_->SetEpoch(status_.broker_epoch);
}

const ControllerSessionStream* BrokerLifecycle::session_stream() const {
  absl::MutexLock lock(&mu_);
  return session_stream_.get();
}

BrokerLifecycleStatus BrokerLifecycle::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

std::chrono::milliseconds BrokerLifecycle::SinceAccepted() const {
  std::chrono::steady_clock::duration last(last_accepted_.load(std::memory_order_relaxed));
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch() -
                                                               last);
}

void BrokerLifecycle::ReportOfflineDir(const std::string& dir_id) {
  {
    absl::MutexLock lock(&mu_);
    offline_dirs_.insert(dir_id);
    heartbeat_now_ = true;
  }
  wake_.SignalAll();
}

bool BrokerLifecycle::WaitOfflineDirsReported(std::chrono::milliseconds timeout) {
  absl::MutexLock lock(&mu_);
  auto reported = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return offline_dirs_accepted_ >= offline_dirs_.size(); };
  return mu_.AwaitWithTimeout(absl::Condition(&reported), absl::FromChrono(timeout));
}

bool BrokerLifecycle::Register() {
  cv1::BrokerRegistrationRequest request;
  request.set_broker_id(options_.broker_id);
  request.set_incarnation_id(incarnation_id_);
  for (const auto& l : options_.listeners) *request.add_listeners() = l;
  request.set_rack(options_.rack);
  for (const auto& d : options_.log_dir_ids) request.add_log_dirs(d);
  request.set_cluster_id(options_.cluster_id);
  for (const auto& f : controller::SupportedFeatures()) *request.add_supported_features() = f;
  cv1::BrokerRegistrationResponse response;
  absl::Status s = client_.CallController(&cv1::ControllerService::Stub::BrokerRegistration, request, &response,
                                          options_.heartbeat_interval * 2);
  absl::MutexLock lock(&mu_);
  if (!s.ok() || response.error_code() != 0) {
    status_.last_error = s.ok() ? absl::StrCat(proto::kafka::ErrorName(static_cast<ErrorCode>(response.error_code())),
                                               ": ", response.error_message())
                                : std::string(s.message());
    return false;
  }
  status_.broker_epoch = response.broker_epoch();
  status_.fenced = true;
  if (session_stream_ != nullptr) session_stream_->SetEpoch(response.broker_epoch());
  last_accepted_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  status_.last_error.clear();
  spdlog::info("broker {}: registered with epoch {}", options_.broker_id, response.broker_epoch());
  return true;
}

bool BrokerLifecycle::Heartbeat(bool want_shut_down, bool* should_shut_down) {
  cv1::BrokerHeartbeatRequest request;
  {
    absl::MutexLock lock(&mu_);
    request.set_broker_epoch(status_.broker_epoch);
    for (const auto& d : offline_dirs_) request.add_offline_log_dirs(d);
  }
  request.set_broker_id(options_.broker_id);
  request.set_current_metadata_offset(options_.metadata_offset ? options_.metadata_offset() : 0);
  request.set_want_shut_down(want_shut_down);
  if (options_.tier_state_failing) {
    for (const std::string& tp : options_.tier_state_failing()) request.add_tier_state_failing(tp);
  }
  cv1::BrokerHeartbeatResponse response;
  absl::Status s = client_.CallController(&cv1::ControllerService::Stub::BrokerHeartbeat, request, &response,
                                          options_.heartbeat_interval);
  absl::MutexLock lock(&mu_);
  if (!s.ok()) {
    status_.last_error = std::string(s.message());
    return true;  // the controller is away: try again later
  }
  ErrorCode code = static_cast<ErrorCode>(response.error_code());
  if (code == ErrorCode::kStaleBrokerEpoch || code == ErrorCode::kBrokerIdNotRegistered) {
    spdlog::warn("broker {}: heartbeat refused ({}), registering again", options_.broker_id, response.error_message());
    status_.broker_epoch = -1;
    if (session_stream_ != nullptr) session_stream_->SetEpoch(-1);
    return false;
  }
  if (code != ErrorCode::kNone) {
    status_.last_error = absl::StrCat(proto::kafka::ErrorName(code), ": ", response.error_message());
    return true;
  }
  ++status_.heartbeats;
  if (session_stream_ != nullptr) session_stream_->FollowActive();
  last_accepted_.store(std::chrono::steady_clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  offline_dirs_accepted_ = std::max(offline_dirs_accepted_, static_cast<size_t>(request.offline_log_dirs_size()));
  if (status_.fenced != response.is_fenced()) {
    spdlog::info("broker {}: {}", options_.broker_id, response.is_fenced() ? "fenced" : "unfenced");
  }
  status_.fenced = response.is_fenced();
  status_.caught_up = response.is_caught_up();
  status_.last_error.clear();
  if (should_shut_down) *should_shut_down = response.should_shut_down();
  return true;
}

void BrokerLifecycle::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
    }
    bool registered = status().broker_epoch >= 0 || Register();
    if (registered && !Heartbeat(false, nullptr)) continue;  // register again at once
    absl::MutexLock lock(&mu_);
    auto wait = registered ? options_.heartbeat_interval : std::chrono::milliseconds(200);
    auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || heartbeat_now_; };
    mu_.AwaitWithTimeout(absl::Condition(&woken), absl::FromChrono(wait));
    heartbeat_now_ = false;
  }
}

bool BrokerLifecycle::Shutdown(std::chrono::milliseconds timeout) {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  if (thread_.joinable()) thread_.join();
  // The stream stays open through the controlled shutdown: the process is still there.
  absl::Cleanup close_stream = [this] { CloseSessionStream(); };
  if (status().broker_epoch < 0) return true;  // never registered: nothing leads here
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    bool done = false;
    if (Heartbeat(true, &done) && done) {
      spdlog::info("broker {}: controlled shutdown done", options_.broker_id);
      return true;
    }
    absl::MutexLock lock(&mu_);
    wake_.WaitWithTimeout(&mu_, absl::Milliseconds(100));  // pacing between shutdown heartbeats
  }
  spdlog::warn("broker {}: controlled shutdown not confirmed within {} ms", options_.broker_id, timeout.count());
  return false;
}

}  // namespace strata::broker
