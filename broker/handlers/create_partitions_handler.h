#pragma once
// CreatePartitions (v0-v3), forwarded to the active controller (admin_forwarding.h),
// which places the new partitions (or checks the given assignment) and answers once
// they are committed. Answers, per distinct topic in request order:
//  * a topic named more than once: INVALID_REQUEST for it, nothing changed (as Kafka);
//  * an assignment (non-null) is one broker list per new partition, in order: the
//    broker sends them as partitions count-n .. count-1, so a list of the wrong length
//    (including an empty one) is the controller's INVALID_REPLICA_ASSIGNMENT naming the
//    partitions expected;
//  * from the controller: UNKNOWN_TOPIC_OR_PARTITION, INVALID_PARTITIONS (the count is
//    not larger than the current one), INVALID_REPLICATION_FACTOR (not enough usable
//    brokers for the topic's replication factor), INVALID_REPLICA_ASSIGNMENT;
//  * validate_only: the same checks, nothing changed;
//  * no answer from the controller: every topic REQUEST_TIMED_OUT / NOT_CONTROLLER.
// timeout_ms bounds the wait for the controller (ForwardDeadline). Thread-safe.

#include <functional>
#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/create_partitions.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerCreatePartitions, encodes.
void HandleCreatePartitions(const ApiRequest& request, ApiResponder respond);

// authorized(topic): whether the request's principal may (null: every topic); the
// others answer TOPIC_AUTHORIZATION_FAILED and are not forwarded.
proto::kafka::CreatePartitionsResponse AnswerCreatePartitions(const KafkaApisContext& context,
                                                              const proto::kafka::CreatePartitionsRequest& request,
    const std::function<bool(const std::string& topic)>& authorized = nullptr);

}  // namespace strata::broker
