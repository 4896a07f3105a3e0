// strata quotas describe | alter: client quotas (KIP-546) through the controllers, as
// kafka-configs --entity-type users/clients/ips does it. An entity is named with
// --user NAME or --user-default, --client-id NAME or --client-id-default (a user and a
// client id together make one entity), or --ip ADDRESS or --ip-default. describe lists
// the entities that match (each type given: that name, or the default; none: every
// entity); alter sets (--add key=value) and removes (--delete key) values of one entity.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

struct QuotasOptions {
  std::string user, client_id, ip;  // empty: not named
  bool user_default = false, client_id_default = false, ip_default = false;
  std::vector<std::string> add;
  std::vector<std::string> remove;
  bool validate_only = false;
};

// The entity parts the options name: (type, name or nullopt for the default).
std::vector<std::pair<std::string, std::optional<std::string>>> EntityOf(const QuotasOptions& o) {
  std::vector<std::pair<std::string, std::optional<std::string>>> parts;
  auto add = [&](const char* type, const std::string& name, bool is_default) {
    if (!name.empty()) parts.emplace_back(type, name);
    if (is_default) parts.emplace_back(type, std::nullopt);
  };
  add("user", o.user, o.user_default);
  add("client-id", o.client_id, o.client_id_default);
  add("ip", o.ip, o.ip_default);
  return parts;
}

std::string EntityText(const google::protobuf::RepeatedPtrField<metadata::v1::ClientQuotaEntityPart>& entity) {
  std::vector<std::string> parts;
  for (const auto& p : entity) {
    parts.push_back(absl::StrCat(p.entity_type(), "=", p.has_entity_name() ? p.entity_name() : "<default>"));
  }
  return absl::StrJoin(parts, ", ");
}

int Describe(const QuotasOptions& o, const Context& ctx) {
  av1::DescribeClientQuotasRequest request;
  for (const auto& [type, name] : EntityOf(o)) {
    auto* c = request.add_components();
    c->set_entity_type(type);
    c->set_match_type(name ? 0 : 1);
    if (name) c->set_match(*name);
  }
  av1::DescribeClientQuotasResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeClientQuotas, request, &r, &error)) {
    return Fail("quotas describe", error);
  }
  json out = json::array();
  Table t({"ENTITY", "KEY", "VALUE"});
  for (const auto& entry : r.entries()) {
    json entity = json::object();
    for (const auto& p : entry.entity()) {
      entity[p.entity_type()] = p.has_entity_name() ? json(p.entity_name()) : json(nullptr);
    }
    json values = json::object();
    std::map<std::string, double> sorted(entry.values().begin(), entry.values().end());
    for (const auto& [k, v] : sorted) {
      values[k] = v;
      t.Add({EntityText(entry.entity()), k, absl::StrCat(v)});
    }
    out.push_back({{"entity", entity}, {"values", values}});
  }
  Print(t, out, ctx.as_json);
  return kExitOk;
}

int Alter(const QuotasOptions& o, const Context& ctx) {
  auto parts = EntityOf(o);
  if (parts.empty()) {
    std::cerr << "strata: name an entity: --user, --client-id (or their -default), or --ip" << std::endl;
    return kExitUsage;
  }
  if (o.add.empty() && o.remove.empty()) {
    std::cerr << "strata: give --add key=value or --delete key" << std::endl;
    return kExitUsage;
  }
  av1::AlterClientQuotasRequest request;
  request.set_validate_only(o.validate_only);
  auto* entry = request.add_entries();
  for (const auto& [type, name] : parts) {
    auto* p = entry->add_entity();
    p->set_entity_type(type);
    if (name) p->set_entity_name(*name);
  }
  for (const std::string& kv : o.add) {
    std::vector<std::string> split = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    double value = 0;
    if (split.size() != 2 || !absl::SimpleAtod(split[1], &value)) {
      std::cerr << "strata: --add takes key=number, not " << kv << std::endl;
      return kExitUsage;
    }
    auto* op = entry->add_ops();
    op->set_key(split[0]);
    op->set_value(value);
  }
  for (const std::string& key : o.remove) {
    auto* op = entry->add_ops();
    op->set_key(key);
    op->set_remove(true);
  }
  av1::AlterClientQuotasResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::AlterClientQuotas, request, &r, &error)) {
    return Fail("quotas alter", error);
  }
  if (r.results_size() != 1) return Fail("quotas alter", "the controller answered no result");
  if (r.results(0).error_code() != 0) {
    return Fail("quotas alter", ErrorText(r.results(0).error_code(), r.results(0).error_message()));
  }
  std::cout << (ctx.as_json ? "{\"result\":\"ok\"}" : "ok") << std::endl;
  return kExitOk;
}

void AddEntityOptions(CLI::App* cmd, QuotasOptions& o) {
  cmd->add_option("--user", o.user, "A user (the principal's name)");
  cmd->add_flag("--user-default", o.user_default, "The default user entity");
  cmd->add_option("--client-id", o.client_id, "A client id");
  cmd->add_flag("--client-id-default", o.client_id_default, "The default client-id entity");
  cmd->add_option("--ip", o.ip, "An IP address (connection_creation_rate only)");
  cmd->add_flag("--ip-default", o.ip_default, "The default ip entity");
}

}  // namespace

void AddQuotasCommands(CLI::App& app, Commands& commands) {
  auto* quotas = app.add_subcommand("quotas", "Client quotas (users, client ids, IPs)")->require_subcommand(1);
  auto describe = std::make_shared<QuotasOptions>();
  auto* describe_cmd = quotas->add_subcommand("describe", "The quotas of the entities that match (none named: all)");
  AddEntityOptions(describe_cmd, *describe);
  auto alter = std::make_shared<QuotasOptions>();
  auto* alter_cmd = quotas->add_subcommand("alter", "Set or remove quota values of one entity");
  AddEntityOptions(alter_cmd, *alter);
  alter_cmd->add_option("--add", alter->add,
                        "key=value: producer_byte_rate, consumer_byte_rate, request_percentage, "
                        "controller_mutation_rate; connection_creation_rate for an ip");
  alter_cmd->add_option("--delete", alter->remove, "A key to remove");
  alter_cmd->add_flag("--validate-only", alter->validate_only, "Check only; change nothing");
  commands.push_back({describe_cmd, [describe](const Context& ctx) { return Describe(*describe, ctx); }});
  commands.push_back({alter_cmd, [alter](const Context& ctx) { return Alter(*alter, ctx); }});
}

}  // namespace strata::cli
