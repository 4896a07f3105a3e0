#include "broker/transactions/transaction_coordinator.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/check.h"
#include "base/logging.h"

namespace strata::broker {

namespace {

constexpr int16_t kMaxEpoch = INT16_MAX - 1;  // Kafka bumps to a new producer id past it

// What a client is told when a write to __transaction_state failed (Kafka's mapping).
ErrorCode ClientErrorOfTxnWrite(ErrorCode e) {
  switch (e) {
    case ErrorCode::kNone:
      return e;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kFencedLeaderEpoch:
      return ErrorCode::kNotCoordinator;
    default:
      return ErrorCode::kCoordinatorNotAvailable;
  }
}

bool IsPrepare(TransactionState s) {
  return s == TransactionState::kPrepareCommit || s == TransactionState::kPrepareAbort ||
         s == TransactionState::kPrepareEpochFence;
}

}  // namespace

TransactionCoordinator::TransactionCoordinator(TransactionCoordinatorOptions options, GroupLog* log,
                                               ProducerIdSource producer_ids, TxnMarkerSender* markers)
    : options_(std::move(options)), log_(log), producer_ids_(std::move(producer_ids)), markers_(markers) {
  ABSL_CHECK(log_ != nullptr && markers_ != nullptr && producer_ids_ != nullptr);
  ABSL_CHECK_GT(options_.state_topic_partitions, 0);
  if (options_.start_thread) {
    worker_ = std::make_unique<PeriodicWorker>(absl::Milliseconds(100), [this] { RunDueTimers(); });
  }
}

TransactionCoordinator::~TransactionCoordinator() {
  worker_.reset();  // no tick after this
  lifetime_->Close();
}

int32_t TransactionCoordinator::PartitionFor(absl::string_view transactional_id) const {
  return TransactionStatePartitionFor(transactional_id, options_.state_topic_partitions);
}

ErrorCode TransactionCoordinator::ReachLocked(int32_t partition) const {
  return partitions_.Reach(partition);
}

bool TransactionCoordinator::IsLoaded(int32_t partition) const {
  absl::MutexLock lock(&mu_);
  return ReachLocked(partition) == ErrorCode::kNone;
}

void TransactionCoordinator::OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
  if (topic_partitions != options_.state_topic_partitions && topic_partitions > 0) {
    // Ids are placed by the configured count; a topic created with another count would
    // place them elsewhere than clients are told (Kafka refuses such a topic the same way).
    spdlog::error("{} has {} partitions but transaction.state.log.num.partitions is {}: transactional ids are "
                  "placed by the setting",
                  kTransactionStateTopic, topic_partitions, options_.state_topic_partitions);
  }
  absl::MutexLock lock(&mu_);
  for (int32_t partition : partitions_.Update(led)) {
    for (auto t = txns_.begin(); t != txns_.end();) {
      t = t->second.partition == partition ? txns_.erase(t) : std::next(t);
    }
    spdlog::info("transaction coordinator: no longer leads {}-{}", kTransactionStateTopic, partition);
  }
  stats_.partitions_owned = static_cast<int64_t>(partitions_.size());
}

void TransactionCoordinator::LoadPartition(int32_t partition, int32_t leader_epoch) {
  std::map<std::string, TransactionLogValue> loaded;
  absl::Status status = log_->Read(partition, leader_epoch, [&](GroupLogRecord r) -> absl::Status {
    auto id = DecodeTransactionLogKey(r.key);
    if (!id.ok()) return id.status();
    if (!r.value) {
      loaded.erase(*id);
      return absl::OkStatus();
    }
    auto value = DecodeTransactionLogValue(*r.value);
    if (!value.ok()) return absl::InvalidArgumentError(absl::StrCat("transactional id ", *id, ": ", value.status().message()));
    loaded[*id] = *std::move(value);
    return absl::OkStatus();
  });
  absl::MutexLock lock(&mu_);
  if (!partitions_.StillLoading(partition, leader_epoch)) return;  // moved on meanwhile
  if (!status.ok()) {
    // Retried: a partition that cannot be read is never served from a partial state.
    spdlog::error("transaction coordinator: loading {}-{}: {}", kTransactionStateTopic, partition, status.message());
    partitions_.RetryLoad(partition, leader_epoch);
    return;
  }
  int in_flight = 0;
  for (auto& [id, v] : loaded) {
    Txn& txn = txns_[id];
    txn = Txn{};
    txn.transactional_id = id;
    txn.partition = partition;
    txn.producer_id = v.producer_id;
    txn.producer_epoch = v.producer_epoch;
    txn.timeout_ms = v.timeout_ms;
    txn.state = v.state;
    txn.partitions = std::move(v.partitions);
    txn.start_ms = v.start_ms;
    txn.update_ms = v.last_update_ms;
    txn.last_producer_id = v.prev_producer_id;  // its epoch is not kept (Kafka's neither)
    txn.next_producer_id = v.next_producer_id;
    txn.client_tv = v.client_transaction_version;
    if (IsPrepare(txn.state)) ++in_flight;  // completed by the next sweep
  }
  partitions_.Loaded(partition);
  spdlog::info("transaction coordinator: loaded {}-{} in leader epoch {}: {} transactional ids, {} to complete",
               kTransactionStateTopic, partition, leader_epoch, loaded.size(), in_flight);
}

