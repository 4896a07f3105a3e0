#include "broker/handlers/authorization.h"

#include "proto/kafka/api.h"

namespace strata::broker {

bool Authorized(const ApiRequest& request, security::AclOperation operation, security::ResourceType type,
                absl::string_view name) {
  const security::StandardAuthorizer* authorizer = request.broker.authorizer;
  if (authorizer == nullptr) return true;
  return authorizer->Check(request.header.principal, request.header.client_host, operation, type, name,
                           proto::kafka::ApiName(request.header.api_key));
}

}  // namespace strata::broker
