#include "proto/kafka/header.h"

#include "proto/kafka/api.h"

namespace strata::proto::kafka {

absl::StatusOr<RequestHeader> ReadRequestHeader(Reader& reader) {
  RequestHeader h;
  h.api_key = reader.Int16("request_api_key");
  h.api_version = reader.Int16("request_api_version");
  h.correlation_id = reader.Int32("correlation_id");
  h.client_id = reader.NullableString(/*flexible=*/false, "client_id");
  h.header_version = RequestHeaderVersion(h.api_key, h.api_version);
  if (h.header_version >= 2) reader.SkipTaggedFields("request header tagged fields");
  if (!reader.ok()) return reader.status();
  return h;
}

void WriteRequestHeader(const RequestHeader& h, Writer& writer) {
  writer.Int16(h.api_key);
  writer.Int16(h.api_version);
  writer.Int32(h.correlation_id);
  writer.NullableString(h.client_id, /*flexible=*/false);
  if (RequestHeaderVersion(h.api_key, h.api_version) >= 2) writer.EmptyTaggedFields();
}

void WriteResponseHeader(const RequestHeader& request, Writer& writer) {
  writer.Int32(request.correlation_id);
  if (ResponseHeaderVersion(request.api_key, request.api_version) >= 1) writer.EmptyTaggedFields();
}

}  // namespace strata::proto::kafka
