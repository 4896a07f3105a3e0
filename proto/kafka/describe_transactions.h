#pragma once
// DescribeTransactions (key 65) v0: a transaction coordinator describes transactional
// ids it owns (KIP-664). Request: the transactional ids (empty: none described).
// Response: throttle time, and per transactional id an error code, the transaction's
// state (Kafka's names: "Empty", "Ongoing", "PrepareCommit", ...), timeout, start time
// (-1 when no transaction is open), producer id and epoch, and the topics with the
// partitions in the transaction (those still without a marker once it prepares to end).
// Flexible in every version.
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DescribeTransactionsRequest {
  std::vector<std::string> transactional_ids;
  bool operator==(const DescribeTransactionsRequest&) const = default;
};

struct DescribeTransactionsResponse {
  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct TransactionState {
    int16_t error_code = 0;
    std::string transactional_id;
    std::string transaction_state;
    int32_t transaction_timeout_ms = 0;
    int64_t transaction_start_time_ms = 0;
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    std::vector<Topic> topics;
    bool operator==(const TransactionState&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<TransactionState> transaction_states;
  bool operator==(const DescribeTransactionsResponse&) const = default;
};

absl::StatusOr<DescribeTransactionsRequest> ReadDescribeTransactionsRequest(Reader& reader, int16_t version);
void WriteDescribeTransactionsRequest(const DescribeTransactionsRequest& request, int16_t version, Writer& writer);
void WriteDescribeTransactionsResponse(const DescribeTransactionsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeTransactionsResponse> ReadDescribeTransactionsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
