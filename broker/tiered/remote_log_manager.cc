#include "broker/tiered/remote_log_manager.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/common/remote_segment_id.h"
#include "broker/common/kafka_error.h"
#include "broker/tiered/upload_eligibility.h"
#include "controller/metadata_image.h"
#include "proto/kafka/error_code.h"
#include "storage/checkpoint_file.h"
#include "storage/errc.h"
#include "storage/meta_properties.h"

namespace strata::broker {
namespace {

std::string SegmentIdText(const std::string& id) { return absl::WebSafeBase64Escape(id); }


}  // namespace

RemoteLogManager::RemoteLogManager(RemoteLogManagerOptions options) : options_(std::move(options)) {
  ABSL_CHECK(options_.remote_storage != nullptr);
  ABSL_CHECK(options_.controller != nullptr);
  ABSL_CHECK(options_.broker_epoch != nullptr);
  ABSL_CHECK(options_.remote_segments != nullptr);
}

RemoteLogManager::~RemoteLogManager() { Shutdown(); }

void RemoteLogManager::Start() {
  ABSL_CHECK(options_.partitions != nullptr);
  threads_.emplace_back([this] { Loop(); });
  for (int i = 0; i < std::max(options_.thread_pool_size, 1); ++i) threads_.emplace_back([this] { Work(); });
}

void RemoteLogManager::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    queue_.clear();
  }
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void RemoteLogManager::Loop() {
  while (true) {
    std::vector<std::shared_ptr<Partition>> partitions = options_.partitions();
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      for (auto& p : partitions) {
        if (!p->is_leader() || !p->log()->config().remote_storage_enable) continue;
        if (busy_.insert(p->topic_partition()).second) queue_.push_back(std::move(p));
      }
      auto stop = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
      mu_.AwaitWithTimeout(absl::Condition(&stop), absl::FromChrono(options_.task_interval));
      if (stopping_) return;
    }
  }
}

void RemoteLogManager::Work() {
  while (true) {
    std::shared_ptr<Partition> partition;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || !queue_.empty(); };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      partition = std::move(queue_.front());
      queue_.pop_front();
    }
    (void)RunTask(*partition);
    absl::MutexLock lock(&mu_);
    busy_.erase(partition->topic_partition());
  }
}

absl::Status RemoteLogManager::RunTask(Partition& partition) {
  const storage::TopicPartition& tp = partition.topic_partition();
  PartitionState state = partition.state();
  if (state.leader != options_.broker_id || !partition.log()->config().remote_storage_enable ||
      partition.log()->offline()) {
    absl::MutexLock lock(&mu_);
    tasks_.erase(tp);
    return absl::OkStatus();
  }
  Task task;
  {
    absl::MutexLock lock(&mu_);
    Task& known = tasks_[tp];
    if (known.leader_epoch != state.leader_epoch) known = Task{.leader_epoch = state.leader_epoch};
    task = known;
  }
  int64_t now = options_.clock->NowMs();
  if (now < task.next_attempt_ms) return absl::OkStatus();
  absl::Status status = RunTaskLocked(partition, state, task);
  if (status.ok()) {
    task.backoff_ms = 0;
    task.next_attempt_ms = 0;
  } else {
    int64_t first = options_.retry_backoff.count();
    task.backoff_ms = std::min<int64_t>(std::max(task.backoff_ms * 2, first), options_.retry_backoff_max.count());
    task.next_attempt_ms = now + task.backoff_ms;
    spdlog::warn("broker {}: remote log task of {} failed (again in {} ms): {}", options_.broker_id, tp.DirName(),
                 task.backoff_ms, status.ToString());
  }
  absl::MutexLock lock(&mu_);
  auto it = tasks_.find(tp);
  if (it != tasks_.end() && it->second.leader_epoch == task.leader_epoch) it->second = std::move(task);
  return status;
}

