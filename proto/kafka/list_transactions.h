#pragma once
// ListTransactions (key 66) v0-v2: a transaction coordinator lists the transactional ids
// it owns (KIP-664). Request: state filters (Kafka's state names; empty: any state),
// producer id filters (empty: any producer), from v1 a duration filter (KIP-994: only
// transactions open longer than this many ms; -1: any), from v2 a transactional id
// pattern (KIP-1152, Kafka 4.1: a regular expression, RE2 syntax, the ids must match;
// null or empty: any). Response: throttle time, error code, the state filters the coordinator
// does not know, and per transaction its transactional id, producer id and state. The
// responses of v1 and v2 are v0's. Flexible in every version.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct ListTransactionsRequest {
  std::vector<std::string> state_filters;
  std::vector<int64_t> producer_id_filters;
  int64_t duration_filter = -1;                         // v1+
  std::optional<std::string> transactional_id_pattern;  // v2+
  bool operator==(const ListTransactionsRequest&) const = default;
};

struct ListTransactionsResponse {
  struct TransactionState {
    std::string transactional_id;
    int64_t producer_id = 0;
    std::string transaction_state;
    bool operator==(const TransactionState&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::vector<std::string> unknown_state_filters;
  std::vector<TransactionState> transaction_states;
  bool operator==(const ListTransactionsResponse&) const = default;
};

absl::StatusOr<ListTransactionsRequest> ReadListTransactionsRequest(Reader& reader, int16_t version);
void WriteListTransactionsRequest(const ListTransactionsRequest& request, int16_t version, Writer& writer);
void WriteListTransactionsResponse(const ListTransactionsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<ListTransactionsResponse> ReadListTransactionsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
