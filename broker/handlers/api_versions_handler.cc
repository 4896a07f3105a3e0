#include "broker/handlers/api_versions_handler.h"

#include "broker/handlers/response_errors.h"
#include "proto/kafka/api_versions.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

void HandleApiVersions(const ApiRequest& request, ApiResponder respond) {
  int16_t version = 0;
  kafka::ApiVersionsResponse answer = kafka::AnswerApiVersions(request.advertised, request.header.api_version, &version);
  if (answer.error_code == 0) {
    kafka::Reader reader(request.body);
    auto decoded = kafka::ReadApiVersionsRequest(reader, request.header.api_version);
    if (!decoded.ok()) return respond(decoded.status());
  }
  ApiResponse response;
  kafka::Writer writer(&response.body);
  kafka::WriteApiVersionsResponse(answer, version, writer);
  CountErrors(answer, response.errors);
  respond(std::optional<ApiResponse>(std::move(response)));
}

}  // namespace strata::broker
