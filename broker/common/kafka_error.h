#pragma once
// Errors at the Kafka edge: a status that carries the Kafka error code a client should
// see. Broker code returns KafkaError(code, message) for protocol-level refusals
// (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, ...); storage errors carry an Errc that
// KafkaErrorCodeOf maps (CORRUPT_MESSAGE, OFFSET_OUT_OF_RANGE, KAFKA_STORAGE_ERROR, ...).
// Thread-safe (stateless).

#include <cstdint>

#include "absl/status/status.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

absl::Status KafkaError(proto::kafka::ErrorCode code, absl::string_view message);

// The code for status: its Kafka payload, else its storage Errc mapped, else
// UNKNOWN_SERVER_ERROR (NONE for OK).
proto::kafka::ErrorCode KafkaErrorCodeOf(const absl::Status& status);
inline int16_t KafkaErrorOf(const absl::Status& status) { return static_cast<int16_t>(KafkaErrorCodeOf(status)); }

}  // namespace strata::broker
