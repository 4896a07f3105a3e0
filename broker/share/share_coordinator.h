#pragma once
// ShareCoordinator: Kafka's share coordinator (KIP-932) for the share partitions whose
// partition of `__share_group_state` this broker leads (ShareStatePartitionFor says
// which, from the key "group:topicId:partition"). It keeps every key's latest snapshot
// in memory and serves the state APIs (Initialize, Read, Write, Delete and the read
// summary) from it by the rules of share_coordinator_state.h: what a request must write
// is appended to the key's partition (acks=all, through a GroupLog over the topic) and
// the request is answered once it is committed, with the state it then has. One request
// per key is in flight at a time; the others of the key wait in order, so that each is
// decided on the state its predecessors left (a write's fencing against an
// initialization before it, say).
//
// A broker that becomes leader of a partition loads it (COORDINATOR_LOAD_IN_PROGRESS
// until then): the latest snapshot of each key, tombstones removing theirs. One that
// stops leading it drops its keys (NOT_COORDINATOR), and a write that completes after
// that is NOT_COORDINATOR too (the new leader decides what it means).
//
// Time: loads run on the coordinator's thread (tests with no thread call RunDueTimers).
// Thread-safe: one mutex over every partition; answers are given outside it.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/callback_lifetime.h"
#include "broker/common/coordinator_partitions.h"
#include "broker/common/periodic_worker.h"
#include "broker/group/group_types.h"
#include "broker/share/share_coordinator_state.h"
#include "storage/clock.h"

namespace strata::broker {

struct ShareCoordinatorOptions {
  int32_t state_topic_partitions = 50;  // share.coordinator.state.topic.num.partitions
  storage::Clock* clock = storage::Clock::System();
  bool start_thread = true;  // false: tests drive RunDueTimers
};

struct ShareCoordinatorStats {
  int64_t partitions_owned = 0;  // of __share_group_state, led now
  int64_t share_partitions = 0;  // keys with a state in the loaded partitions
  int64_t writes = 0;            // records committed since the start
};

class ShareCoordinator {
 public:
  // The answer: error, and for a read the state it found (nullopt: none).
  using Respond = std::function<void(ShareStateOutcome)>;

  ShareCoordinator(ShareCoordinatorOptions options, GroupLog* log);
  ~ShareCoordinator();  // stops the thread; writes completing later answer nothing
  ShareCoordinator(const ShareCoordinator&) = delete;
  ShareCoordinator& operator=(const ShareCoordinator&) = delete;

  int32_t state_topic_partitions() const { return options_.state_topic_partitions; }
  int32_t PartitionFor(const ShareStateKey& key) const {
    return ShareStatePartitionFor(key, options_.state_topic_partitions);
  }
  // The partitions of __share_group_state this broker leads now, with their leader
  // epochs; the topic's partition count. Called after every metadata change.
  void OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions);
  bool IsLoaded(int32_t partition) const;

  void Initialize(const ShareStateKey& key, int32_t state_epoch, int64_t start_offset, Respond respond);
  void Write(const ShareStateKey& key, int32_t state_epoch, int32_t leader_epoch, SharePartitionState state,
             Respond respond);
  // A read in a higher leader epoch records it (written before it is answered).
  void Read(const ShareStateKey& key, int32_t leader_epoch, Respond respond);
  void ReadSummary(const ShareStateKey& key, int32_t leader_epoch, Respond respond);
  void Delete(const ShareStateKey& key, Respond respond);

  // Loads the partitions newly led (the thread calls it every 100 ms).
  void RunDueTimers();
  ShareCoordinatorStats stats() const;

 private:
  // A request's rules on the key's partition's states at now_ms.
  using Decide = std::function<ShareStateOutcome(const ShareStates& states, int64_t now_ms)>;

  // Decides the request on the key's state, or queues it behind the key's request in
  // flight; appends what it must write, then answers.
  void Submit(const ShareStateKey& key, Decide decide, Respond respond);
  // The append of out.write completed with e: applies it (if the partition is still led
  // in leader_epoch), answers, then runs the key's waiting requests.
  void Written(const ShareStateKey& key, int32_t partition, int32_t leader_epoch, ShareStateOutcome out,
               const Respond& respond, ErrorCode e);
  void LoadPartition(int32_t partition, int32_t leader_epoch);

  const std::shared_ptr<CallbackLifetime> lifetime_ = std::make_shared<CallbackLifetime>();
  const ShareCoordinatorOptions options_;
  GroupLog* const log_;

  mutable absl::Mutex mu_;
  CoordinatorPartitions partitions_ ABSL_GUARDED_BY(mu_);
  std::map<int32_t, ShareStates> states_ ABSL_GUARDED_BY(mu_);  // of the loaded partitions
  // Keys with a write in flight, and the requests of each waiting for it, in order.
  std::map<ShareStateKey, std::deque<std::function<void()>>> busy_ ABSL_GUARDED_BY(mu_);
  int64_t writes_ ABSL_GUARDED_BY(mu_) = 0;
  std::unique_ptr<PeriodicWorker> worker_;  // loads and timers (options.start_thread)
};

}  // namespace strata::broker
