#include "broker/handlers/transaction_admin_handlers.h"

#include <map>
#include <set>

#include "broker/common/kafka_error.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/partition_lookup.h"
#include "broker/replication/partition.h"
#include "broker/transactions/transaction_coordinator.h"
#include "proto/kafka/describe_producers.h"
#include "proto/kafka/describe_transactions.h"
#include "proto/kafka/list_transactions.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

kafka::DescribeProducersResponse::Partition DescribePartition(const ApiRequest& request, const std::string& topic,
                                                              int32_t index, bool authorized) {
  kafka::DescribeProducersResponse::Partition out;
  out.partition_index = index;
  auto fail = [&](const absl::Status& status) {
    out.error_code = KafkaErrorOf(status);
    out.error_message = std::string(status.message());
    return out;
  };
  if (!authorized) {
    out.error_code = static_cast<int16_t>(ErrorCode::kTopicAuthorizationFailed);
    return out;
  }
  auto partition = LookupPartition(request.broker, topic, index);
  if (!partition.ok()) return fail(partition.status());
  if (!(*partition)->is_leader()) {
    return fail(KafkaError(ErrorCode::kNotLeaderOrFollower, absl::StrCat("this broker does not lead ", topic, "-", index)));
  }
  for (const auto& [id, entry] : (*partition)->log()->ProducerStates()) {
    auto& p = out.active_producers.emplace_back();
    p.producer_id = id;
    p.producer_epoch = entry.producer_epoch;
    p.last_sequence = entry.batches.empty() ? -1 : entry.batches.back().last_sequence;
    p.last_timestamp = entry.last_timestamp;
    p.coordinator_epoch = entry.coordinator_epoch;
    p.current_txn_start_offset = entry.current_txn_first_offset;
  }
  return out;
}

}  // namespace

void HandleDescribeProducers(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadDescribeProducersRequest(reader, v); },
      [&request](const kafka::DescribeProducersRequest& r) {
        kafka::DescribeProducersResponse out;
        for (const auto& t : r.topics) {
          auto& ot = out.topics.emplace_back();
          ot.name = t.name;
          const bool authorized = AuthorizedOnTopic(request, security::AclOperation::kRead, t.name);
          for (int32_t p : t.partition_indexes) ot.partitions.push_back(DescribePartition(request, t.name, p, authorized));
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDescribeProducersResponse(response, v, writer); });
}

void HandleDescribeTransactions(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadDescribeTransactionsRequest(reader, v); },
      [&request](const kafka::DescribeTransactionsRequest& r) {
        kafka::DescribeTransactionsResponse out;
        std::vector<std::string> allowed;
        for (const std::string& id : r.transactional_ids) {
          if (AuthorizedOnTransactionalId(request, security::AclOperation::kDescribe, id)) allowed.push_back(id);
        }
        std::map<std::string, TransactionDescription> described;
        if (request.broker.transaction_coordinator != nullptr) {
          for (TransactionDescription& d : request.broker.transaction_coordinator->Describe(allowed)) {
            described[d.transactional_id] = std::move(d);
          }
        }
        for (const std::string& id : r.transactional_ids) {
          auto& s = out.transaction_states.emplace_back();
          s.transactional_id = id;
          s.producer_id = -1;
          s.producer_epoch = -1;
          s.transaction_start_time_ms = -1;
          auto it = described.find(id);
          if (it == described.end()) {
            s.error_code = static_cast<int16_t>(request.broker.transaction_coordinator == nullptr
                                                    ? ErrorCode::kCoordinatorNotAvailable
                                                    : ErrorCode::kTransactionalIdAuthorizationFailed);
            continue;
          }
          const TransactionDescription& d = it->second;
          s.error_code = static_cast<int16_t>(d.error);
          if (d.error != ErrorCode::kNone) continue;
          s.transaction_state = std::string(TransactionStateName(d.state));
          s.transaction_timeout_ms = d.timeout_ms;
          s.transaction_start_time_ms = d.start_ms;
          s.producer_id = d.producer_id;
          s.producer_epoch = d.producer_epoch;
          std::map<std::string, std::vector<int32_t>> by_topic;
          for (const auto& tp : d.partitions) by_topic[tp.topic].push_back(tp.partition);
          for (auto& [topic, partitions] : by_topic) s.topics.push_back({topic, std::move(partitions)});
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteDescribeTransactionsResponse(response, v, writer); });
}

void HandleListTransactions(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadListTransactionsRequest(reader, v); },
      [&request](const kafka::ListTransactionsRequest& r) {
        kafka::ListTransactionsResponse out;
        if (request.broker.transaction_coordinator == nullptr) {
          out.error_code = static_cast<int16_t>(ErrorCode::kCoordinatorNotAvailable);
          return out;
        }
        std::set<TransactionState> states;
        for (const std::string& name : r.state_filters) {
          TransactionState s;
          if (ParseTransactionState(name, &s)) {
            states.insert(s);
          } else {
            out.unknown_state_filters.push_back(name);
          }
        }
        if (!r.state_filters.empty() && states.empty()) return out;  // only unknown states: none match
        std::set<int64_t> producers(r.producer_id_filters.begin(), r.producer_id_filters.end());
        auto [error, listed] = request.broker.transaction_coordinator->List(states, producers, r.duration_filter);
        out.error_code = static_cast<int16_t>(error);
        for (const TransactionDescription& d : listed) {
          if (!AuthorizedOnTransactionalId(request, security::AclOperation::kDescribe, d.transactional_id)) continue;
          out.transaction_states.push_back({d.transactional_id, d.producer_id, std::string(TransactionStateName(d.state))});
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteListTransactionsResponse(response, v, writer); });
}

}  // namespace strata::broker
