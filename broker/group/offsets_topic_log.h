#pragma once
// OffsetsTopicLog: the group coordinator's GroupLog over this broker's partitions of
// `__consumer_offsets`. An append is a record batch (uncompressed, one record per key,
// no producer id) appended as leader in the coordinator's leader epoch; it completes
// once the partition's high watermark passes it (acks=all: every ISR member has it),
// with NOT_COORDINATOR when the leadership moved first and REQUEST_TIMED_OUT after
// offsets.commit.timeout.ms. A read walks the local log from its start to its end.
// Thread-safe.

#include <deque>
#include <functional>
#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/group/group_coordinator.h"
#include "broker/replication/replica_manager.h"

namespace strata::broker {

class OffsetsTopicLog final : public GroupLog {
 public:
  OffsetsTopicLog(ReplicaManager& replicas, int64_t commit_timeout_ms, storage::Clock* clock = storage::Clock::System(),
                  std::string topic = kOffsetsTopic)
      : replicas_(replicas), commit_timeout_ms_(commit_timeout_ms), clock_(clock), topic_(std::move(topic)) {}

  void Append(int32_t partition, int32_t leader_epoch, std::vector<GroupLogRecord> records,
              std::function<void(ErrorCode)> done) override;
  void AppendTransactional(int32_t partition, int32_t leader_epoch, int64_t producer_id, int16_t producer_epoch,
                           std::vector<GroupLogRecord> records, std::function<void(ErrorCode)> done) override;
  absl::Status Read(int32_t partition, int32_t leader_epoch,
                    const std::function<absl::Status(GroupLogRecord)>& each) override;
  void Poll() override;
  // The broker's high-watermark callback: completes the appends the move committed.
  void OnHighWatermark(const storage::TopicPartition& tp);

 private:
  struct Waiting {
    int64_t end_offset = 0;  // committed once the high watermark reaches it
    int32_t leader_epoch = -1;
    int64_t deadline_ms = 0;
    std::function<void(ErrorCode)> done;
  };
  // Completes what is committed, moved or timed out in partition (outside mu_).
  void CompleteReady(int32_t partition);
  void AppendBatch(int32_t partition, int32_t leader_epoch, std::string batch, std::function<void(ErrorCode)> done);

  ReplicaManager& replicas_;
  const int64_t commit_timeout_ms_;
  storage::Clock* const clock_;
  const std::string topic_;
  absl::Mutex mu_;
  std::map<int32_t, std::deque<Waiting>> waiting_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
