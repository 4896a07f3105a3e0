#include "broker/replication/produce_refusals.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "broker/common/kafka_error.h"
#include "storage/record_batch.h"

namespace strata::broker {
namespace {

// The first batch's header of a produce's records, when it parses (the log reports a
// malformed one).
std::optional<storage::RecordBatchHeader> FirstBatch(absl::string_view records) {
  storage::BatchSplitter splitter(records);
  auto batch = splitter.Next();
  if (!batch.ok() || !batch->has_value()) return std::nullopt;
  return storage::RecordBatchHeader::Parse((*batch)->data());
}

}  // namespace

void ProduceRefusals::Refused(const storage::TopicPartition& tp, absl::string_view records,
                              const absl::Status& refusal) {
  if (!proto::kafka::IsRetriable(KafkaErrorCodeOf(refusal))) return;
  std::optional<storage::RecordBatchHeader> first = FirstBatch(records);
  if (!first || !first->has_producer_id() || first->base_sequence == storage::kNoSequence) return;
  const int64_t now = options_.clock->NowMs();
  absl::MutexLock lock(&mu_);
  refusals_[Key{tp.topic, tp.partition, first->producer_id, first->producer_epoch, first->base_sequence}] =
      Refusal{refusal, now};
  if (refusals_.size() > options_.max_entries) EvictLocked(now);
}

std::optional<absl::Status> ProduceRefusals::GapBehindRefusal(const storage::TopicPartition& tp,
                                                              absl::string_view records,
                                                              const storage::SequenceGap& gap) const {
  std::optional<storage::RecordBatchHeader> first = FirstBatch(records);
  if (!first || !first->has_producer_id()) return std::nullopt;
  absl::MutexLock lock(&mu_);
  auto it = refusals_.find(Key{tp.topic, tp.partition, first->producer_id, first->producer_epoch, gap.expected_sequence});
  if (it == refusals_.end() || options_.clock->NowMs() - it->second.at_ms > options_.remember_ms) return std::nullopt;
  return KafkaError(KafkaErrorCodeOf(it->second.status),
                    absl::StrCat(tp.DirName(), ": producer ", first->producer_id, " sent sequence ",
                                 first->base_sequence, " behind sequence ", gap.expected_sequence,
                                 ", which was refused and not stored (", it->second.status.message(),
                                 "): answered alike, to be sent again after it"));
}

size_t ProduceRefusals::size() const {
  absl::MutexLock lock(&mu_);
  return refusals_.size();
}

void ProduceRefusals::EvictLocked(int64_t now_ms) {
  for (auto it = refusals_.begin(); it != refusals_.end();) {
    it = now_ms - it->second.at_ms > options_.remember_ms ? refusals_.erase(it) : std::next(it);
  }
  while (refusals_.size() > options_.max_entries) {
    auto oldest = std::min_element(refusals_.begin(), refusals_.end(),
                                   [](const auto& a, const auto& b) { return a.second.at_ms < b.second.at_ms; });
    refusals_.erase(oldest);
  }
}

}  // namespace strata::broker
