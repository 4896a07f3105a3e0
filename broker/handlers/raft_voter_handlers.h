#pragma once
// KIP-853's voter changes on the Kafka wire: AddRaftVoter (v0-v1), RemoveRaftVoter (v0)
// and UpdateRaftVoter (v0) (kafka-metadata-quorum add-controller | remove-controller
// --bootstrap-server, AdminClient.addRaftVoter / removeRaftVoter), forwarded to the
// active controller (admin_forwarding.h), as Kafka's brokers forward the first two;
// UpdateRaftVoter is served here too, though Kafka's brokers do not list it. The
// controller answers once the change is done (controller/quorum_controller.h):
//  * authorization as Kafka's controller checks it: Alter on the cluster for add and
//    remove, ClusterAction for update; refused: CLUSTER_AUTHORIZATION_FAILED, nothing asked;
//  * a cluster id that is not this cluster's: INCONSISTENT_CLUSTER_ID;
//  * the core's refusals under Kafka's codes: UNSUPPORTED_VERSION for a static quorum,
//    DUPLICATE_VOTER, VOTER_NOT_FOUND, INVALID_VOTER_KEY, INVALID_REQUEST (the last voter,
//    a change that would lose the quorum), REQUEST_TIMED_OUT (a change in progress, a
//    voter still catching up; retriable);
//  * no answer from the active controller within the deadline: REQUEST_TIMED_OUT.
// AddRaftVoter waits up to its TimeoutMs (1 s..30 s), the others 30 s; the controller is
// given half a second less, so that its answer arrives first. Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/raft_voters.h"

namespace strata::broker {

// The registry's entries (api_registry.h): decode, answer, encode.
void HandleAddRaftVoter(const ApiRequest& request, ApiResponder respond);
void HandleRemoveRaftVoter(const ApiRequest& request, ApiResponder respond);
void HandleUpdateRaftVoter(const ApiRequest& request, ApiResponder respond);

// authorized: whether the request's principal may (else CLUSTER_AUTHORIZATION_FAILED,
// and nothing is asked of the controller).
proto::kafka::RaftVoterResponse AnswerAddRaftVoter(const KafkaApisContext& context,
                                                   const proto::kafka::AddRaftVoterRequest& request,
                                                   bool authorized = true);
proto::kafka::RaftVoterResponse AnswerRemoveRaftVoter(const KafkaApisContext& context,
                                                      const proto::kafka::RemoveRaftVoterRequest& request,
                                                      bool authorized = true);
proto::kafka::UpdateRaftVoterResponse AnswerUpdateRaftVoter(const KafkaApisContext& context,
                                                            const proto::kafka::UpdateRaftVoterRequest& request,
                                                            bool authorized = true);

}  // namespace strata::broker