TransactionLogValue TransactionCoordinator::ValueOf(const Txn& txn) {
  return TransactionLogValue{txn.producer_id,      txn.producer_epoch,   txn.timeout_ms,
                             txn.state,            txn.partitions,       txn.update_ms,
                             txn.start_ms,         txn.last_producer_id, txn.next_producer_id,
                             txn.client_tv};
}

void TransactionCoordinator::Write(const std::string& transactional_id, int32_t partition, int32_t leader_epoch,
                                   Transition t, std::function<void(ErrorCode)> done) {
  if (t.last_producer_id >= 0) t.value.prev_producer_id = t.last_producer_id;
  std::vector<GroupLogRecord> records;
  records.push_back({EncodeTransactionLogKey(transactional_id), EncodeTransactionLogValue(t.value)});
  log_->Append(partition, leader_epoch, std::move(records),
               [this, lifetime = lifetime_, transactional_id, t, done](ErrorCode e) {
                 lifetime->IfAlive([&] { WriteDone(transactional_id, t, done, e); });
               });
}

void TransactionCoordinator::WriteDone(const std::string& transactional_id, const Transition& t,
                                       const std::function<void(ErrorCode)>& done, ErrorCode e) {
  {
    absl::MutexLock lock(&mu_);
    auto it = txns_.find(transactional_id);
    if (it != txns_.end()) {
      Txn& txn = it->second;
      txn.pending = false;
      txn.answering = true;
      if (e == ErrorCode::kNone) {
        if (t.last_producer_id >= 0) {
          txn.last_producer_id = t.last_producer_id;
          txn.last_producer_epoch = t.last_producer_epoch;
        }
        txn.producer_id = t.value.producer_id;
        txn.producer_epoch = t.value.producer_epoch;
        txn.timeout_ms = t.value.timeout_ms;
        txn.state = t.value.state;
        txn.partitions = t.value.partitions;
        txn.start_ms = t.value.start_ms;
        txn.update_ms = t.value.last_update_ms;
        txn.next_producer_id = t.value.next_producer_id;
        txn.client_tv = t.value.client_transaction_version;
      } else if (txn.producer_id < 0) {
        txns_.erase(it);  // a new id whose first write failed: it never existed
      }
    }
  }
  if (e != ErrorCode::kNone) {
    spdlog::warn("transaction coordinator: writing {} of {}: {}", TransactionStateName(t.value.state), transactional_id,
                 proto::kafka::ErrorName(e));
  }
  done(ClientErrorOfTxnWrite(e));
  {
    absl::MutexLock lock(&mu_);
    if (auto it = txns_.find(transactional_id); it != txns_.end()) it->second.answering = false;
  }
  RetryWaitingAdds(transactional_id);
}

void TransactionCoordinator::RetryWaitingAdds(const std::string& transactional_id) {
  while (true) {
    WaitingAdd next;
    {
      absl::MutexLock lock(&mu_);
      auto waiting = waiting_adds_.find(transactional_id);
      if (waiting == waiting_adds_.end()) return;
      if (waiting->second.empty()) {
        waiting_adds_.erase(waiting);
        return;
      }
      auto txn = txns_.find(transactional_id);
      if (txn != txns_.end() && (txn->second.pending || txn->second.answering || IsPrepare(txn->second.state))) {
        return;  // resumed when that completes
      }
      next = std::move(waiting->second.front());
      waiting->second.pop_front();
      if (txn != txns_.end()) txn->second.answering = true;  // the adds behind it wait for its answer
    }
    next.retry();
    absl::MutexLock lock(&mu_);
    if (auto txn = txns_.find(transactional_id); txn != txns_.end() && !txn->second.pending) {
      txn->second.answering = false;
    }
  }
}

ErrorCode TransactionCoordinator::CheckProducerLocked(const Txn* txn, int64_t producer_id,
                                                      int16_t producer_epoch) const {
  if (txn == nullptr || txn->state == TransactionState::kDead || txn->producer_id != producer_id) {
    return ErrorCode::kInvalidProducerIdMapping;
  }
  if (producer_epoch != txn->producer_epoch) return ErrorCode::kProducerFenced;
  if (txn->pending) return ErrorCode::kConcurrentTransactions;
  return ErrorCode::kNone;
}