absl::Status RemoteLogManager::RunTaskLocked(Partition& partition, const PartitionState& state, Task& task) {
  auto segments = options_.remote_segments(state.topic_id, partition.topic_partition().partition);
  STRATA_RETURN_IF_ERROR(CleanUp(partition, state, task, segments));
  STRATA_RETURN_IF_ERROR(CopySegments(partition, state, task, segments));
  return ApplyRetention(partition, state, segments);
}

RemoteLogManager::Segment RemoteLogManager::Transition(const Segment& of, const PartitionState& state,
                                                       Segment::State to) const {
  Segment s;
  s.set_topic_id(of.topic_id());
  s.set_partition_id(of.partition_id());
  s.set_segment_id(of.segment_id());
  s.set_state(to);
  s.set_broker_id(options_.broker_id);
  s.set_leader_epoch(state.leader_epoch);
  return s;
}

absl::Status RemoteLogManager::Propose(const Segment& segment) {
  controller::v1::RemoteLogSegmentUpdateRequest request;
  request.set_broker_id(options_.broker_id);
  request.set_broker_epoch(options_.broker_epoch());
  *request.mutable_segment() = segment;
  controller::v1::RemoteLogSegmentUpdateResponse response;
  STRATA_RETURN_IF_ERROR(options_.controller->CallController(
      &controller::v1::ControllerService::Stub::RemoteLogSegmentUpdate, request, &response,
      options_.controller_timeout));
  if (response.error_code() != 0) {
    return KafkaError(static_cast<proto::kafka::ErrorCode>(response.error_code()), response.error_message());
  }
  return absl::OkStatus();
}

absl::Status RemoteLogManager::DeleteCopy(const Partition& partition, const PartitionState& state,
                                          const Segment& segment, bool started) {
  std::string name = absl::StrCat(partition.topic_partition().DirName(), " remote segment ",
                                  SegmentIdText(segment.segment_id()));
  absl::Status status = started ? absl::OkStatus() : Propose(Transition(segment, state, Segment::DELETE_SEGMENT_STARTED));
  if (status.ok()) status = options_.remote_storage->DeleteLogSegmentData(RemoteIdOf(segment));
  if (status.ok()) {
    status = Propose(Transition(segment, state, Segment::DELETE_SEGMENT_FINISHED));
    // Asked again after an answer that was lost: the copy is gone already.
    if (!status.ok() && started && KafkaErrorCodeOf(status) == proto::kafka::ErrorCode::kInvalidRequest &&
        status.message().find("of no known copy") != absl::string_view::npos) {
      status = absl::OkStatus();
    }
  }
  if (!status.ok()) {
    ++delete_errors_;
    return WithContext(status, absl::StrCat("deleting ", name));
  }
  ++deletes_;
  spdlog::info("broker {}: deleted {} [{}, {}]", options_.broker_id, name, segment.start_offset(),
               segment.end_offset());
  return absl::OkStatus();
}

absl::Status RemoteLogManager::CleanUp(Partition& partition, const PartitionState& state, Task& task,
                                       const std::map<std::string, Segment>& segments) {
  for (const auto& [id, s] : segments) {
    bool ours = s.broker_id() == options_.broker_id && s.leader_epoch() == state.leader_epoch;
    if (s.state() == Segment::DELETE_SEGMENT_STARTED) {
      STRATA_RETURN_IF_ERROR(DeleteCopy(partition, state, s, /*started=*/true));
    } else if (s.state() == Segment::COPY_SEGMENT_STARTED && ours && task.unconfirmed.count(id)) {
      // Its FINISHED call failed: the controller may have recorded it nonetheless.
      absl::Status finished = Propose(Transition(s, state, Segment::COPY_SEGMENT_FINISHED));
      bool recorded = !finished.ok() && finished.message().find("cannot follow COPY_SEGMENT_FINISHED") !=
                                            absl::string_view::npos;
      if (!finished.ok() && !recorded) return finished;
      task.unconfirmed.erase(id);
      task.copied_up_to = std::max(task.copied_up_to, s.end_offset());
    } else if (s.state() == Segment::COPY_SEGMENT_STARTED && (!ours || task.abandoned.count(id))) {
      // Left half-done: by a leader before this one (whose epoch can record nothing
      // more), or by this one's failed copy.
      STRATA_RETURN_IF_ERROR(DeleteCopy(partition, state, s, /*started=*/false));
      task.abandoned.erase(id);
    }
  }
  return absl::OkStatus();
}

