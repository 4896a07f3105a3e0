#pragma once
// Metadata: what a client needs to route requests, from the broker's metadata image.
// Brokers: the unfenced ones, with the endpoint of the listener the request came in on.
// Topics: those asked for (by name, or by id from v10), or all; an unknown one gets
// UNKNOWN_TOPIC_OR_PARTITION (or UNKNOWN_TOPIC_ID), a bad name INVALID_TOPIC_EXCEPTION;
// topics are never created automatically (auto.create.topics.enable is off). Partitions:
// leader, leader epoch, replicas, ISR and offline replicas (fenced broker or offline log
// dir); a partition without a leader answers LEADER_NOT_AVAILABLE. The controller id is
// this broker's (clients send admin requests to brokers, which forward them, as in
// KRaft). Thread-safe.

#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/metadata.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerMetadata, encodes.
void HandleMetadata(const ApiRequest& request, ApiResponder respond);

proto::kafka::MetadataResponse AnswerMetadata(const KafkaApisContext& context,
                                              const proto::kafka::MetadataRequest& request);

}  // namespace strata::broker
