#include "security/acl.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace strata::security {

std::optional<std::string> InvalidBinding(const AclBinding& b) {
  if (b.resource_type == ResourceType::kUnknown || b.resource_type == ResourceType::kAny) {
    return "the resource type must be concrete";
  }
  if (b.pattern_type != PatternType::kLiteral && b.pattern_type != PatternType::kPrefixed) {
    return "the pattern type must be LITERAL or PREFIXED";
  }
  if (b.resource_name.empty()) return "the resource name is empty";
  if (b.resource_type == ResourceType::kCluster &&
      (b.resource_name != kClusterResourceName || b.pattern_type != PatternType::kLiteral)) {
    return "a CLUSTER resource is the literal kafka-cluster";
  }
  if (b.pattern_type == PatternType::kPrefixed && b.resource_name == kWildcardResource) {
    return "a PREFIXED pattern cannot be the wildcard '*'";
  }
  size_t colon = b.principal.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == b.principal.size()) {
    return absl::StrCat("the principal '", b.principal, "' is not Type:name");
  }
  if (b.host.empty()) return "the host is empty (use '*')";
  if (b.operation == AclOperation::kUnknown || b.operation == AclOperation::kAny) return "the operation must be concrete";
  if (b.permission != AclPermission::kAllow && b.permission != AclPermission::kDeny) return "the permission is ALLOW or DENY";
  return std::nullopt;
}

std::optional<std::string> InvalidFilter(const AclFilter& f) {
  if (f.resource_type == ResourceType::kUnknown) return "the resource type is UNKNOWN";
  if (f.pattern_type == PatternType::kUnknown) return "the pattern type is UNKNOWN";
  if (f.operation == AclOperation::kUnknown) return "the operation is UNKNOWN";
  if (f.permission == AclPermission::kUnknown) return "the permission is UNKNOWN";
  if (f.pattern_type == PatternType::kMatch && !f.resource_name) return "a MATCH pattern needs a resource name";
  return std::nullopt;
}

bool Matches(const AclFilter& f, const AclBinding& b) {
  if (f.resource_type != ResourceType::kAny && f.resource_type != b.resource_type) return false;
  if (f.pattern_type == PatternType::kMatch) {
    // Every binding that would apply to the named resource: the literal name, the
    // wildcard, and prefixes of it.
    const std::string& name = *f.resource_name;
    bool applies = b.pattern_type == PatternType::kLiteral
                       ? (b.resource_name == name || b.resource_name == kWildcardResource)
                       : absl::StartsWith(name, b.resource_name);
    if (!applies) return false;
  } else {
    if (f.pattern_type != PatternType::kAny && f.pattern_type != b.pattern_type) return false;
    if (f.resource_name && *f.resource_name != b.resource_name) return false;
  }
  if (f.principal && *f.principal != b.principal) return false;
  if (f.host && *f.host != b.host) return false;
  if (f.operation != AclOperation::kAny && f.operation != b.operation) return false;
  if (f.permission != AclPermission::kAny && f.permission != b.permission) return false;
  return true;
}

absl::string_view ResourceTypeName(ResourceType type) {
  switch (type) {
    case ResourceType::kTopic: return "Topic";
    case ResourceType::kGroup: return "Group";
    case ResourceType::kCluster: return "Cluster";
    case ResourceType::kTransactionalId: return "TransactionalId";
    case ResourceType::kDelegationToken: return "DelegationToken";
    case ResourceType::kUser: return "User";
    case ResourceType::kAny: return "Any";
    default: return "Unknown";
  }
}

absl::string_view PatternTypeName(PatternType type) {
  switch (type) {
    case PatternType::kLiteral: return "LITERAL";
    case PatternType::kPrefixed: return "PREFIXED";
    case PatternType::kMatch: return "MATCH";
    case PatternType::kAny: return "ANY";
    default: return "UNKNOWN";
  }
}

absl::string_view OperationName(AclOperation operation) {
  switch (operation) {
    case AclOperation::kAll: return "All";
    case AclOperation::kRead: return "Read";
    case AclOperation::kWrite: return "Write";
    case AclOperation::kCreate: return "Create";
    case AclOperation::kDelete: return "Delete";
    case AclOperation::kAlter: return "Alter";
    case AclOperation::kDescribe: return "Describe";
    case AclOperation::kClusterAction: return "ClusterAction";
    case AclOperation::kDescribeConfigs: return "DescribeConfigs";
    case AclOperation::kAlterConfigs: return "AlterConfigs";
    case AclOperation::kIdempotentWrite: return "IdempotentWrite";
    case AclOperation::kCreateTokens: return "CreateTokens";
    case AclOperation::kDescribeTokens: return "DescribeTokens";
    case AclOperation::kAny: return "Any";
    default: return "Unknown";
  }
}

absl::string_view PermissionName(AclPermission permission) {
  switch (permission) {
    case AclPermission::kAllow: return "Allow";
    case AclPermission::kDeny: return "Deny";
    case AclPermission::kAny: return "Any";
    default: return "Unknown";
  }
}

std::string ToString(const AclBinding& b) {
  return absl::StrCat("(resource=", ResourceTypeName(b.resource_type), ":", PatternTypeName(b.pattern_type), ":",
                      b.resource_name, ", principal=", b.principal, ", host=", b.host,
                      ", operation=", OperationName(b.operation), ", permission=", PermissionName(b.permission), ")");
}

}  // namespace strata::security