absl::Status RemoteLogManager::CopySegments(Partition& partition, const PartitionState& state, Task& task,
                                            const std::map<std::string, Segment>& segments) {
  storage::Log& log = *partition.log();
  int64_t copied = task.copied_up_to;
  for (const auto& [id, s] : segments) {
    if (s.state() == Segment::COPY_SEGMENT_FINISHED) copied = std::max(copied, s.end_offset());
  }
  for (const storage::RolledSegment& r : CopyCandidates(log, copied)) {
    std::string segment_id = storage::NewBase64Uuid();
    auto raw_id = storage::DecodeBase64Uuid(segment_id);
    ABSL_CHECK(raw_id.ok()) << raw_id.status();
    Segment s;
    s.set_topic_id(state.topic_id);
    s.set_partition_id(partition.topic_partition().partition);
    s.set_segment_id(*raw_id);
    s.set_state(Segment::COPY_SEGMENT_STARTED);
    s.set_start_offset(r.base_offset);
    s.set_end_offset(r.end_offset);
    for (const storage::EpochEntry& e : r.leader_epochs) (*s.mutable_segment_leader_epochs())[e.epoch] = e.start_offset;
    s.set_segment_size_in_bytes(static_cast<int64_t>(r.size));
    s.set_max_timestamp_ms(r.max_timestamp);
    s.set_broker_id(options_.broker_id);
    s.set_leader_epoch(state.leader_epoch);
    std::string name = absl::StrCat(partition.topic_partition().DirName(), " [", r.base_offset, ", ", r.end_offset,
                                    "] as remote segment ", segment_id);
    if (absl::Status started = Propose(s); !started.ok()) {
      ++copy_errors_;
      return WithContext(started, absl::StrCat("copying ", name));
    }
    storage::LogSegmentData data = r.ToSegmentData();
    if (options_.copy_quota != nullptr) data.pace = [this](int64_t bytes) { PaceCopy(bytes); };
    if (absl::Status copy = options_.remote_storage->CopyLogSegmentData(RemoteIdOf(s), data); !copy.ok()) {
      ++copy_errors_;
      task.abandoned.insert(*raw_id);
      return WithContext(copy, absl::StrCat("copying ", name));
    }
    if (absl::Status finished = Propose(Transition(s, state, Segment::COPY_SEGMENT_FINISHED)); !finished.ok()) {
      ++copy_errors_;
      task.unconfirmed.insert(*raw_id);
      return WithContext(finished, absl::StrCat("copying ", name));
    }
    task.copied_up_to = r.end_offset;
    ++copies_;
    copy_bytes_ += static_cast<int64_t>(r.size);
    spdlog::debug("broker {}: copied {}", options_.broker_id, name);
  }
  return absl::OkStatus();
}

std::vector<storage::RolledSegment> RemoteLogManager::CopyCandidates(const storage::Log& log, int64_t copied) const {
  // Below the last stable offset only (Kafka's bound): the remote tier never holds an open
  // transaction's data. Oldest first, up to the first one the upload delay holds back.
  std::vector<storage::RolledSegment> rolled = log.RolledSegmentsAfter(copied, log.last_stable_offset());
  if (rolled.empty()) return rolled;
  const storage::LogConfig config = log.config();
  const int64_t now = options_.clock->NowMs();
  // The local bytes after each segment: after the first, less each next one's own.
  int64_t newer = log.SizeOfSegmentsAbove(rolled.front().end_offset);
  size_t due = 0;
  for (; due < rolled.size(); ++due) {
    if (due > 0) newer -= static_cast<int64_t>(rolled[due].size);
    if (!UploadEligible(config, rolled[due].max_timestamp, newer, now)) break;
  }
  rolled.resize(due);
  return rolled;
}

