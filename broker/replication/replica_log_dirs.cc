// ReplicaManager's side of AlterReplicaLogDirs: starting, redirecting and cancelling
// replica moves between this broker's log dirs, resuming them after a restart, and
// keeping the controller's record of each replica's directory true
// (replica_manager.h; the copy itself is log_dir_mover.h's).

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/common/kafka_error.h"
#include "broker/replication/replica_manager.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;

// Kafka's limit: a future log's directory name must fit a file name.
constexpr size_t kMaxDirNameBytes = 255;

}  // namespace

std::map<storage::TopicPartition, absl::Status> ReplicaManager::AlterReplicaLogDirs(
    const std::map<storage::TopicPartition, std::string>& dirs) {
  std::map<storage::TopicPartition, absl::Status> out;
  for (const auto& [tp, dir] : dirs) {
    out[tp] = AlterReplicaLogDir(tp, dir);
    if (!out[tp].ok()) spdlog::warn("broker {}: AlterReplicaLogDirs of {} to {}: {}", options_.broker_id,
                                    tp.DirName(), dir, out[tp].ToString());
  }
  return out;
}

absl::Status ReplicaManager::AlterReplicaLogDir(const storage::TopicPartition& tp, const std::string& path) {
  storage::LogManager& logs = *options_.logs;
  // As DescribeLogDirs names it (absolute), or as log.dirs does.
  std::string dir = path;
  for (const std::string& configured : logs.log_dirs()) {
    if (configured == path || storage::AbsolutePath(configured) == storage::AbsolutePath(path)) dir = configured;
  }
  if (storage::FutureDirName(tp).size() > kMaxDirNameBytes) {
    return KafkaError(kafka::ErrorCode::kInvalidTopicException,
                      absl::StrCat("the topic name of ", tp.DirName(), " is too long to move its replica"));
  }
  const std::vector<std::string>& configured = logs.log_dirs();
  if (std::find(configured.begin(), configured.end(), dir) == configured.end()) {
    return KafkaError(kafka::ErrorCode::kLogDirNotFound, absl::StrCat("log dir ", dir, " is not in log.dirs"));
  }
  if (logs.failure_channel().IsOffline(dir)) {
    return KafkaError(kafka::ErrorCode::kKafkaStorageError, absl::StrCat("log dir ", dir, " is offline"));
  }
  absl::MutexLock move(&move_mu_);
  std::shared_ptr<Partition> partition = GetPartition(tp);
  if (partition == nullptr) {
    // Created there when it comes (Kafka answers the same and remembers the dir too).
    absl::MutexLock lock(&mu_);
    preferred_dirs_[tp] = dir;
    return KafkaError(kafka::ErrorCode::kReplicaNotAvailable,
                      absl::StrCat("broker ", options_.broker_id, " has no replica of ", tp.DirName(),
                                   " yet; it will be created in ", dir));
  }
  if (partition->log()->offline()) {
    return KafkaError(kafka::ErrorCode::kKafkaStorageError,
                      absl::StrCat("the replica of ", tp.DirName(), " is in an offline log dir"));
  }
  std::string moving_to = partition->future_log_dir();
  if (!moving_to.empty() && (moving_to != dir || partition->log()->log_dir() == dir)) {
    // A move elsewhere, or back to where the replica is: the move under way stops.
    spdlog::info("broker {}: the move of {} to {} is cancelled", options_.broker_id, tp.DirName(), moving_to);
    STRATA_RETURN_IF_ERROR(mover_->StopMove(*partition, tp));
    moving_to.clear();
  }
  if (partition->log()->log_dir() == dir) return absl::OkStatus();
  if (!moving_to.empty()) return absl::OkStatus();  // moving there already
  auto created = logs.GetOrCreateFutureLog(tp, dir);
  if (!created.ok()) return created.status();  // a dir offline: KAFKA_STORAGE_ERROR
  partition->AttachFutureLog(*created);
  mover_->Add(tp);
  return absl::OkStatus();
}

void ReplicaManager::ResumeLogDirMove(const storage::TopicPartition& tp, Partition& partition) {
  storage::Log* future = options_.logs->GetFutureLog(tp);
  if (future == nullptr) return;
  absl::MutexLock move(&move_mu_);
  spdlog::info("broker {}: the move of {} to {} goes on", options_.broker_id, tp.DirName(), future->log_dir());
  partition.AttachFutureLog(future);
  mover_->Add(tp);
}

void ReplicaManager::CheckDirectoryAssignment(const storage::TopicPartition& tp, const Partition& partition,
                                              const std::string& topic_id,
                                              const std::string& assigned_directory_id) {
  if (partition.log()->offline()) return;
  std::string actual = options_.logs->directory_id(partition.log()->log_dir());
  if (actual.empty() || actual == assigned_directory_id) return;
  mover_->ReportDirectory(tp, topic_id, actual);
}

std::string ReplicaManager::DirectoryForNewLog(const storage::TopicPartition& tp,
                                               const std::string& assigned_directory_id) {
  std::string preferred;
  {
    absl::MutexLock lock(&mu_);
    auto it = preferred_dirs_.find(tp);
    if (it == preferred_dirs_.end()) return assigned_directory_id;
    preferred = it->second;
    preferred_dirs_.erase(it);
  }
  std::string id = options_.logs->directory_id(preferred);
  return id.empty() || options_.logs->failure_channel().IsOffline(preferred) ? assigned_directory_id : id;
}

}  // namespace strata::broker
