#pragma once
// ElectLeaders (v0-v2; kafka-leader-election.sh, AdminClient.electLeaders), forwarded to
// the active controller (admin_forwarding.h), which elects and answers once the new
// leaders are committed; brokers follow a moment later, as with KRaft.
// election_type 0 elects each partition's preferred replica (its first), 1 (v1+) an
// unclean leader of a partition without a live one. Answers:
//  * named partitions: one result per distinct (topic, partition), grouped by topic in
//    request order — NONE (elected), ELECTION_NOT_NEEDED (the preferred replica leads;
//    unclean: a live leader), PREFERRED_LEADER_NOT_AVAILABLE (it is down or out of
//    sync), ELIGIBLE_LEADERS_NOT_AVAILABLE (unclean: no replica is up),
//    UNKNOWN_TOPIC_OR_PARTITION; a topic named with no partitions has no results;
//  * null topic partitions: every partition of every topic, answering only those an
//    election concerned (ELECTION_NOT_NEEDED left out, as Kafka: for PREFERRED, the
//    partitions whose preferred replica does not lead);
//  * an unknown election type: INVALID_REQUEST, top-level (v1+) and for every named
//    partition, nothing forwarded;
//  * no answer from the controller: REQUEST_TIMED_OUT / NOT_CONTROLLER the same way.
// timeout_ms bounds the wait for the controller (ForwardDeadline). Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/elect_leaders.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerElectLeaders, encodes.
void HandleElectLeaders(const ApiRequest& request, ApiResponder respond);

// authorized: whether the request's principal may (else CLUSTER_AUTHORIZATION_FAILED,
// and nothing is asked of the controller).
proto::kafka::ElectLeadersResponse AnswerElectLeaders(const KafkaApisContext& context,
                                                      const proto::kafka::ElectLeadersRequest& request, bool authorized = true);

}  // namespace strata::broker
