#pragma once
// UpdateFeatures (v0-v2; kafka-features.sh upgrade / downgrade / disable,
// AdminClient.updateFeatures), forwarded to the active controller (admin_forwarding.h),
// which decides every update together and answers once the levels are committed
// (controller/feature_control.h has the rules); brokers follow a moment later, and their
// ApiVersions answers carry the new levels from then on. As Kafka's:
//  * v0's allow_downgrade is a SAFE_DOWNGRADE, else an UPGRADE; v1+ the upgrade type as
//    sent (an unknown one is the controller's INVALID_UPDATE_VERSION);
//  * the answer is top-level: NONE, or the one error that refused the request (nothing
//    changed) with its message; v0-v1 also list each feature with NONE when it passed;
//  * not authorized (Alter on the cluster): CLUSTER_AUTHORIZATION_FAILED, nothing asked;
//  * no answer from the controller: REQUEST_TIMED_OUT (retriable).
// timeout_ms bounds the wait for the controller (ForwardDeadline). Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/update_features.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerUpdateFeatures, encodes.
void HandleUpdateFeatures(const ApiRequest& request, ApiResponder respond);

// authorized: whether the request's principal may (else CLUSTER_AUTHORIZATION_FAILED,
// and nothing is asked of the controller).
proto::kafka::UpdateFeaturesResponse AnswerUpdateFeatures(const KafkaApisContext& context,
                                                          const proto::kafka::UpdateFeaturesRequest& request,
                                                          int16_t version, bool authorized = true);

}  // namespace strata::broker
