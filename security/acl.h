#pragma once
// Kafka's ACL model, with Kafka's codes (they travel in CreateAcls, DescribeAcls and
// DeleteAcls and are kept in metadata records): a binding is a resource pattern (type,
// name, LITERAL or PREFIXED) and an entry (principal, host, operation, ALLOW or DENY). A
// filter matches bindings field by field, with ANY and MATCH as Kafka defines them.
// Thread-safe (value types and functions).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace strata::security {

enum class ResourceType : int8_t {
  kUnknown = 0, kAny = 1, kTopic = 2, kGroup = 3, kCluster = 4, kTransactionalId = 5, kDelegationToken = 6, kUser = 7,
};
enum class PatternType : int8_t { kUnknown = 0, kAny = 1, kMatch = 2, kLiteral = 3, kPrefixed = 4 };
enum class AclOperation : int8_t {
  kUnknown = 0, kAny = 1, kAll = 2, kRead = 3, kWrite = 4, kCreate = 5, kDelete = 6, kAlter = 7, kDescribe = 8,
  kClusterAction = 9, kDescribeConfigs = 10, kAlterConfigs = 11, kIdempotentWrite = 12, kCreateTokens = 13,
  kDescribeTokens = 14,
};
enum class AclPermission : int8_t { kUnknown = 0, kAny = 1, kDeny = 2, kAllow = 3 };

inline constexpr char kWildcardResource[] = "*";
inline constexpr char kWildcardPrincipal[] = "User:*";
inline constexpr char kWildcardHost[] = "*";
inline constexpr char kClusterResourceName[] = "kafka-cluster";

struct AclBinding {
  ResourceType resource_type = ResourceType::kUnknown;
  std::string resource_name;
  PatternType pattern_type = PatternType::kLiteral;
  std::string principal;  // "User:alice", or "User:*"
  std::string host;       // an address, or "*"
  AclOperation operation = AclOperation::kUnknown;
  AclPermission permission = AclPermission::kUnknown;
  bool operator==(const AclBinding&) const = default;
};

// A binding out of a message with Kafka's seven fields as accessors (resource_type(),
// resource_name(), pattern_type(), principal(), host(), operation(), permission_type():
// the Admin service's AclBinding, the metadata log's AccessControlEntry), and back.
template <typename Message>
AclBinding AclBindingOf(const Message& m) {
  return AclBinding{static_cast<ResourceType>(m.resource_type()), m.resource_name(),
                    static_cast<PatternType>(m.pattern_type()),   m.principal(),
                    m.host(),                                     static_cast<AclOperation>(m.operation()),
                    static_cast<AclPermission>(m.permission_type())};
}
template <typename Message>
void SetAclBindingFields(const AclBinding& b, Message* m) {
  m->set_resource_type(static_cast<int32_t>(b.resource_type));
  m->set_resource_name(b.resource_name);
  m->set_pattern_type(static_cast<int32_t>(b.pattern_type));
  m->set_principal(b.principal);
  m->set_host(b.host);
  m->set_operation(static_cast<int32_t>(b.operation));
  m->set_permission_type(static_cast<int32_t>(b.permission));
}

// A DescribeAcls or DeleteAcls filter. nullopt names match any value.
struct AclFilter {
  ResourceType resource_type = ResourceType::kAny;
  std::optional<std::string> resource_name;
  PatternType pattern_type = PatternType::kAny;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  AclOperation operation = AclOperation::kAny;
  AclPermission permission = AclPermission::kAny;
};

// Whether a binding may be created: a concrete resource type and a LITERAL or PREFIXED
// pattern, a name (kafka-cluster for CLUSTER), a principal Type:name, a host, a
// concrete operation and ALLOW or DENY. The reason when not.
std::optional<std::string> InvalidBinding(const AclBinding& binding);
// Whether a filter is one Kafka accepts (MATCH only with a name; no UNKNOWN values).
std::optional<std::string> InvalidFilter(const AclFilter& filter);
bool Matches(const AclFilter& filter, const AclBinding& binding);

absl::string_view ResourceTypeName(ResourceType type);  // "Topic", "Group", "Cluster", ...
absl::string_view PatternTypeName(PatternType type);    // "LITERAL", "PREFIXED", ...
absl::string_view OperationName(AclOperation operation);  // "Read", "Write", ...
absl::string_view PermissionName(AclPermission permission);  // "Allow", "Deny"
// The binding as Kafka's tools print it: (principal=User:alice, host=*, operation=READ, ...).
std::string ToString(const AclBinding& binding);

}  // namespace strata::security
