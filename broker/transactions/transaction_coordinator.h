#pragma once
// TransactionCoordinator: Kafka's transaction coordinator for the transactional ids
// whose partition of `__transaction_state` this broker leads (transaction_record.h says
// which). It keeps each id's producer id, epoch, timeout, state and partitions in
// memory and writes every change to that partition before it answers (acks=all, through
// a GroupLog over the topic). A broker that becomes leader of a partition loads it
// (COORDINATOR_LOAD_IN_PROGRESS until then) and completes the commits and aborts that
// were in flight; one that stops leading it drops its ids (NOT_COORDINATOR).
//
// A transaction moves through Kafka's states:
//   Empty / CompleteCommit / CompleteAbort --AddPartitionsToTxn, AddOffsetsToTxn-->
//   Ongoing --EndTxn(commit)--> PrepareCommit --markers written--> CompleteCommit
//   Ongoing --EndTxn(abort), its timeout, a new InitProducerId--> PrepareAbort
//   --markers written--> CompleteAbort
// InitProducerId with the id bumps the epoch (a new producer id once the epoch would
// pass 32766), fencing the previous producer (PRODUCER_FENCED); while a transaction is
// Ongoing it first aborts it with the bumped epoch and answers CONCURRENT_TRANSACTIONS
// (the client retries). A transaction past transaction.timeout.ms is aborted the same
// way. While a write or the markers of a transaction are in flight, requests for its id
// are CONCURRENT_TRANSACTIONS. The coordinator epoch the markers carry is the leader
// epoch of the id's partition, so that a deposed coordinator's markers are fenced.
// Two transaction protocols, chosen by each request as Kafka's coordinator does:
// version 1 (one epoch across transactions; Verify, AddPartitionsToTxn's verify-only
// form of KIP-890 part 1, answers partition leaders whether a partition is in an id's
// ongoing transaction) and version 2 (KIP-890 part 2, `client_tv` 2: EndTxn v5 and the
// partition leaders' AddPartitionsToTxn v5). Under version 2 every EndTxn moves the id
// to a new epoch (PrepareCommit/PrepareAbort are written with epoch+1, the markers carry
// it, the answer names it; a new producer id once the epoch is exhausted, taken at
// completion), a retried EndTxn is recognised by the epoch before the bump, an abort is
// accepted without a transaction (Empty, CompleteCommit, CompleteAbort), and a partition
// leader adding a partition while a transition is in flight waits for it (up to
// kBusyAddWaitMs) rather than being refused. A fence or a timeout bumps a version 2
// transaction's epoch twice (Kafka's fence, then its abort).
//
// Time: the timeout sweep and loads run on the coordinator's thread, from the options'
// clock; tests with a ManualClock and no thread call RunDueTimers.
// Thread-safe: one mutex over every id; answers are given outside it.

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/callback_lifetime.h"
#include "broker/common/coordinator_partitions.h"
#include "broker/common/periodic_worker.h"
#include "broker/group/group_types.h"
#include "broker/transactions/transaction_record.h"
#include "storage/clock.h"
#include "storage/file_names.h"

namespace strata::broker {

struct TransactionCoordinatorOptions {
  int32_t state_topic_partitions = 50;                   // transaction.state.log.num.partitions
  int32_t max_timeout_ms = 900000;                       // transaction.max.timeout.ms
  int64_t abort_timed_out_interval_ms = 10000;           // transaction.abort.timed.out.transaction.cleanup.interval.ms
  int64_t transactional_id_expiration_ms = 604800000;    // transactional.id.expiration.ms
  int64_t remove_expired_interval_ms = 3600000;          // transaction.remove.expired.transaction.cleanup.interval.ms
  storage::Clock* clock = storage::Clock::System();
  bool start_thread = true;  // false: tests drive RunDueTimers
};

// Where the markers go: each partition's leader writes the marker (WriteTxnMarkers),
// retried until it has; done runs once every partition has it (or is gone), on any
// thread. Fenced (a newer coordinator epoch wrote one): done runs too, the new
// coordinator finishes the transaction.
class TxnMarkerSender {
 public:
  virtual ~TxnMarkerSender() = default;
  struct Markers {
    std::string transactional_id;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int32_t coordinator_epoch = -1;
    bool commit = false;
    std::set<storage::TopicPartition> partitions;
  };
  virtual void Send(Markers markers, std::function<void()> done) = 0;
};

// A transactional id as DescribeTransactions and ListTransactions show it.
struct TransactionDescription {
  std::string transactional_id;
  ErrorCode error = ErrorCode::kNone;
  TransactionState state = TransactionState::kEmpty;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t timeout_ms = 0;
  int64_t start_ms = -1;
  std::set<storage::TopicPartition> partitions;
};

struct TransactionStats {
  int64_t ongoing = 0;        // transactions Ongoing, PrepareCommit or PrepareAbort now
  int64_t commits = 0;        // completed since the start
  int64_t aborts = 0;
  int64_t timed_out = 0;      // aborted by their timeout
  int64_t expired = 0;        // ids expired (transactional.id.expiration.ms)
  int64_t partitions_owned = 0;
};

class TransactionCoordinator {
 public:
  using ProducerIdSource = std::function<absl::StatusOr<int64_t>()>;

