#include "security/standard_authorizer.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/logging.h"

namespace strata::security {
namespace {

// What one binding that applies to the resource says about (principal, host, operation):
// nothing (it is for someone or something else), allow or deny.
enum class Says { kNothing, kAllow, kDeny };

bool Implies(AclOperation granted, AclOperation wanted) {
  if (granted == AclOperation::kAll || granted == wanted) return true;
  if (wanted == AclOperation::kDescribe) {
    return granted == AclOperation::kRead || granted == AclOperation::kWrite || granted == AclOperation::kDelete ||
           granted == AclOperation::kAlter;
  }
  if (wanted == AclOperation::kDescribeConfigs) return granted == AclOperation::kAlterConfigs;
  return false;
}

Says Consider(const AclBinding& b, absl::string_view principal, absl::string_view host, AclOperation operation) {
  if (b.principal != principal && b.principal != kWildcardPrincipal) return Says::kNothing;
  if (b.host != host && b.host != kWildcardHost) return Says::kNothing;
  if (b.permission == AclPermission::kDeny) {
    // A DENY is of its operation (or of everything): denying Describe denies no Read.
    return b.operation == AclOperation::kAll || b.operation == operation ? Says::kDeny : Says::kNothing;
  }
  return Implies(b.operation, operation) ? Says::kAllow : Says::kNothing;
}

}  // namespace

StandardAuthorizer::StandardAuthorizer(Options options)
    : options_(std::move(options)), index_(std::make_shared<const Index>()) {}

void StandardAuthorizer::SetAcls(const std::vector<AclBinding>& acls) {
  auto index = std::make_shared<Index>();
  for (const AclBinding& b : acls) {
    size_t type = static_cast<size_t>(b.resource_type);
    if (type >= index->by_type.size()) continue;
    Index::ByType& t = index->by_type[type];
    if (b.pattern_type == PatternType::kPrefixed) {
      t.prefixed[b.resource_name].push_back(b);
      t.prefix_lengths.insert(b.resource_name.size());
    } else {
      t.literal[b.resource_name].push_back(b);
    }
    ++index->count;
  }
  absl::MutexLock lock(&mu_);
  index_ = std::move(index);
}

size_t StandardAuthorizer::acl_count() const {
  absl::MutexLock lock(&mu_);
  return index_->count;
}

StandardAuthorizer::Decision StandardAuthorizer::Authorize(absl::string_view principal, absl::string_view host,
                                                           AclOperation operation, ResourceType type,
                                                           absl::string_view name) const {
  if (options_.super_users.count(std::string(principal))) return {true, Why::kSuperUser};
  absl::ConsumePrefix(&host, "/");
  std::shared_ptr<const Index> index;
  {
    absl::MutexLock lock(&mu_);
    index = index_;
  }
  size_t t = static_cast<size_t>(type);
  if (t >= index->by_type.size()) return {false, Why::kNoMatchingAcl};
  const Index::ByType& by = index->by_type[t];
  bool applies = false, allowed = false;
  auto consider = [&](const std::vector<AclBinding>& bindings) {
    for (const AclBinding& b : bindings) {
      applies = true;
      Says says = Consider(b, principal, host, operation);
      if (says == Says::kDeny) return true;  // DENY wins: nothing more to see
      allowed = allowed || says == Says::kAllow;
    }
    return false;
  };
  for (absl::string_view literal : {name, absl::string_view(kWildcardResource)}) {
    if (auto it = by.literal.find(literal); it != by.literal.end() && consider(it->second)) {
      return {false, Why::kDenyAcl};
    }
  }
  for (size_t length : by.prefix_lengths) {
    if (length > name.size()) break;
    if (auto it = by.prefixed.find(name.substr(0, length)); it != by.prefixed.end() && consider(it->second)) {
      return {false, Why::kDenyAcl};
    }
  }
  if (allowed) return {true, Why::kAllowAcl};
  if (applies) return {false, Why::kNoMatchingAcl};
  return {options_.allow_everyone_if_no_acl_found, Why::kNoAclFound};
}

bool StandardAuthorizer::AllowsSome(absl::string_view principal, absl::string_view host, AclOperation operation,
                                    ResourceType type) const {
  if (options_.super_users.count(std::string(principal))) return true;
  absl::ConsumePrefix(&host, "/");
  std::shared_ptr<const Index> index;
  {
    absl::MutexLock lock(&mu_);
    index = index_;
  }
  size_t t = static_cast<size_t>(type);
  if (t >= index->by_type.size()) return false;
  const Index::ByType& by = index->by_type[t];
  if (auto it = by.literal.find(kWildcardResource); it != by.literal.end()) {
    for (const AclBinding& b : it->second) {
      if (Consider(b, principal, host, operation) == Says::kDeny) return false;
    }
  }
  for (const auto* bindings : {&by.literal, &by.prefixed}) {
    for (const auto& [name, list] : *bindings) {
      for (const AclBinding& b : list) {
        if (Consider(b, principal, host, operation) == Says::kAllow) return true;
      }
    }
  }
  return false;
}

bool StandardAuthorizer::Check(absl::string_view principal, absl::string_view host, AclOperation operation,
                               ResourceType type, absl::string_view name, absl::string_view request) const {
  Decision d = Authorize(principal, host, operation, type, name);
  ++(d.allowed ? allowed_ : denied_);
  if (d.allowed && !options_.log_allowed) return true;
  int64_t unlogged = 0;
  if (!log_limit_.Admit(&unlogged)) return d.allowed;
  absl::ConsumePrefix(&host, "/");
  spdlog::info("authorizer: Principal = {} is {} Operation = {} from host = {} on resource = {}:{}:{} for request = {} "
               "({}){}",
               principal, d.allowed ? "Allowed" : "Denied", OperationName(operation), host, ResourceTypeName(type),
               "LITERAL", name, request, WhyName(d.why),
               unlogged > 0 ? absl::StrCat("; ", unlogged, " decisions before were not logged") : std::string());
  return d.allowed;
}

absl::string_view StandardAuthorizer::WhyName(Why why) {
  switch (why) {
    case Why::kSuperUser: return "a super user";
    case Why::kAllowAcl: return "an ALLOW ACL";
    case Why::kDenyAcl: return "a DENY ACL";
    case Why::kNoMatchingAcl: return "no ACL allows it";
    case Why::kNoAclFound: return "no ACL on the resource";
  }
  return "";
}

}  // namespace strata::security
