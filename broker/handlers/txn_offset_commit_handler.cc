#include "broker/handlers/txn_offset_commit_handler.h"

#include <map>

#include "broker/group/group_coordinator.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/txn_handlers_common.h"
#include "broker/transactions/add_partitions_to_txn_manager.h"
#include "proto/kafka/txn_offset_commit.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {
constexpr int16_t kProducerFencedVersion = 2;  // KIP-588
constexpr int16_t kImplicitAddVersion = 5;     // KIP-890 part 2

// What the committer is told when the offsets partition could not join the transaction:
// the coordinator's passing errors as COORDINATOR_LOAD_IN_PROGRESS, which producers retry
// (Kafka's group coordinator answers them so); the producer's own errors as they are.
ErrorCode OffsetsAddError(ErrorCode e) {
  switch (e) {
    case ErrorCode::kConcurrentTransactions:
    case ErrorCode::kNetworkException:
    case ErrorCode::kCoordinatorLoadInProgress:
    case ErrorCode::kCoordinatorNotAvailable:
    case ErrorCode::kNotCoordinator:
      return ErrorCode::kCoordinatorLoadInProgress;
    default:
      return e;
  }
}
}  // namespace

void HandleTxnOffsetCommit(const ApiRequest& request, ApiResponder respond) {
  AnswerLater(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadTxnOffsetCommitRequest(reader, v); },
      [&request](kafka::TxnOffsetCommitRequest r, std::function<void(const kafka::TxnOffsetCommitResponse&)> reply) {
        const int16_t version = request.header.api_version;
        // The answer keeps the request's order; errors by partition.
        auto answer = [reply, r, version](const std::map<std::pair<std::string, int32_t>, ErrorCode>& errors,
                                          ErrorCode all) {
          kafka::TxnOffsetCommitResponse out;
          for (const auto& t : r.topics) {
            auto& ot = out.topics.emplace_back();
            ot.name = t.name;
            for (const auto& p : t.partitions) {
              auto it = errors.find({t.name, p.partition_index});
              ErrorCode e = it != errors.end() ? it->second : all;
              ot.partitions.push_back({p.partition_index, static_cast<int16_t>(ForVersion(e, version, kProducerFencedVersion))});
            }
          }
          reply(out);
        };
        if (ErrorCode e = CheckTransactionalRequest(request, r.transactional_id); e != ErrorCode::kNone) {
          return answer({}, e);
        }
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          return answer({}, ErrorCode::kGroupAuthorizationFailed);
        }
        if (request.broker.group_coordinator == nullptr) return answer({}, ErrorCode::kCoordinatorNotAvailable);
        std::map<std::pair<std::string, int32_t>, ErrorCode> refused;
        TxnOffsetCommitParams params;
        params.group_id = r.group_id;
        params.transactional_id = r.transactional_id;
        params.producer_id = r.producer_id;
        params.producer_epoch = r.producer_epoch;
        params.generation_id = r.generation_id;
        params.member_id = r.member_id;
        params.group_instance_id = r.group_instance_id;
        for (const auto& t : r.topics) {
          const bool authorized = AuthorizedOnTopic(request, security::AclOperation::kRead, t.name);
          for (const auto& p : t.partitions) {
            if (!authorized) {
              refused[{t.name, p.partition_index}] = ErrorCode::kTopicAuthorizationFailed;
              continue;
            }
            params.partitions.push_back(PartitionOffsetCommit{t.name, p.partition_index, p.committed_offset,
                                                              p.committed_leader_epoch, p.committed_metadata});
          }
        }
        if (params.partitions.empty()) return answer(refused, ErrorCode::kNone);
        GroupCoordinator* groups = request.broker.group_coordinator;
        auto commit = [groups, answer, refused](TxnOffsetCommitParams params) mutable {
          groups->CommitTransactionalOffsets(
              std::move(params), [answer, refused](std::vector<PartitionError> errors) mutable {
                for (const PartitionError& e : errors) refused[{e.topic, e.partition}] = e.error;
                answer(refused, ErrorCode::kNone);
              });
        };
        if (version < kImplicitAddVersion || request.broker.txn_verifier == nullptr) return commit(std::move(params));
        // v5 is KIP-890 part 2's: the producer sent no AddOffsetsToTxn, so the group's
        // partition of __consumer_offsets joins the transaction here first.
        storage::TopicPartition offsets{kOffsetsTopic, groups->PartitionFor(r.group_id)};
        const std::string transactional_id = params.transactional_id;
        const int64_t producer_id = params.producer_id;
        const int16_t producer_epoch = params.producer_epoch;
        request.broker.txn_verifier->Verify(
            transactional_id, producer_id, producer_epoch, {offsets}, TxnPartitionOperation::kAdd,
            [commit, answer, offsets, params = std::move(params)](TxnVerifier::Unverified unverified) mutable {
              auto refused = unverified.find(offsets);
              if (refused == unverified.end()) return commit(std::move(params));
              answer({}, OffsetsAddError(refused->second));
            });
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteTxnOffsetCommitResponse(response, v, writer); });
}

}  // namespace strata::broker
