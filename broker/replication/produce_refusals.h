#pragma once
// The idempotent producers' batches a leader refused without storing them, for a while,
// so that a batch pipelined behind a refused one is answered with the refusal's own
// retriable error rather than OUT_OF_ORDER_SEQUENCE_NUMBER.
//
// A producer keeps up to five requests per partition in flight. When the first is
// refused for a passing reason (NOT_LEADER_OR_FOLLOWER while leadership is being
// applied or a lease is lost and regained, NOT_ENOUGH_REPLICAS while the ISR grows
// back) and the reason is gone when the second arrives, the second finds a gap in the
// producer's sequence. Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER there, which the Java
// client retries but librdkafka (2.x) answers by bumping the producer epoch and sending
// every unacknowledged batch of every partition again from sequence 0: a batch that
// another partition stored but had not acknowledged is then stored twice. Answered with
// the first one's error, the second is retried in order behind it and nothing is sent
// twice (docs/idempotence.md).
// Bounded: at most max_entries refusals, each kept remember_ms. Thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "storage/clock.h"
#include "storage/errc.h"
#include "storage/log.h"

namespace strata::broker {

struct ProduceRefusalsOptions {
  size_t max_entries = 10000;
  // A producer sends a refused batch again within its retry backoff (100 ms by
  // default); a refusal older than a request timeout (Kafka clients' default, 30 s)
  // explains no gap any more.
  int64_t remember_ms = 30000;
  storage::Clock* clock = storage::Clock::System();
};

class ProduceRefusals {
 public:
  explicit ProduceRefusals(ProduceRefusalsOptions options = {}) : options_(options) {}

  // The produce of records to tp was answered with refusal and stored nothing: remembers
  // its first batch when that is an idempotent producer's and refusal is retriable.
  void Refused(const storage::TopicPartition& tp, absl::string_view records, const absl::Status& refusal);

  // records were refused with gap (a storage::SequenceGapError's): when the batch that
  // starts at the sequence gap expected, of the same producer and epoch, was refused
  // here within remember_ms, that refusal's error, saying so; otherwise nullopt.
  std::optional<absl::Status> GapBehindRefusal(const storage::TopicPartition& tp, absl::string_view records,
                                               const storage::SequenceGap& gap) const;

  size_t size() const;

 private:
  // (topic, partition, producer id, producer epoch, base sequence)
  using Key = std::tuple<std::string, int32_t, int64_t, int16_t, int32_t>;
  struct Refusal {
    absl::Status status;
    int64_t at_ms = 0;
  };
  void EvictLocked(int64_t now_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const ProduceRefusalsOptions options_;
  mutable absl::Mutex mu_;
  std::map<Key, Refusal> refusals_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