void TransactionCoordinator::InitProducerId(const std::string& transactional_id, int32_t timeout_ms,
                                            int64_t producer_id, int16_t producer_epoch,
                                            std::function<void(InitResult)> respond) {
  auto fail = [&](ErrorCode e) { respond(InitResult{e, -1, -1}); };
  if (timeout_ms <= 0 || timeout_ms > options_.max_timeout_ms) return fail(ErrorCode::kInvalidTransactionTimeout);
  const int32_t partition = PartitionFor(transactional_id);
  bool need_new_id = false;
  {
    absl::MutexLock lock(&mu_);
    if (ErrorCode e = ReachLocked(partition); e != ErrorCode::kNone) return fail(e);
    auto it = txns_.find(transactional_id);
    need_new_id = it == txns_.end() || it->second.producer_epoch >= kMaxEpoch ||
                  it->second.state == TransactionState::kDead;
  }
  // A new producer id is fetched without the lock (it may wait for the controller).
  int64_t new_id = -1;
  if (need_new_id) {
    absl::StatusOr<int64_t> id = producer_ids_();
    if (!id.ok()) {
      spdlog::warn("transaction coordinator: no producer id for {}: {}", transactional_id, id.status().message());
      return fail(ErrorCode::kCoordinatorLoadInProgress);
    }
    new_id = *id;
  }
  int32_t leader_epoch;
  Transition t;
  bool fence = false;
  {
    absl::MutexLock lock(&mu_);
    if (ErrorCode e = ReachLocked(partition); e != ErrorCode::kNone) return fail(e);
    leader_epoch = partitions_.LeaderEpoch(partition);
    auto it = txns_.find(transactional_id);
    const int64_t now = Now();
    if (it == txns_.end() || it->second.state == TransactionState::kDead) {
      if (it != txns_.end() && it->second.pending) return fail(ErrorCode::kConcurrentTransactions);
      if (new_id < 0) return fail(ErrorCode::kConcurrentTransactions);  // created meanwhile: retry
      Txn& txn = txns_[transactional_id];
      txn = Txn{};
      txn.transactional_id = transactional_id;
      txn.partition = partition;
      txn.pending = true;
      t.value = TransactionLogValue{new_id, 0, timeout_ms, TransactionState::kEmpty, {}, now, -1};
    } else {
      Txn& txn = it->second;
      if (txn.pending) return fail(ErrorCode::kConcurrentTransactions);
      if (producer_id >= 0) {
        // KIP-360: the producer says which id and epoch it has.
        const bool current = producer_id == txn.producer_id && producer_epoch == txn.producer_epoch;
        const bool retried = producer_id == txn.last_producer_id && txn.last_producer_epoch >= 0 &&
                             producer_epoch == txn.last_producer_epoch;
        if (retried && !IsPrepare(txn.state) && txn.state != TransactionState::kOngoing) {
          // Its InitProducerId was done; the answer was lost.
          return respond(InitResult{ErrorCode::kNone, txn.producer_id, txn.producer_epoch});
        }
        if (!current) return fail(ErrorCode::kProducerFenced);
      }
      if (IsPrepare(txn.state)) return fail(ErrorCode::kConcurrentTransactions);
      if (txn.state == TransactionState::kOngoing) {
        fence = true;
      } else {
      if (txn.producer_epoch >= kMaxEpoch && new_id < 0) return fail(ErrorCode::kConcurrentTransactions);
      t.last_producer_id = txn.producer_id;
      // The epoch replaced is kept only when the producer said it had it (KIP-360): its
      // retry is then answered without another bump. A new instance (no id) fences the
      // old one, which must not get the new epoch by retrying with its own (Kafka's
      // lastProducerEpoch is NO_PRODUCER_EPOCH then).
      t.last_producer_epoch = producer_id >= 0 ? txn.producer_epoch : int16_t{-1};
      t.value = TransactionLogValue{txn.producer_epoch >= kMaxEpoch ? new_id : txn.producer_id,
                                    static_cast<int16_t>(txn.producer_epoch >= kMaxEpoch ? 0 : txn.producer_epoch + 1),
                                    timeout_ms, TransactionState::kEmpty, {}, now, -1};
      txn.pending = true;
      }
    }
  }
  if (fence) {
    // The open transaction is aborted under a bumped epoch (fencing its producer); the
    // client retries once it is done.
    return AbortWithNewEpoch(transactional_id, [respond](ErrorCode e) {
      respond(InitResult{e == ErrorCode::kNone ? ErrorCode::kConcurrentTransactions : e, -1, -1});
    });
  }
  const int64_t id = t.value.producer_id;
  const int16_t epoch = t.value.producer_epoch;
  Write(transactional_id, partition, leader_epoch, std::move(t), [respond, id, epoch](ErrorCode e) {
    respond(e == ErrorCode::kNone ? InitResult{e, id, epoch} : InitResult{e, -1, -1});
  });
}

