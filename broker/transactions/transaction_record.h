#pragma once
// The records of `__transaction_state` (compacted), in Kafka's layout so that Kafka's
// tools decode them: one record per transactional id, the latest state winning.
//   key:   int16 version (0) | string transactional id
//   value: int16 version (0; 1 is read too) | int64 producer id | int16 producer epoch |
//          int32 transaction timeout ms | int8 state | nullable array of (string topic,
//          array of int32 partition) | int64 last update ms | int64 start ms
//          (version 1: flexible encoding with the tagged fields PreviousProducerId (0),
//          NextProducerId (1) and ClientTransactionVersion (2); written when one is set)
// A null value (tombstone) removes a transactional id that expired.
// The states and their numbers are Kafka's (TransactionState).
// Thread-safe (values and stateless functions).

#include <cstdint>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/file_names.h"

namespace strata::broker {

inline constexpr char kTransactionStateTopic[] = "__transaction_state";

enum class TransactionState : int8_t {
  kEmpty = 0,
  kOngoing = 1,
  kPrepareCommit = 2,
  kPrepareAbort = 3,
  kCompleteCommit = 4,
  kCompleteAbort = 5,
  kDead = 6,
  kPrepareEpochFence = 7,
};

// Kafka's names ("Empty", "Ongoing", "PrepareCommit", ...), as DescribeTransactions and
// ListTransactions answer them.
absl::string_view TransactionStateName(TransactionState state);
// The state named (ListTransactions' state filters); false for an unknown name.
bool ParseTransactionState(absl::string_view name, TransactionState* state);

struct TransactionLogValue {
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t timeout_ms = 0;
  TransactionState state = TransactionState::kEmpty;
  std::set<storage::TopicPartition> partitions;
  int64_t last_update_ms = -1;
  int64_t start_ms = -1;
  int64_t prev_producer_id = -1;          // v1: the id before a new one replaced it
  int64_t next_producer_id = -1;          // v1: the id a TV2 commit/abort moves to (epoch exhausted)
  int16_t client_transaction_version = 0; // v1: the transaction protocol the client runs (2: KIP-890 part 2)
  bool operator==(const TransactionLogValue&) const = default;
};

std::string EncodeTransactionLogKey(absl::string_view transactional_id);
std::string EncodeTransactionLogValue(const TransactionLogValue& value);
// INVALID_ARGUMENT (naming the field) for a record this broker cannot read: the
// partition does not load rather than serve a state it misread.
absl::StatusOr<std::string> DecodeTransactionLogKey(absl::string_view bytes);
absl::StatusOr<TransactionLogValue> DecodeTransactionLogValue(absl::string_view bytes);

// The partition of __transaction_state that holds transactional_id: Kafka's choice (as
// for groups, group_record.h).
int32_t TransactionStatePartitionFor(absl::string_view transactional_id, int32_t partitions);

}  // namespace strata::broker
