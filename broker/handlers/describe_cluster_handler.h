#pragma once
// DescribeCluster (v0-v1), answered from this broker's metadata image with the same
// brokers, cluster id and controller id as Metadata (metadata_handler.h): the unfenced
// brokers with the endpoint of the request's listener, and this broker's own id as the
// controller (clients send admin requests to brokers, which forward them, as in KRaft).
// EndpointType (v1): 1 (brokers) is answered; 2 (controllers) MISMATCHED_ENDPOINT_TYPE
// (this is a broker listener; Strata's controllers serve gRPC only); any other value
// UNSUPPORTED_ENDPOINT_TYPE. Cluster authorized operations are not computed (no ACLs):
// INT32_MIN, as Metadata answers. Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/describe_cluster.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerDescribeCluster, encodes.
void HandleDescribeCluster(const ApiRequest& request, ApiResponder respond);

// authorized: whether the request's principal may (else CLUSTER_AUTHORIZATION_FAILED,
// and nothing is asked of the controller).
proto::kafka::DescribeClusterResponse AnswerDescribeCluster(const KafkaApisContext& context,
                                                            const proto::kafka::DescribeClusterRequest& request, bool authorized = true);

}  // namespace strata::broker
