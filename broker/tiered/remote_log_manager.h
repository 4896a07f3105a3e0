#pragma once
// RemoteLogManager: the leader's side of tiered storage (KIP-405). For every partition
// this broker leads whose topic has remote.storage.enable, a task runs every
// remote.log.manager.task.interval.ms on one of remote.log.manager.thread.pool.size
// threads, and:
//   1. finishes what an earlier leadership left: a copy left COPY_SEGMENT_STARTED by a
//      previous leader (or by this one, when its copy failed) is deleted
//      (DELETE_SEGMENT_STARTED, the objects, DELETE_SEGMENT_FINISHED), and a
//      DELETE_SEGMENT_STARTED copy is deleted again;
//   2. copies the rolled segments that end below the last stable offset and above the
//      highest finished copy and are due (remote.copy.lag.*, upload_eligibility.h),
//      oldest first: COPY_SEGMENT_STARTED through the controller, the objects through the
//      RemoteStorageManager, COPY_SEGMENT_FINISHED;
//   3. deletes the finished copies that end below the partition's log start (DeleteRecords
//      moved it in the quorum: Partition.log_start_offset), then applies retention.ms /
//      retention.bytes to the whole log: the oldest finished copies past them are
//      deleted, which moves the log start offset (the image's).
// A failed step stops the pass and the partition is tried again after a backoff that
// doubles from remote.log.manager.task.retry.backoff.ms up to ...backoff.max.ms. No
// copy is ever visible before its FINISHED record, and the controller refuses every
// transition from a leader that has been deposed, so a copy racing a leader change is
// never registered twice. Copying reads rolled segments' files and never takes a lock
// that produce or fetch wait on.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/rate_quota.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/replication/partition.h"
#include "controller/remote_log_segments.h"
#include "storage/clock.h"
#include "storage/remote_storage_manager.h"

namespace strata::broker {

struct RemoteLogManagerOptions {
  int32_t broker_id = 0;
  storage::RemoteStorageManager* remote_storage = nullptr;  // required
  ControllerChannel* controller = nullptr;                  // required
  std::function<int64_t()> broker_epoch;                    // required
  // The partitions hosted here (ReplicaManager's); the manager works on those it leads.
  std::function<std::vector<std::shared_ptr<Partition>>()> partitions;
  // The partition's copies as this broker's metadata image shows them.
  std::function<std::map<std::string, controller::RemoteLogSegments::Segment>(const std::string& topic_id,
                                                                                int32_t partition)>
      remote_segments;
  int32_t thread_pool_size = 2;
  std::chrono::milliseconds task_interval{30000};
  std::chrono::milliseconds retry_backoff{500};
  std::chrono::milliseconds retry_backoff_max{30000};
  std::chrono::milliseconds controller_timeout{5000};
  storage::Clock* clock = storage::Clock::System();
  // remote.log.manager.copy.max.bytes.per.second over every copy of this broker (null:
  // none): copies wait while it is exceeded (KIP-956).
  RateQuota* copy_quota = nullptr;
};

struct RemoteLogManagerStats {
  int64_t copies = 0;          // COPY_SEGMENT_FINISHED recorded
  int64_t copy_bytes = 0;
  int64_t copy_errors = 0;     // failed copy attempts (each retried)
  int64_t deletes = 0;         // DELETE_SEGMENT_FINISHED recorded
  int64_t delete_errors = 0;
  int64_t copy_throttle_ms = 0;  // time copies waited for the copy quota
};

class RemoteLogManager {
 public:
  explicit RemoteLogManager(RemoteLogManagerOptions options);
  ~RemoteLogManager();  // Shutdown()
  RemoteLogManager(const RemoteLogManager&) = delete;
  RemoteLogManager& operator=(const RemoteLogManager&) = delete;

  // Starts the threads: every task interval each led partition is queued once.
  void Start();
  // Stops taking work and waits for the running tasks.
  void Shutdown();

  // One task for one partition, now, on the calling thread (tests; the threads call it).
  // OK when it did everything due (or nothing was due: not leader, no remote storage,
  // backing off); else the failure that stopped it.
  absl::Status RunTask(Partition& partition);

  RemoteLogManagerStats stats() const;
  // Rolled segments below the last stable offset not yet copied and due to be
  // (upload_eligibility.h: a delayed upload is not lag), over every led partition:
  // Kafka's RemoteCopyLagSegments and RemoteCopyLagBytes.
  struct CopyLag {
    int64_t segments = 0;
    int64_t bytes = 0;
  };
  CopyLag copy_lag() const;

 private:
  using Segment = controller::RemoteLogSegments::Segment;
  // What this broker knows of one partition in one leadership.
  struct Task {
    int32_t leader_epoch = -1;
    int64_t copied_up_to = -1;            // this leadership's finished copies (the image may lag)
    std::set<std::string> abandoned;      // this leadership's STARTED copies whose copy failed
    std::set<std::string> unconfirmed;    // copies whose FINISHED call failed: asked again
    int64_t next_attempt_ms = 0;
    int64_t backoff_ms = 0;
  };

  absl::Status RunTaskLocked(Partition& partition, const PartitionState& state, Task& task);
  absl::Status CleanUp(Partition& partition, const PartitionState& state, Task& task,
                       const std::map<std::string, Segment>& segments);
  absl::Status CopySegments(Partition& partition, const PartitionState& state, Task& task,
                            const std::map<std::string, Segment>& segments);
  absl::Status ApplyRetention(Partition& partition, const PartitionState& state,
                              const std::map<std::string, Segment>& segments);
  absl::Status DeleteCopy(const Partition& partition, const PartitionState& state, const Segment& segment,
                          bool started);
  // Proposes one transition; the controller's refusal is an error naming its reason.
  absl::Status Propose(const Segment& segment);
  Segment Transition(const Segment& of, const PartitionState& state, Segment::State to) const;
  // The log's rolled segments after copied that are due to be copied now, oldest first.
  std::vector<storage::RolledSegment> CopyCandidates(const storage::Log& log, int64_t copied) const;
  void Loop();
  void Work();
  // LogSegmentData::pace of a copy: counts bytes against the copy quota and waits while
  // it is exceeded.
  void PaceCopy(int64_t bytes);

  const RemoteLogManagerOptions options_;

  absl::Mutex mu_;
  std::map<storage::TopicPartition, Task> tasks_ ABSL_GUARDED_BY(mu_);
  // One task per partition at a time: those queued or running.
  std::set<storage::TopicPartition> busy_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Partition>> queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;

  std::atomic<int64_t> copies_{0};
  std::atomic<int64_t> copy_bytes_{0};
  std::atomic<int64_t> copy_errors_{0};
  std::atomic<int64_t> deletes_{0};
  std::atomic<int64_t> delete_errors_{0};
  std::atomic<int64_t> copy_throttle_ms_{0};
};

}  // namespace strata::broker