void TransactionCoordinator::AddPartitions(const std::string& transactional_id, int64_t producer_id,
                                           int16_t producer_epoch, std::set<storage::TopicPartition> partitions,
                                           int16_t client_tv, std::function<void(ErrorCode)> respond) {
  AddPartitionsUntil(transactional_id, producer_id, producer_epoch, std::move(partitions), client_tv,
                     Now() + kBusyAddWaitMs, std::move(respond));
}

void TransactionCoordinator::AddPartitionsUntil(const std::string& transactional_id, int64_t producer_id,
                                                int16_t producer_epoch, std::set<storage::TopicPartition> partitions,
                                                int16_t client_tv, int64_t deadline_ms,
                                                std::function<void(ErrorCode)> respond, bool queued) {
  const int32_t partition = PartitionFor(transactional_id);
  int32_t leader_epoch;
  Transition t;
  // Answered outside mu_ (a partition leader's callback takes its own locks).
  ErrorCode answer = ErrorCode::kNone;
  bool write = false;
  {
    absl::MutexLock lock(&mu_);
    answer = ReachLocked(partition);
    auto it = txns_.find(transactional_id);
    Txn* txn = it == txns_.end() ? nullptr : &it->second;
    if (answer == ErrorCode::kNone) answer = CheckProducerLocked(txn, producer_id, producer_epoch);
    if (answer == ErrorCode::kNone && IsPrepare(txn->state)) answer = ErrorCode::kConcurrentTransactions;
    // Version 2 adds of one id are answered in the order they came: while one is being
    // answered (the add a completed write made, or one taken from the waiting adds, whose
    // batch its leader is appending) or others wait, a new one waits behind them.
    // Answered now, its batch could be appended before theirs, out of the producer's order.
    if (answer == ErrorCode::kNone && client_tv >= 2 && !queued) {
      auto waiting = waiting_adds_.find(transactional_id);
      if (txn->answering || (waiting != waiting_adds_.end() && !waiting->second.empty())) {
        answer = ErrorCode::kConcurrentTransactions;
      }
    }
    if (answer == ErrorCode::kConcurrentTransactions && client_tv >= 2 && Now() < deadline_ms) {
      // Version 2: the leader's add waits for the transition in flight (the previous
      // transaction's markers, most often) rather than failing the producer's batch.
      WaitingAdd add{deadline_ms,
                     [this, transactional_id, producer_id, producer_epoch, partitions, client_tv, deadline_ms,
                      respond] {
                       AddPartitionsUntil(transactional_id, producer_id, producer_epoch, partitions, client_tv,
                                          deadline_ms, respond, /*queued=*/true);
                     },
                     respond};
      std::deque<WaitingAdd>& waiting = waiting_adds_[transactional_id];
      if (queued) {
        waiting.push_front(std::move(add));  // it was first; it stays first
      } else {
        waiting.push_back(std::move(add));
      }
      return;
    }
    const bool included = answer == ErrorCode::kNone && txn->state == TransactionState::kOngoing &&
                          std::includes(txn->partitions.begin(), txn->partitions.end(), partitions.begin(),
                                        partitions.end());
    if (answer == ErrorCode::kNone && !included) {
      write = true;
      leader_epoch = partitions_.LeaderEpoch(partition);
      const int64_t now = Now();
      t.value = ValueOf(*txn);
      if (txn->state != TransactionState::kOngoing) {
        t.value.start_ms = now;
        t.value.partitions.clear();
      }
      t.value.state = TransactionState::kOngoing;
      t.value.partitions.insert(partitions.begin(), partitions.end());
      t.value.last_update_ms = now;
      t.value.client_transaction_version = client_tv;
      txn->pending = true;
    }
  }
  if (!write) return respond(answer);
  Write(transactional_id, partition, leader_epoch, std::move(t), std::move(respond));
}

std::map<storage::TopicPartition, ErrorCode> TransactionCoordinator::Verify(
    const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
    const std::set<storage::TopicPartition>& partitions) const {
  std::map<storage::TopicPartition, ErrorCode> out;
  auto all = [&](ErrorCode e) {
    for (const storage::TopicPartition& tp : partitions) out[tp] = e;
    return out;
  };
  absl::MutexLock lock(&mu_);
  if (ErrorCode e = ReachLocked(PartitionFor(transactional_id)); e != ErrorCode::kNone) return all(e);
  auto it = txns_.find(transactional_id);
  const Txn* txn = it == txns_.end() ? nullptr : &it->second;
  ErrorCode e = CheckProducerLocked(txn, producer_id, producer_epoch);
  if (e == ErrorCode::kConcurrentTransactions) e = ErrorCode::kNone;  // judged by the state below
  if (e != ErrorCode::kNone) return all(e);
  for (const storage::TopicPartition& tp : partitions) {
    out[tp] = txn->state == TransactionState::kOngoing && txn->partitions.count(tp) ? ErrorCode::kNone
                                                                                      : ErrorCode::kInvalidTxnState;
  }
  return out;
}