void RemoteLogManager::PaceCopy(int64_t bytes) {
  RateQuota& quota = *options_.copy_quota;
  quota.Record(bytes, RateQuota::Clock::now());
  // KIP-956: copying waits while the copies' measured rate is above the quota, in steps
  // short enough that a changed quota or a shutdown ends the wait.
  while (true) {
    const std::chrono::milliseconds wait = quota.ThrottleTime(RateQuota::Clock::now());
    if (wait.count() <= 0) return;
    const auto step = std::min(wait, std::chrono::milliseconds(100));
    copy_throttle_ms_ += step.count();
    absl::MutexLock lock(&mu_);
    if (mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(step))) return;
  }
}

absl::Status RemoteLogManager::ApplyRetention(Partition& partition, const PartitionState& state,
                                              const std::map<std::string, Segment>& segments) {
  // Copies that end below the log start (DeleteRecords moved it: RemoteTierOf) serve
  // nothing any more: they go whatever retention says.
  const int64_t log_start = partition.log_start_offset();
  for (const auto& [id, s] : segments) {
    if (s.state() == Segment::COPY_SEGMENT_FINISHED && s.end_offset() < log_start) {
      STRATA_RETURN_IF_ERROR(DeleteCopy(partition, state, s, /*started=*/false));
    }
  }
  storage::LogConfig config = partition.log()->config();
  if (config.retention_ms < 0 && config.retention_bytes < 0) return absl::OkStatus();
  std::vector<const Segment*> finished;
  int64_t remote_bytes = 0;
  int64_t highest = -1;
  for (const auto& [id, s] : segments) {
    if (s.state() != Segment::COPY_SEGMENT_FINISHED || s.end_offset() < log_start) continue;  // deleted above
    finished.push_back(&s);
    remote_bytes += s.segment_size_in_bytes();
    highest = std::max(highest, s.end_offset());
  }
  std::sort(finished.begin(), finished.end(),
            [](const Segment* a, const Segment* b) { return a->start_offset() < b->start_offset(); });
  // The whole log's size: the remote tier and what only the local log holds.
  int64_t total = remote_bytes + partition.log()->SizeOfSegmentsAbove(highest);
  int64_t now = options_.clock->NowMs();
  for (const Segment* s : finished) {
    bool expired = config.retention_ms >= 0 && s->max_timestamp_ms() >= 0 &&
                   now - s->max_timestamp_ms() > config.retention_ms;
    bool over_size = config.retention_bytes >= 0 && total - s->segment_size_in_bytes() >= config.retention_bytes;
    if (!expired && !over_size) break;
    STRATA_RETURN_IF_ERROR(DeleteCopy(partition, state, *s, /*started=*/false));
    total -= s->segment_size_in_bytes();
  }
  return absl::OkStatus();
}

RemoteLogManagerStats RemoteLogManager::stats() const {
  return RemoteLogManagerStats{copies_.load(),  copy_bytes_.load(),    copy_errors_.load(),
                               deletes_.load(), delete_errors_.load(), copy_throttle_ms_.load()};
}

RemoteLogManager::CopyLag RemoteLogManager::copy_lag() const {
  CopyLag lag;
  if (options_.partitions == nullptr) return lag;
  for (const auto& p : options_.partitions()) {
    if (!p->is_leader() || !p->log()->config().remote_storage_enable) continue;
    RemoteTierState remote = p->remote_tier();
    for (const storage::RolledSegment& r : CopyCandidates(*p->log(), remote.highest_copied_offset)) {
      ++lag.segments;
      lag.bytes += static_cast<int64_t>(r.size);
    }
  }
  return lag;
}

}  // namespace strata::broker