  TransactionCoordinator(TransactionCoordinatorOptions options, GroupLog* log, ProducerIdSource producer_ids,
                         TxnMarkerSender* markers);
  ~TransactionCoordinator();  // stops the thread; callbacks that come later do nothing
  TransactionCoordinator(const TransactionCoordinator&) = delete;
  TransactionCoordinator& operator=(const TransactionCoordinator&) = delete;

  int32_t PartitionFor(absl::string_view transactional_id) const;
  int32_t state_topic_partitions() const { return options_.state_topic_partitions; }
  // The partitions of __transaction_state this broker leads now, with their leader
  // epochs; the topic's partition count. Called after every metadata change.
  void OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions);
  bool IsLoaded(int32_t partition) const;

  struct InitResult {
    ErrorCode error = ErrorCode::kNone;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
  };
  // InitProducerId with a transactional id; producer_id/epoch: what the producer has
  // (-1: none; InitProducerId v3+).
  void InitProducerId(const std::string& transactional_id, int32_t timeout_ms, int64_t producer_id,
                      int16_t producer_epoch, std::function<void(InitResult)> respond);
  // AddPartitionsToTxn (and AddOffsetsToTxn, with the group's offsets partition): one
  // error for all, as Kafka answers a transaction's partitions (the verify-only form is
  // Verify below).
  // client_tv 2: a partition leader adding the partition of a version 2 producer's
  // batch (or a group coordinator its offsets partition): waits for a transition in
  // flight instead of CONCURRENT_TRANSACTIONS (which it answers after kBusyAddWaitMs).
  void AddPartitions(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                     std::set<storage::TopicPartition> partitions, int16_t client_tv,
                     std::function<void(ErrorCode)> respond);
  // AddPartitionsToTxn's verify-only form (KIP-890 part 1, asked by partition leaders
  // before a batch opens a transaction): per partition NONE when it is in the id's
  // ongoing transaction, else INVALID_TXN_STATE; the coordinator's errors
  // (NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS) and the producer's
  // (INVALID_PRODUCER_ID_MAPPING, PRODUCER_FENCED) for all. Writes nothing.
  std::map<storage::TopicPartition, ErrorCode> Verify(const std::string& transactional_id, int64_t producer_id,
                                                      int16_t producer_epoch,
                                                      const std::set<storage::TopicPartition>& partitions) const;
  // EndTxn; client_tv 2 (EndTxn v5): the answer names the producer id and epoch of the
  // id's next transaction (-1 under version 1 or on an error).
  struct EndResult {
    ErrorCode error = ErrorCode::kNone;
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
  };
  void EndTxn(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch, bool commit,
              int16_t client_tv, std::function<void(EndResult)> respond);

  // How long a version 2 add waits for a transition in flight (Kafka's leaders retry
  // CONCURRENT_TRANSACTIONS for add.partitions.to.txn.retry.backoff.max.ms, 100 ms).
  static constexpr int64_t kBusyAddWaitMs = 100;

  std::vector<TransactionDescription> Describe(const std::vector<std::string>& transactional_ids) const;
  // ListTransactions: the ids of the led, loaded partitions, filtered (empty: any).
  // Errors: COORDINATOR_LOAD_IN_PROGRESS while a partition loads.
  std::pair<ErrorCode, std::vector<TransactionDescription>> List(const std::set<TransactionState>& states,
                                                                 const std::set<int64_t>& producer_ids,
                                                                 int64_t min_duration_ms) const;

  // Timeouts, expirations and loads (the thread calls it every 100 ms). An id in Empty,
  // CompleteCommit or CompleteAbort without an update for transactional.id.expiration.ms
  // is expired (checked every transaction.remove.expired.transaction.cleanup.interval.ms):
  // a tombstone is written to its partition and the id forgotten, as Kafka does; its
  // next InitProducerId starts it again with a new producer id.
  void RunDueTimers();
  TransactionStats stats() const;

