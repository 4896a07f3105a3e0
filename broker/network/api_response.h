#pragma once
// ApiResponse and ApiResponder: what a request handler hands back to the listener
// (listener.h) — a response body with file slices spliced in, no response, or an
// error that closes the connection. Shared by the listener and every handler, so that
// neither includes the other.
// Not thread-safe (values); a responder may be called from any thread.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"
#include "storage/file_slice.h"

namespace strata::broker {

// The error codes a response carries other than NONE (0), each with how many times it
// occurs (top-level, per partition, per group...): Kafka's ErrorsPerSec counts every
// one. The request metrics read them (request_metrics.h).
using ErrorCounts = absl::InlinedVector<std::pair<int16_t, int32_t>, 2>;

inline void CountError(ErrorCounts& counts, int16_t code) {
  if (code == 0) return;
  for (auto& [c, n] : counts) {
    if (c == code) {
      ++n;
      return;
    }
  }
  counts.emplace_back(code, 1);
}

// A response body (after the response header) with file slices spliced in:
// slices[s.id] goes at body position s.position for each s in splices.
struct ApiResponse {
  std::string body;
  std::vector<proto::kafka::Splice> splices;  // in position order
  std::vector<storage::FileSlice> slices;
  ErrorCounts errors;
  // A client over its quota (KIP-219): once this response is written, the listener reads
  // nothing more from the connection for this long (the body carries throttle_time_ms).
  std::chrono::milliseconds throttle{0};
  // Nothing is written (a request without a response: an acks=0 produce), but the
  // throttle applies from now, as Kafka mutes a throttled acks=0 producer's channel.
  bool silent = false;
};

// The answer to one request: a response, nullopt for none (acks=0 produce), or an
// error that closes the connection. Call it exactly once, from any thread.
using ApiResponder = std::function<void(absl::StatusOr<std::optional<ApiResponse>>)>;

}  // namespace strata::broker
