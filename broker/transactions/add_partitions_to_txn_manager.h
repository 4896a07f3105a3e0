#pragma once
// AddPartitionsToTxnManager: a partition leader's half of KIP-890 (Kafka's
// AddPartitionsToTxnManager). Before a transactional producer's batch opens a
// transaction on a partition, the produce handler asks here: under transaction protocol
// version 1 whether the partition is in the producer's ongoing transaction (part 1,
// kVerify), under version 2 (Produce v12, TxnOffsetCommit v5) to add it (part 2, kAdd).
// The id's transaction coordinator answers (the leader of its partition of
// __transaction_state): in-process when that is this broker, else by AddPartitionsToTxn
// v5 (verify_only for kVerify) over the inter-broker listener. Without
// the question a batch that arrives after its transaction ended (a producer's retry
// delayed in the network past the abort) would open a transaction no coordinator knows
// of, holding the partition's last stable offset back for good: Jepsen's hanging
// transaction.
//
// A thread per coordinator broker sends (a coordinator cut off holds up only its own
// questions): each round takes what waits for that coordinator and sends it one request.
// Two questions of one transactional id waiting for the same coordinator are merged
// when they carry the same producer id, epoch and operation; otherwise the older epoch's
// is answered INVALID_PRODUCER_EPOCH (Kafka's rule: it is fenced), and of the same epoch
// with the other operation CONCURRENT_TRANSACTIONS (retried by the producer).
//
// Errors as a producer handles them (Kafka's): PRODUCER_FENCED becomes
// INVALID_PRODUCER_EPOCH; no coordinator now: COORDINATOR_NOT_AVAILABLE; a request that
// failed on the wire: NETWORK_EXCEPTION; a coordinator refusing this broker
// (CLUSTER_AUTHORIZATION_FAILED): INVALID_TXN_STATE.
// Thread-safe. The destructor answers what waits NETWORK_EXCEPTION.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/transactions/transaction_coordinator.h"
#include "client/client_security.h"
#include "client/kafka_connection.h"

namespace strata::broker {

// A broker's inter-broker endpoint; broker_id -1: none (no leader now).
struct BrokerEndpoint {
  int32_t broker_id = -1;
  std::string host;
  int port = 0;
};

struct AddPartitionsToTxnManagerOptions {
  int32_t broker_id = -1;                                    // this broker
  int32_t state_topic_partitions = 50;                       // transaction.state.log.num.partitions
  std::function<BrokerEndpoint(int32_t)> coordinator_of;     // leader of __transaction_state-<p>; required
  TransactionCoordinator* local = nullptr;                   // this broker's coordinator; required
  client::ClientSecurity security;                           // the inter-broker listener's
  std::chrono::milliseconds request_timeout{10000};
};

struct TxnVerificationStats {
  int64_t verified = 0;    // partitions the coordinator confirmed or added
  int64_t unverified = 0;  // partitions refused (any error)
  int64_t remote_requests = 0;
};

// What a partition leader asks of the coordinator (Kafka's TransactionSupportedOperation):
// whether the partitions are in the ongoing transaction, or to add them to it.
enum class TxnPartitionOperation { kVerify, kAdd };

// What the produce path asks (the manager below; tests hold answers back with their own).
class TxnVerifier {
 public:
  // Partitions not verified, with why; empty: every partition is in the transaction.
  using Unverified = std::map<storage::TopicPartition, ErrorCode>;
  using Callback = std::function<void(Unverified)>;
  virtual ~TxnVerifier() = default;
  // done runs exactly once, at once or later on any thread; the answers of one
  // transactional id come in the order it was asked.
  virtual void Verify(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
                      std::set<storage::TopicPartition> partitions, TxnPartitionOperation operation,
                      Callback done) = 0;
};

class AddPartitionsToTxnManager final : public TxnVerifier {
 public:
  explicit AddPartitionsToTxnManager(AddPartitionsToTxnManagerOptions options);
  ~AddPartitionsToTxnManager() override;
  AddPartitionsToTxnManager(const AddPartitionsToTxnManager&) = delete;
  AddPartitionsToTxnManager& operator=(const AddPartitionsToTxnManager&) = delete;

  // done runs at once (a local coordinator's verify, or no coordinator now), or later on
  // the coordinator's sender thread or (a local add) when its write completes.
  void Verify(const std::string& transactional_id, int64_t producer_id, int16_t producer_epoch,
              std::set<storage::TopicPartition> partitions, TxnPartitionOperation operation,
              Callback done) override;
  TxnVerificationStats stats() const;

 private:
  struct Waiter {
    std::set<storage::TopicPartition> partitions;
    Callback done;
  };
  struct Pending {
    int64_t producer_id = -1;
    int16_t producer_epoch = -1;
    TxnPartitionOperation operation = TxnPartitionOperation::kVerify;
    std::set<storage::TopicPartition> partitions;  // every waiter's
    std::vector<Waiter> waiters;
  };
  struct Queue {
    BrokerEndpoint endpoint;
    std::map<std::string, Pending> transactions;  // by transactional id
  };
  // One per coordinator broker: the questions waiting for it and the thread that sends
  // them, so that a coordinator that does not answer (cut off: its requests wait for
  // request_timeout) holds up only the questions meant for it.
  struct Sender {
    Queue queue;  // guarded by mu_
    std::unique_ptr<client::KafkaConnection> connection;  // its thread's own
    std::thread thread;
  };
  // The answers counted (shared: a local add may complete after the manager is gone).
  struct Counters {
    std::atomic<int64_t> verified{0};
    std::atomic<int64_t> unverified{0};
    std::atomic<int64_t> remote_requests{0};
  };
  // A waiter's answer from the partitions' errors (missing: `missing`).
  static void Answer(Counters& counters, Waiter& waiter, const Unverified& errors, ErrorCode missing);
  void Answer(Waiter& waiter, const Unverified& errors, ErrorCode missing) { Answer(*counters_, waiter, errors, missing); }
  // Queues a question for the coordinator's sender (started on first use); waiters the
  // question fences (an older epoch of the same id) go to `fenced`.
  void EnqueueLocked(const BrokerEndpoint& coordinator, const std::string& transactional_id, int64_t producer_id,
                     int16_t producer_epoch, TxnPartitionOperation operation, Waiter waiter,
                     std::vector<std::pair<Waiter, ErrorCode>>& refused)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Run(Sender* sender);
  // Sends one coordinator its queue and answers the waiters (on the sender's thread).
  void SendTo(Sender& sender, Queue queue);
  client::KafkaConnection* ConnectionTo(Sender& sender, const BrokerEndpoint& e);

  const AddPartitionsToTxnManagerOptions options_;
  const std::shared_ptr<Counters> counters_ = std::make_shared<Counters>();
  mutable absl::Mutex mu_;
  std::map<int32_t, std::unique_ptr<Sender>> senders_ ABSL_GUARDED_BY(mu_);  // by coordinator broker id
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace strata::broker
