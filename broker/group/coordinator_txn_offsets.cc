// GroupCoordinatorImpl's transactional offsets (group_coordinator_impl.h): TxnOffsetCommit
// writes a producer's offsets as a transactional batch of that producer to the group's
// partition; they stay pending until the transaction's marker is written there
// (WriteTxnMarkers, then OnTransactionCompleted): COMMIT makes them the group's
// committed offsets (each over an offset written before it, never over one written
// since: Kafka's rule), ABORT drops them. Loading replays the same from the log.
#include "base/logging.h"
#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {

void GroupCoordinatorImpl::CommitTransactionalOffsets(TxnOffsetCommitParams params,
                                                      std::function<void(std::vector<PartitionError>)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  auto all = [&](ErrorCode e) {
    std::vector<PartitionError> out;
    for (const auto& p : params.partitions) out.push_back({p.topic, p.partition, e});
    d.Add([respond, out] { respond(out); });
  };
  // A producer committing for a group nobody joined creates it (Kafka does the same).
  bool created = false;
  auto [g, error] = GroupForCommitLocked(params.group_id, params.generation_id, &created);
  if (error != ErrorCode::kNone) return all(error);
  if (!created && g->type == GroupType::kConsumer) {
    // The member epoch fences a member that lost its partitions (Kafka's
    // validateOffsetCommit); TxnOffsetCommit has no STALE_MEMBER_EPOCH: ILLEGAL_GENERATION.
    if (params.generation_id >= 0 || !g->consumer.members.empty()) {
      ErrorCode e = CheckConsumerMemberEpochLocked(*g, params.member_id, params.generation_id);
      if (e == ErrorCode::kStaleMemberEpoch) e = ErrorCode::kIllegalGeneration;
      if (e != ErrorCode::kNone) return all(e);
    }
  } else if (!created && (params.generation_id >= 0 || !params.member_id.empty())) {
    // KIP-447: the consumer's generation fences a zombie that lost its partitions.
    if (ErrorCode e = CheckMemberLocked(*g, params.member_id, params.group_instance_id); e != ErrorCode::kNone) {
      return all(e);
    }
    if (params.generation_id != g->generation_id) return all(ErrorCode::kIllegalGeneration);
  }
  OffsetWrites writes = OffsetWritesOf(*g, params.partitions, Now(), -1);
  std::vector<PartitionError> out = std::move(writes.answers);
  std::vector<GroupLogRecord> records = std::move(writes.records);
  std::vector<std::pair<storage::TopicPartition, OffsetValue>> values = std::move(writes.values);
  if (records.empty()) {
    d.Add([respond, out] { respond(out); });
    return;
  }
  const int32_t partition = g->partition;
  const int32_t epoch = owned_.at(partition).epoch;
  const std::string group_id = g->group_id;
  const int64_t producer_id = params.producer_id;
  log_->AppendTransactional(
      partition, epoch, producer_id, params.producer_epoch, std::move(records),
      [this, inbox = inbox_, partition, epoch, group_id, producer_id, values, out, respond](ErrorCode e) {
        PushCompletion(*inbox, [this, partition, epoch, group_id, producer_id, values, out, respond, e] {
          Deferred d;
          absl::MutexLock lock(&mu_);
          auto it = owned_.find(partition);
          ErrorCode outcome = e;
          if (it == owned_.end() || it->second.epoch != epoch || !it->second.loaded) outcome = ErrorCode::kNotCoordinator;
          // The log refuses a fenced producer's batch: say so as Kafka does.
          if (outcome == ErrorCode::kInvalidProducerEpoch) outcome = ErrorCode::kProducerFenced;
          ErrorCode client = outcome == ErrorCode::kProducerFenced || outcome == ErrorCode::kInvalidTxnState
                                 ? outcome
                                 : ClientErrorOfWrite(outcome, true);
          if (outcome == ErrorCode::kNone) {
            if (GroupMetadata* g = FindLocked(group_id)) {
              for (const auto& [tp, v] : values) {
                g->pending_txn_offsets[producer_id][tp] = v;
                g->pending_txn_order[producer_id][tp] = ++log_order_;
              }
            }
          }
          std::vector<PartitionError> answer = out;
          for (PartitionError& p : answer) {
            if (p.error == ErrorCode::kNone) p.error = client;
          }
          d.Add([respond, answer] { respond(answer); });
        });
      });
}

bool TxnOffsetWins(const std::map<storage::TopicPartition, OffsetValue>& offsets,
                   const std::map<storage::TopicPartition, uint64_t>& offset_order, const storage::TopicPartition& tp,
                   uint64_t written) {
  auto order = offset_order.find(tp);
  return !offsets.count(tp) || order == offset_order.end() || order->second < written;
}

void GroupCoordinatorImpl::OnTransactionCompleted(int32_t partition, int64_t producer_id, bool commit) {
  absl::MutexLock lock(&mu_);
  for (auto& [id, g] : groups_) {
    if (g.partition != partition) continue;
    auto it = g.pending_txn_offsets.find(producer_id);
    if (it == g.pending_txn_offsets.end()) continue;
    if (commit) {
      const std::map<storage::TopicPartition, uint64_t>& orders = g.pending_txn_order[producer_id];
      for (auto& [tp, v] : it->second) {
        auto order = orders.find(tp);
        const uint64_t written = order == orders.end() ? 0 : order->second;
        if (TxnOffsetWins(g.offsets, g.offset_order, tp, written)) {
          g.offsets[tp] = v;
          g.offset_order[tp] = written;
        }
      }
      commits_ += static_cast<int64_t>(it->second.size());
    }
    g.pending_txn_offsets.erase(it);
    g.pending_txn_order.erase(producer_id);
  }
}

}  // namespace strata::broker
