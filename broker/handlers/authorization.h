#pragma once
// The authorization a handler asks for, with Kafka's operations and resources: whether
// the request's principal (RequestHeader::principal, from its connection) at its host
// may do an operation on a topic, a group, the cluster or a transactional id. Without an
// authorizer (KafkaApisContext::authorizer null) everything is allowed. Each check is
// counted and a denial logged (security/standard_authorizer.h, Check).
// Thread-safe.

#include <cstdint>

#include "absl/strings/string_view.h"
#include "broker/handlers/request_context.h"
#include "security/acl.h"

namespace strata::broker {

// A group's authorized operations as DescribeGroups and ConsumerGroupDescribe answer
// them (Kafka's bit per AclOperation): READ (3), DELETE (6), DESCRIBE (8); INT32_MIN when
// the request did not ask.
inline constexpr int32_t kGroupOperations = (1 << 3) | (1 << 6) | (1 << 8);
inline constexpr int32_t kOperationsNotAsked = INT32_MIN;

bool Authorized(const ApiRequest& request, security::AclOperation operation, security::ResourceType type,
                absl::string_view name);
inline bool AuthorizedOnTopic(const ApiRequest& request, security::AclOperation operation, absl::string_view topic) {
  return Authorized(request, operation, security::ResourceType::kTopic, topic);
}
inline bool AuthorizedOnGroup(const ApiRequest& request, security::AclOperation operation, absl::string_view group) {
  return Authorized(request, operation, security::ResourceType::kGroup, group);
}
inline bool AuthorizedOnTransactionalId(const ApiRequest& request, security::AclOperation operation,
                                       absl::string_view transactional_id) {
  return Authorized(request, operation, security::ResourceType::kTransactionalId, transactional_id);
}
inline bool AuthorizedOnCluster(const ApiRequest& request, security::AclOperation operation) {
  return Authorized(request, operation, security::ResourceType::kCluster, security::kClusterResourceName);
}

}  // namespace strata::broker
