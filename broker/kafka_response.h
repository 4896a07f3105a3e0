#pragma once
// KafkaResponse and KafkaResponder: what a request handler hands back to the listener
// (kafka_server.h) — a response body with file slices spliced in, no response, or an
// error that closes the connection. Shared by the listener and every handler, so that
// neither includes the other.
// Not thread-safe (values); a responder may be called from any thread.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"
#include "storage/file_slice.h"

namespace strata::broker {

// A response body (after the response header) with file slices spliced in:
// slices[s.id] goes at body position s.position for each s in splices.
struct KafkaResponse {
  std::string body;
  std::vector<proto::kafka::Splice> splices;  // in position order
  std::vector<storage::FileSlice> slices;
};

// The answer to one request: a response, nullopt for none (acks=0 produce), or an
// error that closes the connection. Call it exactly once, from any thread.
using KafkaResponder = std::function<void(absl::StatusOr<std::optional<KafkaResponse>>)>;

}  // namespace strata::broker
