#include "broker/replication/log_dir_mover.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "controller/metadata_image.h"
#include "controller.grpc.pb.h"

namespace strata::broker {

LogDirMover::LogDirMover(LogDirMoverOptions options)
    : options_(std::move(options)), throttler_(options_.max_bytes_per_second) {
  ABSL_CHECK(options_.logs != nullptr && options_.partition);
  ABSL_CHECK_GT(options_.copy_bytes, 0u);
  thread_ = std::thread([this] { Run(); });
}

LogDirMover::~LogDirMover() { Shutdown(); }

void LogDirMover::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  stop_.store(true);
  throttler_.Wake();
  if (thread_.joinable()) thread_.join();
}

void LogDirMover::Add(const storage::TopicPartition& tp) {
  // No cleaning of the current log during the move: the cleaner would swap segments of
  // a log whose directory the move renames.
  if (storage::LogCleaner* cleaner = options_.logs->cleaner()) cleaner->AbortAndPause(tp);
  absl::MutexLock lock(&mu_);
  moving_.insert(tp);
}

void LogDirMover::ReportDirectory(const storage::TopicPartition& tp, const std::string& topic_id,
                                  const std::string& directory_id) {
  if (options_.controller == nullptr || directory_id.empty()) return;
  absl::MutexLock lock(&mu_);
  reports_[tp] = Report{topic_id, directory_id};
}

std::set<storage::TopicPartition> LogDirMover::moving() const {
  absl::MutexLock lock(&mu_);
  return moving_;
}

size_t LogDirMover::directory_reports_pending() const {
  absl::MutexLock lock(&mu_);
  return reports_.size();
}

void LogDirMover::Run() {
  while (true) {
    std::set<storage::TopicPartition> moving;
    bool report;
    {
      absl::MutexLock lock(&mu_);
      auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !moving_.empty() || !reports_.empty();
      };
      mu_.AwaitWithTimeout(absl::Condition(&wake), absl::Seconds(1));
      if (stopping_) return;
      moving = moving_;
      report = !reports_.empty();
    }
    // Round robin: one step of each moving partition per round.
    for (const storage::TopicPartition& tp : moving) {
      if (stop_.load()) return;
      if (Step(tp)) Finish(tp);
    }
    if (report) {
      SendDirectoryReports();
      // Unanswered reports wait a little before they go again (the controller may be
      // out of reach); moves do not.
      absl::MutexLock lock(&mu_);
      auto busy = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !moving_.empty(); };
      if (!reports_.empty()) mu_.AwaitWithTimeout(absl::Condition(&busy), absl::Milliseconds(500));
    }
  }
}

uint64_t LogDirMover::StepBytes() {
  if (!throttler_.paced()) return options_.copy_bytes;
  const double rate = throttler_.rate();
  return std::min<uint64_t>(options_.copy_bytes, std::max<uint64_t>(4096, static_cast<uint64_t>(rate / 4)));
}

bool LogDirMover::Step(const storage::TopicPartition& tp) {
  std::shared_ptr<Partition> partition = options_.partition(tp);
  if (partition == nullptr || partition->future_log() == nullptr) return true;  // dropped or cancelled
  const uint64_t step = StepBytes();
  auto copied = partition->CopyToFutureLog(step);
  if (!copied.ok()) {
    spdlog::error("broker {}: the move of {} to another log dir stops: {}", options_.broker_id, tp.DirName(),
                  copied.status().ToString());
    moves_failed_.fetch_add(1, std::memory_order_relaxed);
    if (absl::Status stopped = StopMove(*partition, tp); !stopped.ok()) {
      spdlog::error("broker {}: deleting the future log of {}: {}", options_.broker_id, tp.DirName(),
                    stopped.ToString());
    }
    return true;
  }
  bytes_copied_.fetch_add(copied->bytes, std::memory_order_relaxed);
  // What is left, in bytes as this step's records were: a step's worth or more (the
  // current log grew meanwhile) is copied while the partition serves.
  const bool little_left =
      copied->lag == 0 ||
      (copied->offsets > 0 && static_cast<double>(copied->lag) * copied->bytes / copied->offsets < step);
  if (!little_left) {
    if (copied->bytes > 0 && throttler_.paced()) {
      // Not while holding the partition: dropping it (ReplicaManager) waits for its holders.
      partition.reset();
      throttler_.Acquire(copied->bytes, stop_);
    }
    return false;
  }
  // Less than a step is left: it is copied under the partition's lock, then the future
  // log takes the current log's place.
  const std::string from = partition->log()->log_dir();
  absl::Status replaced = partition->ReplaceLogWithFuture(*options_.logs, options_.copy_bytes);
  if (!replaced.ok()) {
    // A failed dir is offline now (the storage layer said so), and the partition with it.
    spdlog::error("broker {}: moving {} from {}: {}", options_.broker_id, tp.DirName(), from, replaced.ToString());
    moves_failed_.fetch_add(1, std::memory_order_relaxed);
    (void)StopMove(*partition, tp);
    return true;
  }
  moves_completed_.fetch_add(1, std::memory_order_relaxed);
  const std::string to = partition->log()->log_dir();
  spdlog::info("broker {}: {} moved from {} to {}", options_.broker_id, tp.DirName(), from, to);
  ReportDirectory(tp, partition->topic_id(), options_.logs->directory_id(to));
  return true;
}

absl::Status LogDirMover::StopMove(Partition& partition, const storage::TopicPartition& tp) {
  partition.DetachFutureLog();  // waits for a copy step under way
  return options_.logs->DeleteFutureLog(tp);
}

void LogDirMover::Finish(const storage::TopicPartition& tp) {
  if (storage::LogCleaner* cleaner = options_.logs->cleaner()) cleaner->Resume(tp);
  absl::MutexLock lock(&mu_);
  moving_.erase(tp);
}

void LogDirMover::SendDirectoryReports() {
  controller::v1::AssignReplicasToDirsRequest request;
  std::map<storage::TopicPartition, Report> sent;
  {
    absl::MutexLock lock(&mu_);
    sent = reports_;
  }
  request.set_broker_id(options_.broker_id);
  request.set_broker_epoch(options_.broker_epoch ? options_.broker_epoch() : -1);
  for (const auto& [tp, report] : sent) {
    auto* a = request.add_assignments();
    a->set_topic_id(report.topic_id);
    a->set_partition_id(tp.partition);
    a->set_directory_id(report.directory_id);
  }
  controller::v1::AssignReplicasToDirsResponse response;
  absl::Status status = options_.controller->CallController(
      &controller::v1::ControllerService::Stub::AssignReplicasToDirs, request, &response, std::chrono::seconds(2));
  if (!status.ok() || response.error_code() != 0) {
    spdlog::warn("broker {}: AssignReplicasToDirs for {} replicas unanswered: {} {}; sending again",
                 options_.broker_id, sent.size(), status.ToString(), response.error_message());
    return;
  }
  for (const auto& p : response.partitions()) {
    if (p.error_code() == 0) continue;
    // Refused for good (the replica left this broker, its dir went offline): the image
    // and the next apply say what holds.
    spdlog::warn("broker {}: AssignReplicasToDirs for partition {} of topic id {} refused: {} {}",
                 options_.broker_id, p.partition_id(), controller::TopicIdToString(p.topic_id()), p.error_code(),
                 p.error_message());
  }
  absl::MutexLock lock(&mu_);
  for (const auto& [tp, report] : sent) {
    auto it = reports_.find(tp);
    if (it != reports_.end() && it->second.directory_id == report.directory_id) reports_.erase(it);
  }
}

}  // namespace strata::broker