void TransactionCoordinator::EndTxn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                                    bool commit, int16_t client_tv, std::function<void(EndResult)> respond) {
  if (client_tv >= 2) return EndTxnV2(transactional_id, producer_id, producer_epoch, commit, std::move(respond));
  const int32_t partition = PartitionFor(transactional_id);
  auto answer = [&respond](ErrorCode e) { respond(EndResult{e, -1, -1}); };
  int32_t leader_epoch;
  Transition t;
  {
    absl::MutexLock lock(&mu_);
    if (ErrorCode e = ReachLocked(partition); e != ErrorCode::kNone) return answer(e);
    auto it = txns_.find(transactional_id);
    Txn* txn = it == txns_.end() ? nullptr : &it->second;
    if (ErrorCode e = CheckProducerLocked(txn, producer_id, producer_epoch); e != ErrorCode::kNone) return answer(e);
    switch (txn->state) {
      case TransactionState::kOngoing:
        break;
      case TransactionState::kCompleteCommit:
        return answer(commit ? ErrorCode::kNone : ErrorCode::kInvalidTxnState);  // a retried EndTxn
      case TransactionState::kCompleteAbort:
        return answer(commit ? ErrorCode::kInvalidTxnState : ErrorCode::kNone);
      case TransactionState::kPrepareCommit:
        return answer(commit ? ErrorCode::kConcurrentTransactions : ErrorCode::kInvalidTxnState);
      case TransactionState::kPrepareAbort:
        return answer(commit ? ErrorCode::kInvalidTxnState : ErrorCode::kConcurrentTransactions);
      default:
        return answer(ErrorCode::kInvalidTxnState);
    }
    leader_epoch = partitions_.LeaderEpoch(partition);
    t.value = ValueOf(*txn);
    t.value.state = commit ? TransactionState::kPrepareCommit : TransactionState::kPrepareAbort;
    t.value.last_update_ms = Now();
    t.value.client_transaction_version = 0;
    txn->pending = true;
  }
  Write(transactional_id, partition, leader_epoch, std::move(t), [this, transactional_id, respond](ErrorCode e) {
    // Answered once the decision is written: the markers follow, whatever happens to this
    // coordinator (a new one completes a loaded PrepareCommit).
    respond(EndResult{e, -1, -1});
    if (e == ErrorCode::kNone) CompleteTransaction(transactional_id);
  });
}

