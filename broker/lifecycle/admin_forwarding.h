#pragma once
// Forwarding a Kafka admin request to the active controller's AdminService (KRaft
// brokers do the same): the deadline a request's timeout_ms gives, and what every item
// of the request answers when no usable answer comes back.
//  * no active controller answered before the deadline: REQUEST_TIMED_OUT;
//  * the controller refused the whole request: its error (e.g. NOT_CONTROLLER while it
//    catches up after an election).
// All of these are retriable: clients retry, as they do while a Kafka controller fails
// over. A request that is one decision (ForwardForOutcome) answers the controller's
// error as it is. The call blocks the calling handler thread until the answer or the
// deadline.
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "broker/lifecycle/controller_client.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

inline constexpr std::chrono::milliseconds kMinForwardDeadline{1000};
inline constexpr std::chrono::milliseconds kMaxForwardDeadline{30000};

// timeout_ms bounded to [1 s, 30 s]: 0 (librdkafka's default operation timeout) still
// leaves the controller time to answer, and no handler thread waits longer than 30 s.
std::chrono::milliseconds ForwardDeadline(int32_t timeout_ms);

struct ForwardFailure {
  proto::kafka::ErrorCode code = proto::kafka::ErrorCode::kUnknownServerError;
  std::string message;
};

// Calls `method` on the active controller; nullopt when it answered with per-item
// results (in *response), else why not.
template <typename Request, typename Response>
std::optional<ForwardFailure> ForwardToController(
    ControllerChannel& controller,
    grpc::Status (admin::v1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
    const Request& request, Response* response, std::chrono::milliseconds deadline) {
  using proto::kafka::ErrorCode;
  absl::Status status = controller.CallAdmin(method, request, response, deadline);
  if (!status.ok()) return ForwardFailure{ErrorCode::kRequestTimedOut, std::string(status.message())};
  if (response->error_code() != 0) {
    return ForwardFailure{static_cast<ErrorCode>(response->error_code()),
                          absl::StrCat("the controller refused the request: ", response->error_message())};
  }
  return std::nullopt;
}

// What the controller answered a request that is one decision (UpdateFeatures,
// UnregisterBroker): its error code and message as it gave them (NONE: done), or
// REQUEST_TIMED_OUT when no active controller answered before the deadline.
struct ForwardOutcome {
  proto::kafka::ErrorCode code = proto::kafka::ErrorCode::kNone;
  std::optional<std::string> message;
};
template <typename Request, typename Response>
ForwardOutcome ForwardForOutcome(
    ControllerChannel& controller,
    grpc::Status (admin::v1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
    const Request& request, std::chrono::milliseconds deadline) {
  Response response;
  absl::Status status = controller.CallAdmin(method, request, &response, deadline);
  if (!status.ok()) return {proto::kafka::ErrorCode::kRequestTimedOut, std::string(status.message())};
  ForwardOutcome out{static_cast<proto::kafka::ErrorCode>(response.error_code()), std::nullopt};
  if (!response.error_message().empty()) out.message = response.error_message();
  return out;
}

// UNKNOWN_SERVER_ERROR when the controller answered `answered` items for `forwarded`.
std::optional<ForwardFailure> CountMismatch(int answered, size_t forwarded);

// A Kafka error message from a controller's: null when there is none.
inline std::optional<std::string> ErrorMessage(const std::string& message) {
  if (message.empty()) return std::nullopt;
  return message;
}

// Forwards a request whose items are topics and maps the answer back: item i of the
// forwarded request answers outs[forwarded[i]] — the failure for every item when there
// is no usable answer, else the controller's error for that topic, and on_result(out,
// result) for the rest of what the API carries.
template <typename Request, typename Response, typename Out, typename OnResult>
void ForwardTopics(ControllerChannel& controller,
                   grpc::Status (admin::v1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                                         Response*),
                   const Request& request, std::chrono::milliseconds deadline, const std::vector<size_t>& forwarded,
                   std::vector<Out>& outs, OnResult on_result) {
  if (forwarded.empty()) return;
  Response answer;
  std::optional<ForwardFailure> failure = ForwardToController(controller, method, request, &answer, deadline);
  if (!failure) failure = CountMismatch(answer.topics_size(), forwarded.size());
  for (size_t i = 0; i < forwarded.size(); ++i) {
    Out& out = outs[forwarded[i]];
    if (failure) {
      out.error_code = static_cast<int16_t>(failure->code);
      out.error_message = failure->message;
      continue;
    }
    const admin::v1::TopicResult& result = answer.topics(static_cast<int>(i));
    out.error_code = static_cast<int16_t>(result.error_code());
    out.error_message = ErrorMessage(result.error_message());
    on_result(out, result);
  }
}


}  // namespace strata::broker
