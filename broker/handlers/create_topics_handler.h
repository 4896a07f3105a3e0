#pragma once
// CreateTopics (v2-v7), forwarded to the active controller (admin_forwarding.h), which
// validates and places the topics (controller/cluster_control.h) and answers once the
// records are committed; this broker's image shows the topics a moment later (it follows
// the metadata log), so clients see them in Metadata soon after, as with KRaft.
// Answers, per distinct topic name, in request order:
//  * a name given more than once: INVALID_REQUEST for it, nothing created (as Kafka);
//  * a config with a null value, or one key twice: INVALID_CONFIG, not forwarded;
//  * num_partitions / replication_factor -1: the controller's defaults (num.partitions,
//    default.replication.factor) in every version, as Kafka's brokers do (clients send
//    -1 without an assignment only from v4, KIP-464);
//  * from the controller: TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION,
//    INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR (more replicas than usable brokers),
//    INVALID_REPLICA_ASSIGNMENT, INVALID_CONFIG, INVALID_REQUEST (counts with an
//    assignment);
//  * validate_only: the same checks, nothing created, and the v5+ description of the
//    topic as it would be;
//  * v5+ on success: partition count, replication factor and every topic config (value,
//    source TOPIC_CONFIG when set, DEFAULT_CONFIG otherwise; none read-only or
//    sensitive); v7: the topic id (all zero under validate_only: no topic got one);
//  * no answer from the controller: every topic REQUEST_TIMED_OUT / NOT_CONTROLLER.
// timeout_ms bounds the wait for the controller (ForwardDeadline). Thread-safe.

#include <functional>
#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/create_topics.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerCreateTopics, encodes.
void HandleCreateTopics(const ApiRequest& request, ApiResponder respond);

// authorized(topic): whether the request's principal may (null: every topic); the
// others answer TOPIC_AUTHORIZATION_FAILED and are not forwarded.
proto::kafka::CreateTopicsResponse AnswerCreateTopics(const KafkaApisContext& context,
                                                      const proto::kafka::CreateTopicsRequest& request,
    const std::function<bool(const std::string& topic)>& authorized = nullptr);

}  // namespace strata::broker
