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

#include <functional>
#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/metadata.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerMetadata, encodes.
void HandleMetadata(const ApiRequest& request, ApiResponder respond);

// What the request's principal may do, for Metadata's answer (as Kafka's): a topic it
// may not Describe is left out of an all-topics answer and answers
// TOPIC_AUTHORIZATION_FAILED when named (even one that does not exist); a missing topic
// is auto-created only with Create on it or on the cluster, else TOPIC_AUTHORIZATION_FAILED.
struct MetadataAccess {
  std::function<bool(const std::string& topic)> describe;
  std::function<bool(const std::string& topic)> create;
};

// access: null members allow everything.
proto::kafka::MetadataResponse AnswerMetadata(const KafkaApisContext& context,
                                              const proto::kafka::MetadataRequest& request,
                                              const MetadataAccess& access = {});

}  // namespace strata::broker
