// strata acls add | list | remove: ACL bindings (Kafka's, security/acl.h) through the
// controllers, as kafka-acls.sh does through a broker. The resource is one of --topic,
// --group, --cluster or --transactional-id; --pattern literal (default) or prefixed;
// one binding per --operation. `list` and `remove` take the same options as filters:
// whatever is left out matches anything (`remove` with no option at all is refused).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "security/acl.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

using security::AclOperation;
using security::AclPermission;
using security::PatternType;
using security::ResourceType;

struct AclsOptions {
  std::string topic, group, transactional_id;
  bool cluster = false;
  std::string pattern = "literal";
  std::string principal;
  std::string host = "*";
  std::vector<std::string> operations;
  bool deny = false;
  CLI::App* app = nullptr;
};

std::optional<AclOperation> OperationNamed(std::string name) {
  absl::AsciiStrToLower(&name);
  for (int8_t code = 2; code <= 14; ++code) {
    auto op = static_cast<AclOperation>(code);
    if (absl::AsciiStrToLower(security::OperationName(op)) == name) return op;
  }
  return std::nullopt;
}

// The resource the options name: (type, name), or (ANY, nullopt) when none is given;
// nullopt after an error on stderr when more than one is.
std::optional<std::pair<ResourceType, std::optional<std::string>>> Resource(const AclsOptions& o) {
  std::vector<std::pair<ResourceType, std::optional<std::string>>> named;
  if (!o.topic.empty()) named.push_back({ResourceType::kTopic, o.topic});
  if (!o.group.empty()) named.push_back({ResourceType::kGroup, o.group});
  if (!o.transactional_id.empty()) named.push_back({ResourceType::kTransactionalId, o.transactional_id});
  if (o.cluster) named.push_back({ResourceType::kCluster, std::string(security::kClusterResourceName)});
  if (named.size() > 1) {
    std::cerr << "strata: name one resource: --topic, --group, --transactional-id or --cluster" << std::endl;
    return std::nullopt;
  }
  if (named.empty()) return std::make_pair(ResourceType::kAny, std::optional<std::string>());
  return named[0];
}

av1::AclFilter Filter(const AclsOptions& o, ResourceType type, const std::optional<std::string>& name,
                      AclOperation op) {
  av1::AclFilter f;
  f.set_resource_type(static_cast<int32_t>(type));
  if (name) f.set_resource_name(*name);
  bool pattern_given = o.app->count("--pattern") > 0;
  f.set_pattern_type(static_cast<int32_t>(!pattern_given ? PatternType::kAny
                                          : o.pattern == "prefixed" ? PatternType::kPrefixed
                                          : o.pattern == "match"    ? PatternType::kMatch
                                                                    : PatternType::kLiteral));
  if (!o.principal.empty()) f.set_principal(o.principal);
  if (o.app->count("--host") > 0) f.set_host(o.host);
  f.set_operation(static_cast<int32_t>(op));
  f.set_permission_type(static_cast<int32_t>(o.app->count("--deny") > 0 ? AclPermission::kDeny : AclPermission::kAny));
  return f;
}

std::vector<AclOperation> Operations(const AclsOptions& o, bool required, bool* ok) {
  std::vector<AclOperation> ops;
  *ok = true;
  for (const std::string& name : o.operations) {
    std::optional<AclOperation> op = OperationNamed(name);
    if (!op) {
      std::cerr << "strata: unknown operation '" << name << "' (Read, Write, Create, Delete, Alter, Describe, "
                << "ClusterAction, DescribeConfigs, AlterConfigs, IdempotentWrite, All)" << std::endl;
      *ok = false;
    } else {
      ops.push_back(*op);
    }
  }
  if (required && ops.empty()) {
    std::cerr << "strata: give at least one --operation" << std::endl;
    *ok = false;
  }
  return ops;
}

json BindingJson(const av1::AclBinding& b) {
  return {{"resource_type", security::ResourceTypeName(static_cast<ResourceType>(b.resource_type()))},
          {"resource_name", b.resource_name()},
          {"pattern_type", security::PatternTypeName(static_cast<PatternType>(b.pattern_type()))},
          {"principal", b.principal()},
          {"host", b.host()},
          {"operation", security::OperationName(static_cast<AclOperation>(b.operation()))},
          {"permission", security::PermissionName(static_cast<AclPermission>(b.permission_type()))}};
}

void PrintBindings(const std::vector<av1::AclBinding>& bindings, bool as_json) {
  json out = json::array();
  Table t({"RESOURCE", "PATTERN", "PRINCIPAL", "HOST", "OPERATION", "PERMISSION"});
  for (const auto& b : bindings) {
    json j = BindingJson(b);
    out.push_back(j);
    t.Add({j["resource_type"].get<std::string>() + ":" + b.resource_name(), j["pattern_type"].get<std::string>(),
           b.principal(), b.host(), j["operation"].get<std::string>(), j["permission"].get<std::string>()});
  }
  Print(t, out, as_json);
}

