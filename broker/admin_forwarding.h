#pragma once
// Forwarding a Kafka admin request to the active controller's AdminService (KRaft
// brokers do the same): the deadline a request's timeout_ms gives, and what every item
// of the request answers when no usable answer comes back.
//  * no ControllerClient (tests, fuzzing): NOT_CONTROLLER;
//  * no active controller answered before the deadline: REQUEST_TIMED_OUT;
//  * the controller refused the whole request: its error (e.g. NOT_CONTROLLER while it
//    catches up after an election).
// All of these are retriable: clients retry, as they do while a Kafka controller fails
// over. The call blocks the calling handler thread until the answer or the deadline.
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "broker/controller_client.h"
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
    ControllerClient* controller,
    grpc::Status (admin::v1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
    const Request& request, Response* response, std::chrono::milliseconds deadline) {
  using proto::kafka::ErrorCode;
  if (controller == nullptr) {
    return ForwardFailure{ErrorCode::kNotController, "this broker has no way to the controller"};
  }
  absl::Status status = controller->CallAdmin(method, request, response, deadline);
  if (!status.ok()) return ForwardFailure{ErrorCode::kRequestTimedOut, std::string(status.message())};
  if (response->error_code() != 0) {
    return ForwardFailure{static_cast<ErrorCode>(response->error_code()),
                          absl::StrCat("the controller refused the request: ", response->error_message())};
  }
  return std::nullopt;
}

// UNKNOWN_SERVER_ERROR when the controller answered `answered` items for `forwarded`.
std::optional<ForwardFailure> CountMismatch(int answered, size_t forwarded);

// A Kafka error message from a controller's: null when there is none.
inline std::optional<std::string> ErrorMessage(const std::string& message) {
  if (message.empty()) return std::nullopt;
  return message;
}

}  // namespace strata::broker
