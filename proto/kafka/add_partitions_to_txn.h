#pragma once
// AddPartitionsToTxn (key 24) v0-v5: partitions join a producer's transaction before it
// writes to them. Request: v0-v3 one transaction (transactional id, producer id and
// epoch, topics with their partition indexes), sent by producers; v4+ a batch of
// transactions, each with verify_only (check that the partitions are already in the
// transaction instead of adding them; KIP-890), sent by brokers. Both shapes live in one
// struct: `transactions` holds exactly one transaction below v4 (verify_only not on the
// wire, read as false). Response: throttle time; v0-v3 per topic per partition an error
// code; v4+ a top-level error code and the same results per transaction instead. v1 is
// v0; v2 only adds PRODUCER_FENCED; flexible from v3; v5 only adds TRANSACTION_ABORTABLE.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct AddPartitionsToTxnRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Transaction {
    std::string transactional_id;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool verify_only = false;  // v4+
    std::vector<Topic> topics;
    bool operator==(const Transaction&) const = default;
  };
  // v0-v3: exactly one (the schema's V3AndBelow* fields); a writer writes the first, or an
  // empty transaction when there is none. v4+: any number.
  std::vector<Transaction> transactions;
  bool operator==(const AddPartitionsToTxnRequest&) const = default;
};

struct AddPartitionsToTxnResponse {
  struct PartitionResult {
    int32_t partition_index = 0;
    int16_t partition_error_code = 0;
    bool operator==(const PartitionResult&) const = default;
  };
  struct TopicResult {
    std::string name;
    std::vector<PartitionResult> results_by_partition;
    bool operator==(const TopicResult&) const = default;
  };
  struct TransactionResult {
    std::string transactional_id;
    std::vector<TopicResult> topic_results;
    bool operator==(const TransactionResult&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;                                  // v4+
  std::vector<TransactionResult> results_by_transaction;   // v4+
  std::vector<TopicResult> results_by_topic_v3_and_below;  // v0-v3
  bool operator==(const AddPartitionsToTxnResponse&) const = default;
};

absl::StatusOr<AddPartitionsToTxnRequest> ReadAddPartitionsToTxnRequest(Reader& reader, int16_t version);
void WriteAddPartitionsToTxnRequest(const AddPartitionsToTxnRequest& request, int16_t version, Writer& writer);
void WriteAddPartitionsToTxnResponse(const AddPartitionsToTxnResponse& response, int16_t version, Writer& writer);
absl::StatusOr<AddPartitionsToTxnResponse> ReadAddPartitionsToTxnResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