int Add(const AclsOptions& o, const Context& ctx) {
  auto resource = Resource(o);
  if (!resource) return kExitUsage;
  if (resource->first == ResourceType::kAny) {
    std::cerr << "strata: name the resource: --topic, --group, --transactional-id or --cluster" << std::endl;
    return kExitUsage;
  }
  if (o.principal.empty()) {
    std::cerr << "strata: give --principal (User:name, or User:* for everyone)" << std::endl;
    return kExitUsage;
  }
  bool ok = true;
  std::vector<AclOperation> ops = Operations(o, true, &ok);
  if (!ok) return kExitUsage;
  av1::CreateAclsRequest request;
  for (AclOperation op : ops) {
    av1::AclBinding* b = request.add_creations();
    b->set_resource_type(static_cast<int32_t>(resource->first));
    b->set_resource_name(*resource->second);
    b->set_pattern_type(static_cast<int32_t>(o.pattern == "prefixed" ? PatternType::kPrefixed : PatternType::kLiteral));
    b->set_principal(o.principal);
    b->set_host(o.host);
    b->set_operation(static_cast<int32_t>(op));
    b->set_permission_type(static_cast<int32_t>(o.deny ? AclPermission::kDeny : AclPermission::kAllow));
  }
  av1::CreateAclsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::CreateAcls, request, &r, &error)) return Fail("acls add", error);
  int code = kExitOk;
  for (int i = 0; i < r.results_size(); ++i) {
    if (r.results(i).error_code() != 0) {
      std::cerr << "strata: acls add: " << ErrorText(r.results(i).error_code(), r.results(i).error_message()) << std::endl;
      code = kExitFailed;
    }
  }
  if (code == kExitOk) std::cout << (ctx.as_json ? "{\"result\":\"ok\"}" : "ok") << std::endl;
  return code;
}

int List(const AclsOptions& o, const Context& ctx) {
  auto resource = Resource(o);
  if (!resource) return kExitUsage;
  bool ok = true;
  std::vector<AclOperation> ops = Operations(o, false, &ok);
  if (!ok) return kExitUsage;
  if (ops.empty()) ops.push_back(AclOperation::kAny);
  std::vector<av1::AclBinding> all;
  for (AclOperation op : ops) {
    av1::DescribeAclsRequest request;
    *request.mutable_filter() = Filter(o, resource->first, resource->second, op);
    av1::DescribeAclsResponse r;
    std::string error;
    if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeAcls, request, &r, &error)) return Fail("acls list", error);
    all.insert(all.end(), r.acls().begin(), r.acls().end());
  }
  PrintBindings(all, ctx.as_json);
  return kExitOk;
}

int Remove(const AclsOptions& o, const Context& ctx) {
  auto resource = Resource(o);
  if (!resource) return kExitUsage;
  if (resource->first == ResourceType::kAny && o.principal.empty() && o.operations.empty()) {
    std::cerr << "strata: acls remove needs a resource, a --principal or an --operation (nothing removes every ACL)"
              << std::endl;
    return kExitUsage;
  }
  bool ok = true;
  std::vector<AclOperation> ops = Operations(o, false, &ok);
  if (!ok) return kExitUsage;
  if (ops.empty()) ops.push_back(AclOperation::kAny);
  av1::DeleteAclsRequest request;
  for (AclOperation op : ops) *request.add_filters() = Filter(o, resource->first, resource->second, op);
  av1::DeleteAclsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DeleteAcls, request, &r, &error)) return Fail("acls remove", error);
  std::vector<av1::AclBinding> removed;
  int code = kExitOk;
  for (const auto& result : r.results()) {
    if (result.error_code() != 0) {
      std::cerr << "strata: acls remove: " << ErrorText(result.error_code(), result.error_message()) << std::endl;
      code = kExitFailed;
    }
    removed.insert(removed.end(), result.matching().begin(), result.matching().end());
  }
  PrintBindings(removed, ctx.as_json);
  return code;
}

void AddOptions(CLI::App* cmd, AclsOptions& o, bool binding) {
  o.app = cmd;
  cmd->add_option("--topic", o.topic, "A topic (or, with --pattern prefixed, a prefix of topic names)");
  cmd->add_option("--group", o.group, "A consumer group");
  cmd->add_option("--transactional-id", o.transactional_id, "A transactional id");
  cmd->add_flag("--cluster", o.cluster, "The cluster (kafka-cluster)");
  cmd->add_option("--pattern", o.pattern, binding ? "literal (default) or prefixed" : "literal, prefixed or match")
      ->check(CLI::IsMember(binding ? std::vector<std::string>{"literal", "prefixed"}
                                    : std::vector<std::string>{"literal", "prefixed", "match"}));
  cmd->add_option("--principal", o.principal, "User:name (User:* for everyone)");
  cmd->add_option("--host", o.host, "A client address (default *: any)");
  cmd->add_option("--operation", o.operations, "Read, Write, Create, Delete, Alter, Describe, ClusterAction, "
                                               "DescribeConfigs, AlterConfigs, IdempotentWrite, All (repeatable)");
  cmd->add_flag("--deny", o.deny, binding ? "A DENY binding (default ALLOW)" : "DENY bindings only");
}

}  // namespace

void AddAclsCommands(CLI::App& app, Commands& commands) {
  auto* acls = app.add_subcommand("acls", "ACLs for the authorizer (authorizer.class.name)")->require_subcommand(1);
  auto add = std::make_shared<AclsOptions>();
  auto* add_cmd = acls->add_subcommand("add", "Add ALLOW (or --deny) bindings, one per --operation");
  AddOptions(add_cmd, *add, true);
  auto list = std::make_shared<AclsOptions>();
  auto* list_cmd = acls->add_subcommand("list", "The bindings the options match (none given: all)");
  AddOptions(list_cmd, *list, false);
  auto remove = std::make_shared<AclsOptions>();
  auto* remove_cmd = acls->add_subcommand("remove", "Remove the bindings the options match");
  AddOptions(remove_cmd, *remove, false);
  commands.push_back({add_cmd, [add](const Context& ctx) { return Add(*add, ctx); }});
  commands.push_back({list_cmd, [list](const Context& ctx) { return List(*list, ctx); }});
  commands.push_back({remove_cmd, [remove](const Context& ctx) { return Remove(*remove, ctx); }});
}

}  // namespace strata::cli
