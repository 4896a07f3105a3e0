#pragma once
// Produce v3-v12 (v0-v2 are advertised and answered UNSUPPORTED_VERSION for every
// partition, as Kafka 4.0: newer librdkafka needs v0 advertised to compress): appends each partition's batches on the leader. A partition's batches
// are validated whole (framing, CRC, record decoding, max.message.bytes, idempotent
// sequences) and either all appended or none, with the error its client should see:
// CORRUPT_MESSAGE, INVALID_RECORD, MESSAGE_TOO_LARGE, OUT_OF_ORDER_SEQUENCE_NUMBER,
// INVALID_PRODUCER_EPOCH, NOT_LEADER_OR_FOLLOWER, UNKNOWN_TOPIC_OR_PARTITION,
// KAFKA_STORAGE_ERROR. A retried idempotent batch is answered with its original offset.
// acks=0: no response (an error closes the connection, so the producer notices);
// acks=1: answered after the leader's append; acks=-1: refused with
// NOT_ENOUGH_REPLICAS when the ISR is smaller than min.insync.replicas, else answered
// once the high watermark passes the appended records (the purgatory), or
// REQUEST_TIMED_OUT after timeout_ms. A transactional produce needs Write on its
// transactional id (else TRANSACTIONAL_ID_AUTHORIZATION_FAILED for every partition); its
// transactional batches open the producer's transaction in each partition, and
// INVALID_TXN_STATE refuses a batch that cannot join the open one (storage/producer_state.h).
// A batch that would open the transaction waits for the coordinator (KIP-890, through
// KafkaApisContext::txn_verifier): verified to be in it (part 1) or, from Produce v12,
// added to it (part 2).
// Thread-safe.

#include "absl/strings/string_view.h"
#include "broker/handlers/request_context.h"

namespace strata::broker {

// The registry's entry (api_registry.h); acks=all waits in the produce purgatory.
void HandleProduce(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
