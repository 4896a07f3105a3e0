#include "broker/handlers/add_partitions_to_txn_handler.h"

#include <memory>
#include <set>

#include "absl/synchronization/mutex.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/txn_handlers_common.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/add_partitions_to_txn.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

constexpr int16_t kBatchedVersion = 4;         // transactions from brokers
constexpr int16_t kProducerFencedVersion = 2;  // KIP-588

using Topics = std::vector<kafka::AddPartitionsToTxnRequest::Topic>;

// Every partition of topics answered e (or `others` for those not named in errors).
std::vector<kafka::AddPartitionsToTxnResponse::TopicResult> Results(
    const Topics& topics, ErrorCode e, const std::map<std::pair<std::string, int32_t>, ErrorCode>& errors = {},
    ErrorCode others = ErrorCode::kNone) {
  std::vector<kafka::AddPartitionsToTxnResponse::TopicResult> out;
  for (const auto& t : topics) {
    auto& r = out.emplace_back();
    r.name = t.name;
    for (int32_t p : t.partitions) {
      auto it = errors.find({t.name, p});
      ErrorCode code = errors.empty() ? e : it != errors.end() ? it->second : others;
      r.results_by_partition.push_back({p, static_cast<int16_t>(code)});
    }
  }
  return out;
}

// One transaction: the checks, then the coordinator. done(results) exactly once.
void AddOne(const ApiRequest& request, const kafka::AddPartitionsToTxnRequest::Transaction& txn, bool from_broker,
            std::function<void(std::vector<kafka::AddPartitionsToTxnResponse::TopicResult>)> done) {
  const int16_t version = request.header.api_version;
  if (!from_broker) {
    if (ErrorCode e = CheckTransactionalRequest(request, txn.transactional_id); e != ErrorCode::kNone) {
      return done(Results(txn.topics, e));
    }
  } else if (request.broker.transaction_coordinator == nullptr) {
    return done(Results(txn.topics, ErrorCode::kCoordinatorNotAvailable));
  }
  // Each topic: Write, and known here with that partition.
  std::map<std::pair<std::string, int32_t>, ErrorCode> refused;
  std::set<storage::TopicPartition> partitions;
  for (const auto& t : txn.topics) {
    const bool authorized = from_broker || AuthorizedOnTopic(request, security::AclOperation::kWrite, t.name);
    int32_t count = request.broker.store.WithImage([&](const controller::MetadataImage& image) {
      const controller::TopicState* topic = image.FindTopic(t.name);
      return topic == nullptr ? -1 : static_cast<int32_t>(topic->partitions.size());
    });
    for (int32_t p : t.partitions) {
      if (!authorized) {
        refused[{t.name, p}] = ErrorCode::kTopicAuthorizationFailed;
      } else if (p < 0 || p >= count) {
        refused[{t.name, p}] = ErrorCode::kUnknownTopicOrPartition;
      }
      partitions.insert({t.name, p});
    }
  }
  if (!refused.empty()) return done(Results(txn.topics, ErrorCode::kNone, refused, ErrorCode::kOperationNotAttempted));
  if (txn.verify_only) {
    // A partition leader asking before a batch opens a transaction: answered per partition.
    std::map<std::pair<std::string, int32_t>, ErrorCode> verified;
    for (const auto& [tp, e] : request.broker.transaction_coordinator->Verify(txn.transactional_id, txn.producer_id,
                                                                              txn.producer_epoch, partitions)) {
      verified[{tp.topic, tp.partition}] = ForVersion(e, version, kProducerFencedVersion);
    }
    return done(Results(txn.topics, ErrorCode::kNone, verified));
  }
  // A partition leader's add (v4+, not verify-only) is KIP-890 part 2's: its producer
  // runs transaction protocol version 2.
  const int16_t client_tv = from_broker ? 2 : 0;
  request.broker.transaction_coordinator->AddPartitions(
      txn.transactional_id, txn.producer_id, txn.producer_epoch, std::move(partitions), client_tv,
      [done, topics = txn.topics, version](ErrorCode e) {
        done(Results(topics, ForVersion(e, version, kProducerFencedVersion)));
      });
}

}  // namespace

void HandleAddPartitionsToTxn(const ApiRequest& request, ApiResponder respond) {
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadAddPartitionsToTxnRequest(reader, v); },
      [&request](kafka::AddPartitionsToTxnRequest r, std::function<void(const kafka::AddPartitionsToTxnResponse&)> reply) {
        const int16_t version = request.header.api_version;
        if (version < kBatchedVersion) {
          if (r.transactions.empty()) {
            kafka::AddPartitionsToTxnResponse out;
            return reply(out);
          }
          return AddOne(request, r.transactions.front(), false, [reply](auto results) {
            kafka::AddPartitionsToTxnResponse out;
            out.results_by_topic_v3_and_below = std::move(results);
            reply(out);
          });
        }
        if (!AuthorizedOnCluster(request, security::AclOperation::kClusterAction)) {
          kafka::AddPartitionsToTxnResponse out;
          out.error_code = static_cast<int16_t>(ErrorCode::kClusterAuthorizationFailed);
          return reply(out);
        }
        // Every transaction of the batch answered, then the whole.
        struct Pending {
          absl::Mutex mu;
          kafka::AddPartitionsToTxnResponse out;
          size_t left = 0;
        };
        auto pending = std::make_shared<Pending>();
        pending->out.results_by_transaction.resize(r.transactions.size());
        pending->left = r.transactions.size() + 1;
        auto one_done = [pending, reply]() {
          bool last;
          {
            absl::MutexLock lock(&pending->mu);
            last = --pending->left == 0;
          }
          if (last) reply(pending->out);
        };
        for (size_t i = 0; i < r.transactions.size(); ++i) {
          pending->out.results_by_transaction[i].transactional_id = r.transactions[i].transactional_id;
          AddOne(request, r.transactions[i], true, [pending, i, one_done](auto results) {
            {
              absl::MutexLock lock(&pending->mu);
              pending->out.results_by_transaction[i].topic_results = std::move(results);
            }
            one_done();
          });
        }
        one_done();
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteAddPartitionsToTxnResponse(response, v, writer); });
}

}  // namespace strata::broker
