#pragma once
// DeleteTopics (v1-v6), forwarded to the active controller (admin_forwarding.h), which
// removes each topic with one metadata record and answers once it is committed; this
// broker's image drops the topics a moment later, as with KRaft.
// Answers, per distinct topic in request order:
//  * v6, both a name and a non-zero id, or neither (null name, zero id):
//    INVALID_REQUEST, as Kafka;
//  * a name or id given more than once: one INVALID_REQUEST answer for it, nothing
//    deleted (as Kafka); a name and the id of the same topic: the second INVALID_REQUEST;
//  * from the controller: UNKNOWN_TOPIC_OR_PARTITION (unknown name), UNKNOWN_TOPIC_ID
//    (unknown id; the name in the answer is then null), TOPIC_DELETION_DISABLED
//    (delete.topic.enable=false);
//  * v6: the topic's id with each answer by name, its name with each answer by id;
//  * no answer from the controller: every topic REQUEST_TIMED_OUT / NOT_CONTROLLER.
// timeout_ms bounds the wait for the controller (ForwardDeadline). Thread-safe.

#include <functional>
#include <string>

#include "broker/handlers/request_context.h"
#include "proto/kafka/delete_topics.h"

namespace strata::broker {

// The registry's entry (api_registry.h): decodes, answers with AnswerDeleteTopics, encodes.
void HandleDeleteTopics(const ApiRequest& request, ApiResponder respond);

// authorized(topic): whether the request's principal may (null: every topic); the
// others answer TOPIC_AUTHORIZATION_FAILED and are not forwarded.
proto::kafka::DeleteTopicsResponse AnswerDeleteTopics(const KafkaApisContext& context,
                                                      const proto::kafka::DeleteTopicsRequest& request,
    const std::function<bool(const std::string& topic)>& authorized = nullptr);

}  // namespace strata::broker