void TransactionCoordinator::EndTxnV2(const std::string& transactional_id, int64_t producer_id,
                                      int16_t producer_epoch, bool commit, std::function<void(EndResult)> respond) {
  const int32_t partition = PartitionFor(transactional_id);
  auto answer = [&respond](ErrorCode e) { respond(EndResult{e, -1, -1}); };
  // A commit or abort that bumps past the last epoch moves to a new producer id, fetched
  // without the lock (it may wait for the controller), then decided again.
  int64_t next_id = -1;
  for (int attempt = 0;; ++attempt) {
    int32_t leader_epoch;
    Transition t;
    bool need_next_id = false;
    {
      absl::MutexLock lock(&mu_);
      if (ErrorCode e = ReachLocked(partition); e != ErrorCode::kNone) return answer(e);
      auto it = txns_.find(transactional_id);
      if (it == txns_.end() || it->second.state == TransactionState::kDead) {
        return answer(ErrorCode::kInvalidProducerIdMapping);
      }
      Txn& txn = it->second;
      // Kafka's version 2 rules: the request's epoch is the current one, or (a retry of
      // an EndTxn that was done) the one before the bump, or before the move to a new id.
      const bool retry_on_overflow = txn.last_producer_id == producer_id && producer_epoch == kMaxEpoch &&
                                     txn.producer_epoch == 0;
      const bool retry_on_bump = txn.producer_epoch == producer_epoch + 1;
      const bool retry = retry_on_bump || retry_on_overflow;
      bool valid_epoch = false;
      switch (txn.state) {
        case TransactionState::kPrepareCommit:
        case TransactionState::kPrepareAbort:
          // A retry, or the next transaction's EndTxn (an abort with nothing sent) while
          // the markers are in flight: CONCURRENT_TRANSACTIONS below, which the producer
          // retries (Kafka 4.x answers every version 2 EndTxn in these states so).
          valid_epoch = retry_on_bump || producer_epoch == txn.producer_epoch;
          break;
        case TransactionState::kCompleteCommit:
        case TransactionState::kCompleteAbort:
          valid_epoch = retry || producer_epoch == txn.producer_epoch;
          break;
        default:
          valid_epoch = producer_epoch == txn.producer_epoch;
      }
      if (txn.producer_id != producer_id && !retry_on_overflow) return answer(ErrorCode::kInvalidProducerIdMapping);
      if (!valid_epoch) return answer(ErrorCode::kProducerFenced);
      if (txn.pending || IsPrepare(txn.state)) return answer(ErrorCode::kConcurrentTransactions);
      bool bump = false;  // to PrepareCommit/PrepareAbort with the next epoch
      switch (txn.state) {
        case TransactionState::kOngoing:
          bump = true;
          break;
        case TransactionState::kCompleteCommit:
          if (commit && retry) return respond(EndResult{ErrorCode::kNone, txn.producer_id, txn.producer_epoch});
          if (commit || retry) return answer(ErrorCode::kInvalidTxnState);
          bump = true;  // an abort with no transaction open
          break;
        case TransactionState::kCompleteAbort:
          if (!commit && retry) return respond(EndResult{ErrorCode::kNone, txn.producer_id, txn.producer_epoch});
          if (commit) return answer(ErrorCode::kInvalidTxnState);
          bump = true;
          break;
        case TransactionState::kEmpty:
          if (commit) return answer(ErrorCode::kInvalidTxnState);
          bump = true;
          break;
        default:
          return answer(ErrorCode::kInvalidTxnState);
      }
      ABSL_CHECK(bump);
      // Only a fence reaches the last epoch, and no producer is told it.
      if (txn.producer_epoch == INT16_MAX) return answer(ErrorCode::kProducerFenced);
      const bool exhausted = txn.producer_epoch >= kMaxEpoch;
      if (exhausted && next_id < 0) {
        need_next_id = true;
      } else {
        leader_epoch = partitions_.LeaderEpoch(partition);
        const int64_t now = Now();
        t.value = ValueOf(txn);
        if (txn.state != TransactionState::kOngoing) {
          // An abort without a transaction: nothing to mark; it starts now.
          t.value.partitions.clear();
          t.value.start_ms = now;
        }
        t.value.state = commit ? TransactionState::kPrepareCommit : TransactionState::kPrepareAbort;
        t.value.producer_epoch = static_cast<int16_t>(txn.producer_epoch + 1);
        t.value.next_producer_id = exhausted ? next_id : -1;
        t.value.last_update_ms = now;
        t.value.client_transaction_version = 2;
        // The epoch bumped from is a retry's (KIP-360 InitProducerId as well).
        t.last_producer_id = txn.producer_id;
        t.last_producer_epoch = txn.producer_epoch;
        txn.pending = true;
      }
    }
    if (need_next_id) {
      if (attempt > 0) return answer(ErrorCode::kConcurrentTransactions);
      absl::StatusOr<int64_t> id = producer_ids_();
      if (!id.ok()) {
        spdlog::warn("transaction coordinator: no producer id for {}: {}", transactional_id, id.status().message());
        return answer(ErrorCode::kCoordinatorLoadInProgress);
      }
      next_id = *id;
      continue;
    }
    // The next transaction's producer: a new id at epoch 0 once the epoch is exhausted.
    const int64_t answer_id = t.value.next_producer_id >= 0 ? t.value.next_producer_id : t.value.producer_id;
    const int16_t answer_epoch = t.value.next_producer_id >= 0 ? int16_t{0} : t.value.producer_epoch;
    Write(transactional_id, partition, leader_epoch, std::move(t),
          [this, transactional_id, respond, answer_id, answer_epoch](ErrorCode e) {
            respond(e == ErrorCode::kNone ? EndResult{e, answer_id, answer_epoch} : EndResult{e, -1, -1});
            if (e == ErrorCode::kNone) CompleteTransaction(transactional_id);
          });
    return;
  }
}

void TransactionCoordinator::Expire(const std::string& transactional_id) {
  int32_t partition;
  int32_t leader_epoch;
  {
    absl::MutexLock lock(&mu_);
    auto it = txns_.find(transactional_id);
    if (it == txns_.end() || it->second.pending) return;
    partition = it->second.partition;
    if (ReachLocked(partition) != ErrorCode::kNone) return;
    leader_epoch = partitions_.LeaderEpoch(partition);
    it->second.pending = true;  // requests for it wait (CONCURRENT_TRANSACTIONS) until it is gone
  }
  spdlog::info("transaction coordinator: expiring {}: no update for transactional.id.expiration.ms",
               transactional_id);
  std::vector<GroupLogRecord> tombstone;
  tombstone.push_back({EncodeTransactionLogKey(transactional_id), std::nullopt});
  log_->Append(partition, leader_epoch, std::move(tombstone), [this, lifetime = lifetime_, transactional_id](ErrorCode e) {
    lifetime->IfAlive([&] {
      absl::MutexLock lock(&mu_);
      auto it = txns_.find(transactional_id);
      if (it == txns_.end()) return;
      if (e != ErrorCode::kNone) {
        it->second.pending = false;  // kept; the next sweep tries again
        return;
      }
      txns_.erase(it);
      ++stats_.expired;
    });
  });
}

