#pragma once
// ProducerIdManager: the producer ids this broker hands to idempotent producers
// (InitProducerId). Ids come in blocks that the active controller allocates
// (AllocateProducerIds; 1000 ids a block) and records in the metadata log, so no id is
// handed out twice in the cluster's life, whichever broker or controller serves it.
// The first request fetches the first block (nothing is fetched before a producer asks);
// once 90% of a block is used the next is fetched in the background, so requests
// rarely wait. A request waits at most `wait` for a block, then gets UNAVAILABLE (the
// handler answers a retriable error). Ids from this manager only grow.
// Thread-safe. REQUIRES: no NextProducerId call runs or starts while it is destroyed.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"

namespace strata::broker {

// The ids [first, first + length).
struct ProducerIdBlock {
  int64_t first = 0;
  int32_t length = 0;
};

// Where blocks come from: the controller (ControllerBlockSource), or a fake in tests.
// Called from the manager's fetch thread only, one call at a time.
using ProducerIdBlockSource = std::function<absl::StatusOr<ProducerIdBlock>()>;

// AllocateProducerIds on the active controller for broker_id with its current epoch
// (broker_epoch(); negative while the broker is not registered: UNAVAILABLE without a
// call). Each call tries for at most `deadline`.
ProducerIdBlockSource ControllerBlockSource(ControllerChannel& client, int32_t broker_id,
                                            std::function<int64_t()> broker_epoch,
                                            std::chrono::milliseconds deadline = std::chrono::seconds(3));

struct ProducerIdManagerOptions {
  // The next block is fetched once this share of the current block is handed out.
  double prefetch_at = 0.9;
  // How long NextProducerId waits for a block.
  std::chrono::milliseconds wait{1000};
  // Pause after a failed fetch, doubling up to max_retry_backoff.
  std::chrono::milliseconds retry_backoff{50};
  std::chrono::milliseconds max_retry_backoff{1000};
};

struct ProducerIdManagerStats {
  int64_t blocks_fetched = 0;
  int64_t fetch_failures = 0;
  int64_t ids_handed_out = 0;
  std::string last_error;  // of the last failed fetch, until one succeeds
};

class ProducerIdManager {
 public:
  explicit ProducerIdManager(ProducerIdBlockSource source, ProducerIdManagerOptions options = {});
  ~ProducerIdManager();  // stops the fetch thread (waits for a fetch in flight)

  ProducerIdManager(const ProducerIdManager&) = delete;
  ProducerIdManager& operator=(const ProducerIdManager&) = delete;

  // A producer id never handed out before; UNAVAILABLE when no block came within `wait`
  // (the message says why: the controller's error or no answer).
  absl::StatusOr<int64_t> NextProducerId();

  ProducerIdManagerStats stats() const;

 private:
  // REQUIRES: mu_ held. Whether the fetch thread should fetch a block now.
  bool NeedBlockLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FetchLoop();

  const ProducerIdBlockSource source_;
  const ProducerIdManagerOptions options_;

  // The fetch thread waits for a block to be needed (or stopping); requests wait for a
  // block to arrive (or stopping): conditions over what mu_ guards.
  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;        // the current block is [next_id_, end_)
  int64_t end_ ABSL_GUARDED_BY(mu_) = 0;
  int32_t current_length_ ABSL_GUARDED_BY(mu_) = 0;  // 0: no block yet
  std::optional<ProducerIdBlock> prefetched_ ABSL_GUARDED_BY(mu_);
  int64_t highest_end_ ABSL_GUARDED_BY(mu_) = 0;     // end of the last block accepted
  int waiting_ ABSL_GUARDED_BY(mu_) = 0;             // requests waiting for a block
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  ProducerIdManagerStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread fetcher_;
};

}  // namespace strata::broker
