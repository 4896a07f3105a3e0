#pragma once
// AlterPartitionReassignments (v0-v1) and ListPartitionReassignments (v0)
// (kafka-reassign-partitions.sh, AdminClient.alterPartitionReassignments and
// listPartitionReassignments), forwarded to the active controller (admin_forwarding.h),
// which decides (controller/reassignment.h) and answers once the change is committed.
//  * Alter needs Alter on the cluster, List needs Describe on the cluster: else
//    CLUSTER_AUTHORIZATION_FAILED at the top (and on every partition of an Alter).
//  * Alter answers per topic per partition in request order: the controller's outcome
//    (UNKNOWN_TOPIC_OR_PARTITION, INVALID_REPLICA_ASSIGNMENT, INVALID_REPLICATION_FACTOR,
//    NO_REASSIGNMENT_IN_PROGRESS; INVALID_REQUEST for a partition named twice). v1's
//    allow_replication_factor_change is echoed.
//  * List answers the partitions being reassigned among those named (null: all), with
//    their replicas, adding and removing replicas; unknown topics and partitions and
//    those not being reassigned are left out, as Kafka does.
//  * No answer from the controller: REQUEST_TIMED_OUT / NOT_CONTROLLER at the top and on
//    every partition (timeout_ms bounds the wait, ForwardDeadline).
// Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/partition_reassignments.h"

namespace strata::broker {

void HandleAlterPartitionReassignments(const ApiRequest& request, ApiResponder respond);
void HandleListPartitionReassignments(const ApiRequest& request, ApiResponder respond);

// The answers, given whether the principal may (the handlers' after the authorization).
proto::kafka::AlterPartitionReassignmentsResponse AnswerAlterPartitionReassignments(
    const KafkaApisContext& context, const proto::kafka::AlterPartitionReassignmentsRequest& request,
    bool authorized);
proto::kafka::ListPartitionReassignmentsResponse AnswerListPartitionReassignments(
    const KafkaApisContext& context, const proto::kafka::ListPartitionReassignmentsRequest& request,
    bool authorized);

}  // namespace strata::broker
