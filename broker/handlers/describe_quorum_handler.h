#pragma once
// DescribeQuorum (v0-v2; kafka-metadata-quorum, AdminClient.describeMetadataQuorum),
// forwarded to the active controller (admin_forwarding.h) as Kafka's brokers forward it,
// and answered from the controllers' Raft state:
//  * the request must name exactly the metadata log (__cluster_metadata, partition 0),
//    else INVALID_REQUEST top-level, as Kafka's controller answers;
//  * leader id and epoch: the Raft leader and term; high watermark: the commit index;
//  * current voters: each voter's last index known to the leader (the leader's own: its
//    last index), its last answer to the leader (last fetch) and when it last reached the
//    leader's last index (last caught up); -1 where unknown, as Kafka reports;
//  * observers: the brokers, which follow the metadata by heartbeats and the session
//    stream rather than by fetching: what their last heartbeat said they applied, when;
//  * v2: nodes, each voter's controller listener ("CONTROLLER", from
//    controller.quorum.voters, or a dynamic quorum's endpoints from the metadata log;
//    Strata's controllers speak gRPC there, not Kafka); directory ids are zero in a static
//    quorum (Kafka's kraft.version 0), each voter's in a dynamic one (KIP-853), where a
//    voter being added is listed among the observers while it catches up;
//  * no answer from the active controller: its error (REQUEST_TIMED_OUT, NOT_CONTROLLER)
//    on the partition; a controller that does not lead: NOT_LEADER_OR_FOLLOWER. Both are
//    retriable, and the AdminClient retries them.
// Offsets are Raft indexes, as `strata quorum describe` shows them. Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/describe_quorum.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerDescribeQuorum, encodes.
void HandleDescribeQuorum(const ApiRequest& request, ApiResponder respond);

// authorized: whether the request's principal may (else CLUSTER_AUTHORIZATION_FAILED,
// and nothing is asked of the controller).
proto::kafka::DescribeQuorumResponse AnswerDescribeQuorum(const KafkaApisContext& context,
                                                          const proto::kafka::DescribeQuorumRequest& request, bool authorized = true);

}  // namespace strata::broker
