#pragma once
// RemoteSweeper: what the remote tier holds that no metadata names goes.
//  * A topic deleted from the image: its objects (everything under "<topic id>-") are
//    deleted at once by the broker the sweep elects, and retried with a doubling backoff
//    until they are gone (topic ids are never reused, so nothing else can be there).
//  * Every remote.log.orphan.sweep.interval.ms the elected broker lists the whole store
//    and deletes each object that no copy in its image names (in any state: a copy being
//    deleted is the remote log manager's) once it is older than remote.log.orphan.grace.ms
//    — copies started by a leader this broker's image has not heard of yet are younger
//    than that. Leftovers of failed copies (.tmp files, S3 multipart uploads never
//    completed) count as objects no copy names.
// The elected broker is the unfenced one with the lowest id (every broker's image agrees
// soon enough; two sweeping at once only delete twice, which is harmless).
// Thread-safe.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "storage/remote_storage_manager.h"

namespace strata::broker {

struct RemoteSweeperOptions {
  storage::RemoteStorageManager* remote_storage = nullptr;  // required
  std::function<bool()> elected;                            // required: this broker sweeps now
  // Whether the image has the topic (base64url id), and the copy (base64url ids).
  std::function<bool(const std::string& topic_id)> topic_exists;
  std::function<bool(const std::string& topic_id, int32_t partition, const std::string& segment_id)> copy_known;
  std::chrono::milliseconds interval{3600000};  // remote.log.orphan.sweep.interval.ms
  std::chrono::milliseconds grace{3600000};     // remote.log.orphan.grace.ms
  std::chrono::milliseconds retry_backoff{500};
  std::chrono::milliseconds retry_backoff_max{30000};
  std::function<absl::Time()> now;  // null: the system's
};

struct RemoteSweeperStats {
  int64_t sweeps = 0;
  int64_t orphans_deleted = 0;         // objects no copy named, deleted by a sweep
  int64_t topic_objects_deleted = 0;   // objects of deleted topics
  int64_t errors = 0;                  // failed sweeps and topic deletes (each retried)
  int64_t topics_pending = 0;          // deleted topics whose objects are not all gone yet
};

class RemoteSweeper {
 public:
  explicit RemoteSweeper(RemoteSweeperOptions options);
  ~RemoteSweeper();  // Shutdown()
  RemoteSweeper(const RemoteSweeper&) = delete;
  RemoteSweeper& operator=(const RemoteSweeper&) = delete;

  void Start();
  void Shutdown();

  // The image no longer has this topic (base64url id): its objects go.
  void TopicDeleted(const std::string& topic_id);

  // One sweep now, on the calling thread (tests; the thread calls it every interval):
  // the objects deleted.
  absl::StatusOr<int64_t> Sweep();
  // Deletes every object of a topic now (tests; the thread retries TopicDeleted's).
  absl::StatusOr<int64_t> DeleteTopicObjects(const std::string& topic_id);

  RemoteSweeperStats stats() const;

 private:
  void Loop();
  absl::Time Now() const { return options_.now ? options_.now() : absl::Now(); }

  const RemoteSweeperOptions options_;
  mutable absl::Mutex mu_;
  std::set<std::string> pending_topics_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;

  std::atomic<int64_t> sweeps_{0};
  std::atomic<int64_t> orphans_deleted_{0};
  std::atomic<int64_t> topic_objects_deleted_{0};
  std::atomic<int64_t> errors_{0};
};

// "<topic id>-<partition>/<segment id><suffix>" -> its parts; false for a name that is not one.
bool ParseRemoteObjectName(const std::string& name, std::string* topic_id, int32_t* partition,
                           std::string* segment_id);

}  // namespace strata::broker
