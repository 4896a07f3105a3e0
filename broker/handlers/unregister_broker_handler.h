#pragma once
// UnregisterBroker (v0; kafka-cluster.sh unregister, AdminClient.unregisterBroker),
// forwarded to the active controller (admin_forwarding.h), which removes the broker's
// registration once its replicas left the ISRs (controller/cluster_control.h,
// PlanUnregisterBroker) and answers when that is committed. As Kafka's: any registered
// broker, fenced or not; BROKER_ID_NOT_REGISTERED for an unknown id; not authorized
// (Alter on the cluster): CLUSTER_AUTHORIZATION_FAILED, nothing asked; no answer from the
// controller: REQUEST_TIMED_OUT (retriable). Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/unregister_broker.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerUnregisterBroker, encodes.
void HandleUnregisterBroker(const ApiRequest& request, ApiResponder respond);

// authorized: whether the request's principal may (else CLUSTER_AUTHORIZATION_FAILED,
// and nothing is asked of the controller).
proto::kafka::UnregisterBrokerResponse AnswerUnregisterBroker(const KafkaApisContext& context,
                                                              const proto::kafka::UnregisterBrokerRequest& request,
                                                              bool authorized = true);

}  // namespace strata::broker