 private:
  struct Txn {
    std::string transactional_id;
    int32_t partition = 0;  // of __transaction_state
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    int64_t last_producer_id = -1;  // before a new id replaced it (a retried InitProducerId)
    int16_t last_producer_epoch = -1;
    int32_t timeout_ms = 0;
    TransactionState state = TransactionState::kEmpty;
    std::set<storage::TopicPartition> partitions;
    int64_t start_ms = -1;
    int64_t update_ms = -1;
    bool pending = false;    // a write or markers in flight
    bool answering = false;  // a completed write's answer is being delivered
    int16_t client_tv = 0;          // the protocol of its last transition (2: KIP-890 part 2)
    int64_t next_producer_id = -1;  // version 2: the id the transaction completing moves to
  };
  // A version 2 add that met a transition in flight, or adds of its id waiting before it:
  // retried in order after each write of its id until `deadline_ms`, then answered
  // CONCURRENT_TRANSACTIONS. Adds of one id are answered in the order they came, so that
  // the batches waiting for them are appended in the producer's order.
  struct WaitingAdd {
    int64_t deadline_ms = 0;
    std::function<void()> retry;
    std::function<void(ErrorCode)> respond;
  };
  // A transition to write: the state the id takes once written.
  struct Transition {
    TransactionLogValue value;
    int64_t last_producer_id = -1;
    int16_t last_producer_epoch = -1;
  };

  ErrorCode ReachLocked(int32_t partition) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // queued: the add at the front of its id's waiting adds, taken from there (it goes
  // back to the front if it must wait again).
  void AddPartitionsUntil(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                          std::set<storage::TopicPartition> partitions, int16_t client_tv, int64_t deadline_ms,
                          std::function<void(ErrorCode)> respond, bool queued = false);
  // EndTxn under version 2 (Kafka's table: a retry is the epoch before the bump).
  void EndTxnV2(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch, bool commit,
                std::function<void(EndResult)> respond);
  // Retries the adds that waited for transactional_id's transition (after a write), in
  // the order they came, one at a time: each is answered (its leader appends its batch)
  // before the next is asked, and one that starts a write stops the round (that write's
  // completion resumes it).
  void RetryWaitingAdds(const std::string& transactional_id);
  // Checks a request's producer id and epoch against the id's (INVALID_PRODUCER_ID_MAPPING,
  // PRODUCER_FENCED) and that nothing is in flight (CONCURRENT_TRANSACTIONS).
  ErrorCode CheckProducerLocked(const Txn* txn, int64_t producer_id, int16_t producer_epoch) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static TransactionLogValue ValueOf(const Txn& txn);
  // Writes t for txn (marked pending); then applies it and calls done(NONE), or leaves
  // txn as it was and calls done(error). Called without mu_.
  void Write(const std::string& transactional_id, int32_t partition, int32_t leader_epoch, Transition t,
             std::function<void(ErrorCode)> done);
  // The write's completion: applies t to the id (or not, on error), then done.
  void WriteDone(const std::string& transactional_id, const Transition& t, const std::function<void(ErrorCode)>& done,
                 ErrorCode e);
  // The id moved to PrepareCommit/PrepareAbort: sends the markers, then writes the
  // completion. Called without mu_.
  void CompleteTransaction(const std::string& transactional_id);
  // Every partition has the markers: writes CompleteCommit/CompleteAbort (unless the
  // coordinator was deposed meanwhile).
  void MarkersWritten(const std::string& transactional_id, int32_t coordinator_epoch, bool commit);
  // Writes the id's tombstone (it is idle past transactional.id.expiration.ms), then
  // forgets it. Called without mu_.
  void Expire(const std::string& transactional_id);
  // Bumps the epoch of an Ongoing transaction and aborts it (a fence or a timeout).
  void AbortWithNewEpoch(const std::string& transactional_id, std::function<void(ErrorCode)> done);
  void LoadPartition(int32_t partition, int32_t leader_epoch);
  int64_t Now() const { return options_.clock->NowMs(); }

  // The log's and the marker sender's callbacks may run after the coordinator is gone (an
  // append completing during shutdown): they enter through this.
  const std::shared_ptr<CallbackLifetime> lifetime_ = std::make_shared<CallbackLifetime>();
  const TransactionCoordinatorOptions options_;
  GroupLog* const log_;
  const ProducerIdSource producer_ids_;
  TxnMarkerSender* const markers_;

  mutable absl::Mutex mu_;
  std::map<std::string, Txn> txns_ ABSL_GUARDED_BY(mu_);
  CoordinatorPartitions partitions_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::deque<WaitingAdd>> waiting_adds_ ABSL_GUARDED_BY(mu_);  // by transactional id
  int64_t next_timeout_sweep_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_expiry_sweep_ms_ ABSL_GUARDED_BY(mu_) = 0;
  TransactionStats stats_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<PeriodicWorker> worker_;  // loads and timers (options.start_thread)
};

}  // namespace strata::broker