void TransactionCoordinator::AbortWithNewEpoch(const std::string& transactional_id,
                                               std::function<void(ErrorCode)> done) {
  int32_t partition;
  int32_t leader_epoch;
  Transition t;
  {
    absl::MutexLock lock(&mu_);
    auto it = txns_.find(transactional_id);
    if (it == txns_.end()) return done(ErrorCode::kInvalidProducerIdMapping);
    Txn& txn = it->second;
    if (txn.pending) return done(ErrorCode::kConcurrentTransactions);
    if (txn.state != TransactionState::kOngoing) return done(ErrorCode::kInvalidTxnState);
    partition = txn.partition;
    if (ErrorCode e = ReachLocked(partition); e != ErrorCode::kNone) return done(e);
    leader_epoch = partitions_.LeaderEpoch(partition);
    t.value = ValueOf(txn);
    // The epoch is bumped so that the producer of the aborted transaction is fenced; at
    // the last epoch it stays (the next InitProducerId moves to a new producer id).
    // Version 2 bumps it twice, as Kafka's fence then abort do: the epoch after one bump
    // would read as a retry of the producer's own EndTxn.
    const int bumps = txn.client_tv >= 2 ? 2 : 1;
    for (int i = 0; i < bumps; ++i) {
      if (t.value.producer_epoch < (txn.client_tv >= 2 ? INT16_MAX : kMaxEpoch)) ++t.value.producer_epoch;
    }
    // No epoch before the fence is a retry's any more (Kafka's prepareFenceProducerEpoch
    // clears lastProducerEpoch): a producer that kept an earlier KIP-360 epoch must not be
    // handed the new one by retrying with it.
    t.last_producer_id = txn.producer_id;
    t.last_producer_epoch = -1;
    t.value.state = TransactionState::kPrepareAbort;
    t.value.last_update_ms = Now();
    txn.pending = true;
  }
  Write(transactional_id, partition, leader_epoch, std::move(t), [this, transactional_id, done](ErrorCode e) {
    if (e == ErrorCode::kNone) CompleteTransaction(transactional_id);
    done(e);
  });
}

void TransactionCoordinator::CompleteTransaction(const std::string& transactional_id) {
  TxnMarkerSender::Markers markers;
  {
    absl::MutexLock lock(&mu_);
    auto it = txns_.find(transactional_id);
    if (it == txns_.end()) return;
    Txn& txn = it->second;
    if (txn.pending || !IsPrepare(txn.state) || ReachLocked(txn.partition) != ErrorCode::kNone) return;
    txn.pending = true;
    markers.transactional_id = transactional_id;
    markers.producer_id = txn.producer_id;
    markers.producer_epoch = txn.producer_epoch;
    markers.coordinator_epoch = partitions_.LeaderEpoch(txn.partition);
    markers.commit = txn.state == TransactionState::kPrepareCommit;
    markers.partitions = txn.partitions;
  }
  const int32_t coordinator_epoch = markers.coordinator_epoch;
  const bool commit = markers.commit;
  if (markers.partitions.empty()) {
    // Version 2's abort without a transaction: nothing to mark.
    return MarkersWritten(transactional_id, coordinator_epoch, commit);
  }
  markers_->Send(std::move(markers), [this, lifetime = lifetime_, transactional_id, coordinator_epoch, commit] {
    lifetime->IfAlive([&] { MarkersWritten(transactional_id, coordinator_epoch, commit); });
  });
}

void TransactionCoordinator::MarkersWritten(const std::string& transactional_id, int32_t coordinator_epoch,
                                            bool commit) {
  int32_t partition;
  Transition t;
  {
    absl::MutexLock lock(&mu_);
    auto it = txns_.find(transactional_id);
    if (it == txns_.end()) return;
    Txn& txn = it->second;
    if (partitions_.LeaderEpoch(txn.partition) != coordinator_epoch) return;  // deposed meanwhile
    partition = txn.partition;
    t.value = ValueOf(txn);
    t.value.state = commit ? TransactionState::kCompleteCommit : TransactionState::kCompleteAbort;
    t.value.partitions.clear();
    t.value.last_update_ms = Now();
    if (txn.next_producer_id >= 0) {
      // Version 2, the epoch exhausted: the id moves to the new producer id the EndTxn
      // answer named (its last epoch stays what the producer last had).
      t.last_producer_id = txn.producer_id;
      t.last_producer_epoch = txn.last_producer_epoch;
      t.value.producer_id = txn.next_producer_id;
      t.value.producer_epoch = 0;
    }
    t.value.next_producer_id = -1;
  }
  Write(transactional_id, partition, coordinator_epoch, std::move(t), [this, commit](ErrorCode e) {
    if (e != ErrorCode::kNone) return;  // still Prepare*: the next sweep sends and writes again
    absl::MutexLock lock(&mu_);
    ++(commit ? stats_.commits : stats_.aborts);
  });
}

