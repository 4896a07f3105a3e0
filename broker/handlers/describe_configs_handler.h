#pragma once
// DescribeConfigs (v1-v4). What each resource answers:
//  * TOPIC: every topic config Strata knows (controller/topic_config.h), from the
//    active controller (admin_forwarding.h, so a topic just created or altered is seen
//    at once): the value set (source TOPIC_CONFIG), else the broker-level setting it
//    defaults to as this broker applies it (its dynamic config, DYNAMIC_BROKER_CONFIG;
//    the cluster-wide one, DYNAMIC_DEFAULT_BROKER_CONFIG; strata-server's own,
//    STATIC_BROKER_CONFIG), else Kafka's default (DEFAULT_CONFIG);
//    UNKNOWN_TOPIC_OR_PARTITION for a missing topic, INVALID_TOPIC_EXCEPTION for a
//    malformed name (not forwarded).
//  * BROKER named with this broker's id: its settings as strata-server resolved them
//    (KafkaApisContext::static_configs, STATIC_BROKER_CONFIG, read-only), overridden by
//    the dynamic cluster default (AlterConfigs on broker "", DYNAMIC_DEFAULT_BROKER_CONFIG)
//    and the dynamic setting for this broker (DYNAMIC_BROKER_CONFIG), both from the
//    controller. BROKER "": the dynamic cluster defaults only. Another broker's id:
//    INVALID_REQUEST (clients send those to that broker, as Kafka requires); a name that
//    is not an id: INVALID_REQUEST.
//  * BROKER_LOGGER and other types: INVALID_REQUEST (not supported).
//  * configuration_keys (non-null) keeps only those names; unknown names are left out.
//  * include_synonyms: each config's sources, highest precedence first (a topic
//    config's broker-level ones by their broker-level names, log.retention.ms...).
//  * v3+: config_type from the topic settings' table (a topic) or
//    KafkaApisContext::broker_config_docs (a broker; UNKNOWN for a name neither knows),
//    and with include_documentation each config's doc from the same. No config is
//    sensitive.
//  * no answer from the controller: every resource that needs it REQUEST_TIMED_OUT /
//    NOT_CONTROLLER (a broker's static settings alone would hide a dynamic override).
// The wait for the controller is bounded by kMaxForwardDeadline (the request has no
// timeout of its own). Thread-safe.

#include <functional>
#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/describe_configs.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerDescribeConfigs, encodes.
void HandleDescribeConfigs(const ApiRequest& request, ApiResponder respond);

// authorized(resource type, name): whether the request's principal may describe the
// resource's configs (null: every resource); the others answer TOPIC_ or
// CLUSTER_AUTHORIZATION_FAILED and are not forwarded.
proto::kafka::DescribeConfigsResponse AnswerDescribeConfigs(const KafkaApisContext& context,
                                                            const proto::kafka::DescribeConfigsRequest& request,
    const std::function<bool(int8_t resource_type, const std::string& name)>& authorized = nullptr);

}  // namespace strata::broker
