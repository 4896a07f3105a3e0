#pragma once
// AlterConfigs (v0-v2) and IncrementalAlterConfigs (v0-v1), forwarded to the active
// controller's AdminService.AlterConfigs (admin_forwarding.h), as KRaft brokers forward
// them:
//  * TOPIC resources need AlterConfigs on the topic (TOPIC_AUTHORIZATION_FAILED), BROKER
//    resources on the cluster (CLUSTER_AUTHORIZATION_FAILED). A BROKER is named by a
//    broker id, or "" for the cluster-wide default; another name, or another resource
//    type, is INVALID_REQUEST. A resource named twice: INVALID_REQUEST for each.
//  * IncrementalAlterConfigs: SET (a value is required: INVALID_REQUEST without),
//    DELETE, and APPEND / SUBTRACT on list-valued topic configs (cleanup.policy), applied
//    by the controller to the current value or the default. AlterConfigs replaces the
//    resource's dynamic configs with those named (a null value is none).
//  * The controller checks what it writes: INVALID_CONFIG naming the setting for a value
//    out of range or an unknown topic config, UNKNOWN_TOPIC_OR_PARTITION, INVALID_REQUEST
//    for a config named twice; each resource is applied whole or not at all, and
//    validate_only writes nothing.
//  * No answer from the controller: REQUEST_TIMED_OUT / NOT_CONTROLLER for every
//    resource forwarded (bounded by kMaxForwardDeadline).
//  * A listener's TLS files (listener.name.<l>.ssl.keystore.location,
//    .ssl.truststore.location) are a broker's own only: INVALID_REQUEST on the cluster
//    default (Kafka's), and loaded here first when this is that broker (INVALID_CONFIG
//    naming the key when they do not load).
// Broker configs are stored and shown by DescribeConfigs; the log defaults,
// min.insync.replicas, the replication throttle rates, the log cleaner's settings and the
// listeners' TLS files take effect on the running brokers (controller/broker_config.h,
// server/broker_role.h). Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/alter_configs.h"

namespace strata::broker {

void HandleAlterConfigs(const ApiRequest& request, ApiResponder respond);
void HandleIncrementalAlterConfigs(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