void TransactionCoordinator::RunDueTimers() {
  std::deque<std::pair<int32_t, int32_t>> loads;
  {
    absl::MutexLock lock(&mu_);
    loads = partitions_.TakeLoads();
  }
  for (const auto& [partition, epoch] : loads) LoadPartition(partition, epoch);
  log_->Poll();
  std::vector<std::string> to_complete;
  std::vector<std::string> timed_out;
  std::vector<std::string> expired;
  std::vector<std::function<void(ErrorCode)>> given_up;  // version 2 adds that waited too long
  {
    absl::MutexLock lock(&mu_);
    const int64_t now = Now();
    for (auto it = waiting_adds_.begin(); it != waiting_adds_.end();) {
      std::deque<WaitingAdd>& adds = it->second;
      while (!adds.empty() && adds.front().deadline_ms <= now) {
        given_up.push_back(std::move(adds.front().respond));
        adds.pop_front();
      }
      it = adds.empty() ? waiting_adds_.erase(it) : std::next(it);
    }
    const bool sweep = now >= next_timeout_sweep_ms_;
    if (sweep) next_timeout_sweep_ms_ = now + options_.abort_timed_out_interval_ms;
    const bool expiry = now >= next_expiry_sweep_ms_;
    if (expiry) next_expiry_sweep_ms_ = now + options_.remove_expired_interval_ms;
    for (const auto& [id, txn] : txns_) {
      if (txn.pending || ReachLocked(txn.partition) != ErrorCode::kNone) continue;
      if (IsPrepare(txn.state)) to_complete.push_back(id);
      if (sweep && txn.state == TransactionState::kOngoing && now - txn.start_ms > txn.timeout_ms) {
        timed_out.push_back(id);
      }
      const bool idle = txn.state == TransactionState::kEmpty || txn.state == TransactionState::kCompleteCommit ||
                        txn.state == TransactionState::kCompleteAbort;
      if (expiry && idle && now - txn.update_ms > options_.transactional_id_expiration_ms) expired.push_back(id);
    }
  }
  for (auto& respond : given_up) respond(ErrorCode::kConcurrentTransactions);
  for (const std::string& id : expired) Expire(id);
  for (const std::string& id : to_complete) CompleteTransaction(id);
  for (const std::string& id : timed_out) {
    spdlog::info("transaction coordinator: aborting {}: past its transaction timeout", id);
    AbortWithNewEpoch(id, [this](ErrorCode e) {
      if (e != ErrorCode::kNone) return;
      absl::MutexLock lock(&mu_);
      ++stats_.timed_out;
    });
  }
}

std::vector<TransactionDescription> TransactionCoordinator::Describe(const std::vector<std::string>& ids) const {
  std::vector<TransactionDescription> out;
  absl::MutexLock lock(&mu_);
  for (const std::string& id : ids) {
    TransactionDescription& d = out.emplace_back();
    d.transactional_id = id;
    d.error = ReachLocked(PartitionFor(id));
    if (d.error != ErrorCode::kNone) continue;
    auto it = txns_.find(id);
    if (it == txns_.end() || it->second.producer_id < 0) {
      d.error = ErrorCode::kTransactionalIdNotFound;
      continue;
    }
    const Txn& t = it->second;
    d.state = t.state;
    d.producer_id = t.producer_id;
    d.producer_epoch = t.producer_epoch;
    d.timeout_ms = t.timeout_ms;
    d.start_ms = t.state == TransactionState::kOngoing || IsPrepare(t.state) ? t.start_ms : -1;
    d.partitions = t.partitions;
  }
  return out;
}

std::pair<ErrorCode, std::vector<TransactionDescription>> TransactionCoordinator::List(
    const std::set<TransactionState>& states, const std::set<int64_t>& producer_ids, int64_t min_duration_ms) const {
  std::vector<TransactionDescription> out;
  absl::MutexLock lock(&mu_);
  const ErrorCode error = partitions_.AnyLoading() ? ErrorCode::kCoordinatorLoadInProgress : ErrorCode::kNone;
  const int64_t now = Now();
  for (const auto& [id, t] : txns_) {
    if (t.producer_id < 0) continue;
    if (!states.empty() && !states.count(t.state)) continue;
    if (!producer_ids.empty() && !producer_ids.count(t.producer_id)) continue;
    // "Running longer than" the filter (ListTransactions v1's duration_filter).
    if (min_duration_ms >= 0 && (t.state != TransactionState::kOngoing || now - t.start_ms <= min_duration_ms)) continue;
    TransactionDescription& d = out.emplace_back();
    d.transactional_id = id;
    d.state = t.state;
    d.producer_id = t.producer_id;
  }
  return {error, std::move(out)};
}

TransactionStats TransactionCoordinator::stats() const {
  absl::MutexLock lock(&mu_);
  TransactionStats s = stats_;
  s.ongoing = 0;
  for (const auto& [id, t] : txns_) {
    if (t.state == TransactionState::kOngoing || IsPrepare(t.state)) ++s.ongoing;
  }
  return s;
}

}  // namespace strata::broker
