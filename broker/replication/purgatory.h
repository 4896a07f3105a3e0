#pragma once
// Purgatory: requests that wait for something to happen (a fetch for min.bytes of new
// data, later an acks=all produce for the high watermark) or for their deadline,
// whichever comes first, as Kafka's DelayedOperationPurgatory. An operation watches
// keys (partitions); whoever changes a key calls CheckAndComplete(key), which tries
// the operations watching it. A reaper thread completes the expired ones. Each
// operation completes exactly once: on its own thread, the one that made it
// completable, or the reaper.
// Thread-safe.

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace strata::broker {

class DelayedOperation {
 public:
  explicit DelayedOperation(std::chrono::steady_clock::time_point deadline) : deadline_(deadline) {}
  virtual ~DelayedOperation() = default;

  // Completes the operation (calls ForceComplete) when it can complete now.
  virtual void TryComplete() = 0;
  // The same after key changed (CheckAndComplete): an operation on many keys may look
  // at that one only.
  virtual void TryCompleteFor(const std::string& key) {
    (void)key;
    TryComplete();
  }
  // Answers the request: runs once, after the operation was marked complete.
  virtual void OnComplete() = 0;

  // Marks the operation complete and runs OnComplete, unless already done; returns
  // whether this call completed it.
  bool ForceComplete();
  bool completed() const;
  std::chrono::steady_clock::time_point deadline() const { return deadline_; }

 private:
  const std::chrono::steady_clock::time_point deadline_;
  mutable absl::Mutex mu_;
  bool completed_ ABSL_GUARDED_BY(mu_) = false;
};

class Purgatory {
 public:
  explicit Purgatory(std::string name);
  ~Purgatory();  // completes every waiting operation, then stops the reaper
  Purgatory(const Purgatory&) = delete;
  Purgatory& operator=(const Purgatory&) = delete;

  // Watches op under keys, then tries it once (so a change between the caller's
  // check and the watch is not missed). Completed at once when it can be.
  void TryCompleteElseWatch(const std::shared_ptr<DelayedOperation>& op, std::vector<std::string> keys);
  // Tries the operations watching key; returns how many completed.
  int CheckAndComplete(const std::string& key);
  // Operations still waiting (tests, metrics).
  size_t waiting() const;
  // Operations it still holds, completed ones that have not left yet included (tests).
  size_t held() const;

 private:
  void Reap();
  // Takes a completed or expired operation out of the timers and its keys' watch lists.
  void ForgetLocked(const std::shared_ptr<DelayedOperation>& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  mutable absl::Mutex mu_;
  absl::CondVar cv_;  // the reaper waits on it: a deadline before wake_at_, or stopping
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // When the reaper wakes next on its own (max: not yet known).
  std::chrono::steady_clock::time_point wake_at_ ABSL_GUARDED_BY(mu_) = std::chrono::steady_clock::time_point::max();
  // By key. A key's list stays when it empties (a fetch session's fetches watch the same
  // thousands of keys again and again); the reaper drops the empty ones when it idles.
  absl::flat_hash_map<std::string, std::vector<std::shared_ptr<DelayedOperation>>> watchers_ ABSL_GUARDED_BY(mu_);
  struct Timer {
    std::shared_ptr<DelayedOperation> op;
    std::vector<std::string> keys;
  };
  // By deadline. An operation leaves when it expires, or when it completes in
  // TryCompleteElseWatch or CheckAndComplete (one completed elsewhere, by the delete of
  // a purgatory or a ForceComplete of its own, leaves at its deadline).
  std::multimap<std::chrono::steady_clock::time_point, Timer> timers_ ABSL_GUARDED_BY(mu_);
  std::thread reaper_;
};

}  // namespace strata::broker
