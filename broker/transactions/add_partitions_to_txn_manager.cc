#include "broker/transactions/add_partitions_to_txn_manager.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "proto/kafka/add_partitions_to_txn.h"
#include "proto/kafka/api.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {

// v4 brought brokers' batches with verify_only; v5 is what Kafka's leaders send.
constexpr int16_t kBrokerVersion = 5;
constexpr int16_t kTransactionVersion2 = 2;

// What a producer is told for a coordinator's answer on a partition (Kafka's mapping).
ErrorCode ForProducer(ErrorCode e) {
  return e == ErrorCode::kProducerFenced ? ErrorCode::kInvalidProducerEpoch : e;
}

}  // namespace

AddPartitionsToTxnManager::AddPartitionsToTxnManager(AddPartitionsToTxnManagerOptions options)
    : options_(std::move(options)) {
  ABSL_CHECK(options_.coordinator_of != nullptr && options_.local != nullptr);
  ABSL_CHECK_GT(options_.state_topic_partitions, 0);
}

AddPartitionsToTxnManager::~AddPartitionsToTxnManager() {
  std::vector<Sender*> senders;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;  // no sender is added past this
    for (auto& [id, sender] : senders_) senders.push_back(sender.get());
  }
  for (Sender* sender : senders) sender->thread.join();
  std::vector<Queue> left;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, sender] : senders_) left.push_back(std::move(sender->queue));
  }
  for (Queue& queue : left) {
    for (auto& [id, pending] : queue.transactions) {
      for (Waiter& w : pending.waiters) Answer(w, {}, ErrorCode::kNetworkException);
    }
  }
}

TxnVerificationStats AddPartitionsToTxnManager::stats() const {
  return TxnVerificationStats{counters_->verified.load(), counters_->unverified.load(),
                              counters_->remote_requests.load()};
}

void AddPartitionsToTxnManager::Answer(Counters& counters, Waiter& waiter, const Unverified& errors,
                                       ErrorCode missing) {
  Unverified unverified;
  for (const storage::TopicPartition& tp : waiter.partitions) {
    auto it = errors.find(tp);
    ErrorCode e = ForProducer(it == errors.end() ? missing : it->second);
    if (e != ErrorCode::kNone) unverified[tp] = e;
  }
  counters.unverified += static_cast<int64_t>(unverified.size());
  counters.verified += static_cast<int64_t>(waiter.partitions.size() - unverified.size());
  waiter.done(std::move(unverified));
}

void AddPartitionsToTxnManager::Verify(const std::string& transactional_id, int64_t producer_id,
                                       int16_t producer_epoch, std::set<storage::TopicPartition> partitions,
                                       TxnPartitionOperation operation, Callback done) {
  Waiter waiter{std::move(partitions), std::move(done)};
  const BrokerEndpoint coordinator =
      options_.coordinator_of(TransactionStatePartitionFor(transactional_id, options_.state_topic_partitions));
  if (coordinator.broker_id < 0) return Answer(waiter, {}, ErrorCode::kCoordinatorNotAvailable);
  if (coordinator.broker_id == options_.broker_id) {
    // This broker's own coordinator: asked in-process. A verify writes nothing; an add
    // answers once its write completes (on the log's thread, perhaps after this manager
    // is gone: the answer needs only the waiter and the shared counters).
    if (operation == TxnPartitionOperation::kVerify) {
      return Answer(waiter, options_.local->Verify(transactional_id, producer_id, producer_epoch, waiter.partitions),
                    ErrorCode::kNone);
    }
    std::set<storage::TopicPartition> to_add = waiter.partitions;
    return options_.local->AddPartitions(
        transactional_id, producer_id, producer_epoch, std::move(to_add), kTransactionVersion2,
        [counters = counters_, waiter = std::move(waiter)](ErrorCode e) mutable { Answer(*counters, waiter, {}, e); });
  }
  std::vector<std::pair<Waiter, ErrorCode>> refused;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      refused.emplace_back(std::move(waiter), ErrorCode::kNetworkException);  // the sender threads are gone or going
    } else {
      EnqueueLocked(coordinator, transactional_id, producer_id, producer_epoch, operation, std::move(waiter), refused);
    }
  }
  for (auto& [w, e] : refused) Answer(w, {}, e);
}

