#pragma once
// OffsetForLeaderEpoch v2-v4 on the partition's leader: for each requested epoch, the
// largest epoch at or below it that the leader's log holds and where that epoch ends
// (the start of the next one, or the log end for the current epoch); (-1, -1) when the
// log knows no epoch that old. Followers truncate to it; consumers detect
// log truncation with it (KIP-320). current_leader_epoch is checked.
// Thread-safe.

#include <functional>
#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/offset_for_leader_epoch.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerOffsetForLeaderEpoch, encodes.
void HandleOffsetForLeaderEpoch(const ApiRequest& request, ApiResponder respond);

// authorized(topic): whether the request may ask of the topic (null: every topic);
// the others answer TOPIC_AUTHORIZATION_FAILED.
proto::kafka::OffsetForLeaderEpochResponse AnswerOffsetForLeaderEpoch(
    const KafkaApisContext& context, const proto::kafka::OffsetForLeaderEpochRequest& request,
    const std::function<bool(const std::string& topic)>& authorized = nullptr);

}  // namespace strata::broker
