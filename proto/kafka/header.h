#pragma once
// Request and response headers (RequestHeader v0-v2, ResponseHeader v0-v1). The header
// version follows from the api key and version (api.h); client_id keeps the classic
// nullable-string encoding even in header v2, as the schema says.
// Not thread-safe (values and functions over a Reader/Writer).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;
  int header_version = 1;
  // Not on the wire: where the request came from, "/<address>" as Kafka shows a client's
  // host (set by the listener; empty in requests made in-process).
  std::string client_host;
  // Not on the wire: the listener's number for the connection it came on (0: made
  // in-process). State tied to a connection (a fetch session) goes when it closes.
  uint64_t connection_id = 0;
  // Not on the wire: who sent it, "User:<name>" (from SASL or a TLS client certificate;
  // User:ANONYMOUS otherwise), set by the listener.
  std::string principal = "User:ANONYMOUS";
};

// Reads the header at the start of a request frame (after its size); the reader is left
// at the request body.
absl::StatusOr<RequestHeader> ReadRequestHeader(Reader& reader);
void WriteRequestHeader(const RequestHeader& header, Writer& writer);

// The response header for a request with this header.
void WriteResponseHeader(const RequestHeader& request, Writer& writer);

}  // namespace strata::proto::kafka
