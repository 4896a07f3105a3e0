#pragma once
// ReplicaManager: the partitions this broker hosts, kept in line with the metadata
// image. For every partition that lists this broker as a replica it opens (or creates)
// the log — in the log dir the controller placed it in, with the topic's configs over
// the broker's log.* defaults — and hands the partition its leader, epochs and ISR
// (partition.h decides what becoming leader or follower means). A partition whose
// topic was deleted, or that no longer lists this broker, is dropped and its log
// deleted. Each log dir records its topic's id in the partition's
// `partition.metadata` (as Kafka), so a log left by a deleted topic is never served
// for a new topic of the same name.
// Appends go through here so that a moved high watermark wakes the fetches waiting
// in the purgatory (on_high_watermark).
// Thread-safe: ApplyImage runs on the metadata thread, lookups and appends on request
// threads.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/partition.h"
#include "controller/metadata_image.h"
#include "storage/log_manager.h"

namespace strata::broker {

struct ReplicaManagerOptions {
  int32_t broker_id = 0;
  storage::LogManager* logs = nullptr;  // required
  storage::FileOps* ops = storage::FileOps::Default();
  storage::LogConfig default_config;    // the broker's log.* settings
};

class ReplicaManager {
 public:
  explicit ReplicaManager(ReplicaManagerOptions options);
  ~ReplicaManager();

  // Brings the hosted partitions in line with image (idempotent: call it after every
  // applied metadata entry). A partition whose log cannot be opened is skipped (its
  // log dir is reported offline by the storage layer) and retried next time.
  void ApplyImage(const controller::MetadataImage& image);

  // nullptr when this broker does not host tp.
  std::shared_ptr<Partition> GetPartition(const storage::TopicPartition& tp) const;
  std::vector<storage::TopicPartition> partitions() const;

  // Appends a producer's records to the partition this broker leads, then wakes
  // waiting fetches when the high watermark moved.
  absl::StatusOr<storage::LogAppendInfo> AppendRecords(const storage::TopicPartition& tp, std::string& records);

  // Called with a partition whose high watermark moved (outside any lock).
  void set_on_high_watermark(std::function<void(const storage::TopicPartition&)> callback);

  // Kafka's partition.metadata: "version: 0\ntopic_id: <base64>\n".
  static std::string PartitionMetadataText(const std::string& topic_id);

 private:
  struct Hosted {
    std::shared_ptr<Partition> partition;
    std::string topic_id;
    storage::LogConfig config;
  };
  // The log of tp for topic_id: existing (when its partition.metadata agrees) or new.
  absl::StatusOr<storage::Log*> OpenLog(const storage::TopicPartition& tp, const std::string& topic_id,
                                        const storage::LogConfig& config, const std::string& directory_id);
  // Forgets tp and deletes its log once no request holds the partition any more.
  void DropPartition(const storage::TopicPartition& tp, Hosted hosted);
  storage::LogConfig ConfigFor(const controller::MetadataImage& image, const std::string& topic) const;

  const ReplicaManagerOptions options_;
  absl::Mutex apply_mu_;  // one ApplyImage at a time
  mutable absl::Mutex mu_ ABSL_ACQUIRED_AFTER(apply_mu_);
  std::map<storage::TopicPartition, Hosted> hosted_ ABSL_GUARDED_BY(mu_);
  std::function<void(const storage::TopicPartition&)> on_high_watermark_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