void AddPartitionsToTxnManager::EnqueueLocked(const BrokerEndpoint& coordinator, const std::string& transactional_id,
                                              int64_t producer_id, int16_t producer_epoch,
                                              TxnPartitionOperation operation, Waiter waiter,
                                              std::vector<std::pair<Waiter, ErrorCode>>& refused) {
  std::unique_ptr<Sender>& sender = senders_[coordinator.broker_id];
  if (sender == nullptr) {
    sender = std::make_unique<Sender>();
    sender->thread = std::thread([this, s = sender.get()] { Run(s); });
  }
  Queue& queue = sender->queue;
  queue.endpoint = coordinator;
  auto [it, added] = queue.transactions.try_emplace(transactional_id);
  Pending& pending = it->second;
  if (!added && (pending.producer_id != producer_id || pending.producer_epoch != producer_epoch)) {
    if (pending.producer_id == producer_id && producer_epoch < pending.producer_epoch) {
      refused.emplace_back(std::move(waiter), ErrorCode::kInvalidProducerEpoch);  // the waiting one is newer
      return;
    }
    for (Waiter& w : pending.waiters) refused.emplace_back(std::move(w), ErrorCode::kInvalidProducerEpoch);
    pending = Pending{};
  } else if (!added && pending.operation != operation) {
    // The same producer verifying and adding at once (it changed protocol): the later
    // question waits for the producer's retry.
    refused.emplace_back(std::move(waiter), ErrorCode::kConcurrentTransactions);
    return;
  }
  pending.producer_id = producer_id;
  pending.producer_epoch = producer_epoch;
  pending.operation = operation;
  pending.partitions.insert(waiter.partitions.begin(), waiter.partitions.end());
  pending.waiters.push_back(std::move(waiter));
}

void AddPartitionsToTxnManager::Run(Sender* sender) {
  while (true) {
    Queue round;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this, sender]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !sender->queue.transactions.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      round = std::move(sender->queue);
      sender->queue = Queue{};
    }
    SendTo(*sender, std::move(round));
  }
}

client::KafkaConnection* AddPartitionsToTxnManager::ConnectionTo(Sender& sender, const BrokerEndpoint& e) {
  if (sender.connection != nullptr && sender.connection->name() == absl::StrCat(e.host, ":", e.port)) {
    return sender.connection.get();
  }
  auto connected = client::KafkaConnection::Connect(e.host, e.port, options_.request_timeout, options_.security);
  if (!connected.ok()) {
    spdlog::warn("transaction verification: cannot reach coordinator broker {} at {}:{}: {}", e.broker_id, e.host,
                 e.port, connected.status().message());
    sender.connection.reset();
    return nullptr;
  }
  sender.connection = *std::move(connected);
  return sender.connection.get();
}

void AddPartitionsToTxnManager::SendTo(Sender& sender, Queue queue) {
  ++counters_->remote_requests;
  kafka::AddPartitionsToTxnRequest request;
  for (const auto& [id, pending] : queue.transactions) {
    kafka::AddPartitionsToTxnRequest::Transaction& t = request.transactions.emplace_back();
    t.transactional_id = id;
    t.producer_id = pending.producer_id;
    t.producer_epoch = pending.producer_epoch;
    t.verify_only = pending.operation == TxnPartitionOperation::kVerify;
    for (const storage::TopicPartition& tp : pending.partitions) {
      if (t.topics.empty() || t.topics.back().name != tp.topic) t.topics.push_back({tp.topic, {}});
      t.topics.back().partitions.push_back(tp.partition);
    }
  }
  auto answer_all = [&](ErrorCode e) {
    for (auto& [id, pending] : queue.transactions) {
      for (Waiter& w : pending.waiters) Answer(w, {}, e);
    }
  };
  client::KafkaConnection* connection = ConnectionTo(sender, queue.endpoint);
  if (connection == nullptr) return answer_all(ErrorCode::kNetworkException);
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteAddPartitionsToTxnRequest(request, kBrokerVersion, w);
  auto response =
      connection->Call(static_cast<int16_t>(kafka::ApiKey::kAddPartitionsToTxn), kBrokerVersion, body);
  absl::StatusOr<kafka::AddPartitionsToTxnResponse> decoded =
      response.ok() ? [&] {
        kafka::Reader r(response->body());
        return kafka::ReadAddPartitionsToTxnResponse(r, kBrokerVersion);
      }()
                    : absl::StatusOr<kafka::AddPartitionsToTxnResponse>(response.status());
  if (!decoded.ok()) {
    spdlog::warn("transaction verification: AddPartitionsToTxn to broker {}: {}", queue.endpoint.broker_id,
                 decoded.status().message());
    sender.connection.reset();
    return answer_all(ErrorCode::kNetworkException);
  }
  if (decoded->error_code != 0) {
    auto e = static_cast<ErrorCode>(decoded->error_code);
    spdlog::warn("transaction verification: broker {} answered {}", queue.endpoint.broker_id, kafka::ErrorName(e));
    // The producer is not to see this broker's own authorization: the verification failed.
    return answer_all(e == ErrorCode::kClusterAuthorizationFailed ? ErrorCode::kInvalidTxnState : e);
  }
  for (const auto& result : decoded->results_by_transaction) {
    auto it = queue.transactions.find(result.transactional_id);
    if (it == queue.transactions.end()) continue;
    Unverified errors;
    for (const auto& topic : result.topic_results) {
      for (const auto& p : topic.results_by_partition) {
        errors[{topic.name, p.partition_index}] = static_cast<ErrorCode>(p.partition_error_code);
      }
    }
    for (Waiter& waiter : it->second.waiters) Answer(waiter, errors, ErrorCode::kNetworkException);
    queue.transactions.erase(it);
  }
  answer_all(ErrorCode::kNetworkException);  // transactions the answer left out
}

}  // namespace strata::broker
