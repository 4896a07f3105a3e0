#include "broker/handlers/describe_cluster_handler.h"

#include "broker/handlers/authorization.h"
#include "absl/strings/str_cat.h"
#include "broker/handlers/metadata_handler.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::EndpointType;
using kafka::ErrorCode;

kafka::DescribeClusterResponse AnswerDescribeCluster(const KafkaApisContext& context,
                                                     const kafka::DescribeClusterRequest& request, bool authorized) {
  kafka::DescribeClusterResponse response;
  response.cluster_id = context.cluster_id;
  if (!authorized) {
    response.error_code = static_cast<int16_t>(ErrorCode::kClusterAuthorizationFailed);
    response.error_message = "not authorized to describe the cluster (Describe on the cluster)";
    return response;
  }
  if (request.endpoint_type != static_cast<int8_t>(EndpointType::kBroker)) {
    bool controllers = request.endpoint_type == static_cast<int8_t>(EndpointType::kController);
    response.error_code = static_cast<int16_t>(controllers ? ErrorCode::kMismatchedEndpointType
                                                           : ErrorCode::kUnsupportedEndpointType);
    response.error_message = controllers ? std::string("this is a broker listener; it describes brokers only")
                                         : absl::StrCat("endpoint type ", request.endpoint_type, " is not known");
    return response;
  }
  // Metadata for no topics: the brokers and ids exactly as Metadata reports them.
  kafka::MetadataRequest no_topics;
  no_topics.topics.emplace();
  kafka::MetadataResponse metadata = AnswerMetadata(context, no_topics);
  response.cluster_id = metadata.cluster_id.value_or(context.cluster_id);
  response.controller_id = metadata.controller_id;
  for (const auto& b : metadata.brokers) response.brokers.push_back({b.node_id, b.host, b.port, b.rack});
  return response;
}

void HandleDescribeCluster(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t version) { return kafka::ReadDescribeClusterRequest(reader, version); },
      [&](const auto& r) {
        return AnswerDescribeCluster(request.broker, r, AuthorizedOnCluster(request, security::AclOperation::kDescribe));
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) { kafka::WriteDescribeClusterResponse(response, version, writer); });
}

}  // namespace strata::broker
