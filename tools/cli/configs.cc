// strata configs describe | alter, of a topic (--topic NAME) or a broker (--broker [ID];
// no id: the cluster-wide default).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tools/cli/command.h"

namespace strata::cli {
namespace {

struct ConfigsOptions {
  std::string topic;
  std::string broker;
  CLI::App* app = nullptr;         // to tell `--broker` without an id from no --broker
  std::vector<std::string> set;     // alter: key=value
  std::vector<std::string> remove;  // alter: key
};

// The resource named by exactly one of --topic and --broker; nullopt (after saying so
// on stderr) otherwise.
std::optional<av1::ConfigResource> Resource(const ConfigsOptions& o) {
  const bool broker_flag = o.app->count("--broker") > 0;
  if (o.topic.empty() == !broker_flag) {
    std::cerr << "strata: give exactly one of --topic NAME or --broker [ID]" << std::endl;
    return std::nullopt;
  }
  av1::ConfigResource resource;
  resource.set_type(o.topic.empty() ? av1::ConfigResource::BROKER : av1::ConfigResource::TOPIC);
  resource.set_name(o.topic.empty() ? o.broker : o.topic);
  return resource;
}

int Describe(const ConfigsOptions& o, const Context& ctx) {
  std::optional<av1::ConfigResource> resource = Resource(o);
  if (!resource) return kExitUsage;
  av1::DescribeConfigsRequest request;
  *request.add_resources() = *resource;
  av1::DescribeConfigsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeConfigs, request, &r, &error)) {
    return Fail("configs describe", error);
  }
  const auto& result = r.results(0);
  if (result.error_code() != 0) return Fail("configs describe", ErrorText(result.error_code(), result.error_message()));
  json out = json::array();
  Table t({"NAME", "VALUE", "SOURCE"});
  for (const auto& e : result.entries()) {
    out.push_back({{"name", e.name()}, {"value", e.value()}, {"is_default", e.is_default()}});
    t.Add({e.name(), e.value(), e.is_default() ? "default" : "set"});
  }
  Print(t, out, ctx.as_json);
  return kExitOk;
}

int Alter(const ConfigsOptions& o, const Context& ctx) {
  std::optional<av1::ConfigResource> resource = Resource(o);
  if (!resource) return kExitUsage;
  av1::AlterConfigsRequest request;
  auto* res = request.add_resources();
  *res->mutable_resource() = *resource;
  for (const std::string& kv : o.set) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      std::cerr << "strata: --set '" << kv << "' is not key=value" << std::endl;
      return kExitUsage;
    }
    auto* op = res->add_ops();
    op->set_name(kv.substr(0, eq));
    op->set_value(kv.substr(eq + 1));
  }
  for (const std::string& k : o.remove) {
    auto* op = res->add_ops();
    op->set_name(k);
    op->set_remove(true);
  }
  av1::AlterConfigsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::AlterConfigs, request, &r, &error)) return Fail("configs alter", error);
  if (r.results(0).error_code() != 0) {
    return Fail("configs alter", ErrorText(r.results(0).error_code(), r.results(0).error_message()));
  }
  std::cout << (ctx.as_json ? "{\"result\":\"ok\"}" : "ok") << std::endl;
  return kExitOk;
}

// --topic and --broker, as both subcommands take them.
void AddResourceOptions(CLI::App* command, ConfigsOptions& o) {
  o.app = command;
  command->add_option("--topic", o.topic, "Topic");
  command->add_option("--broker", o.broker, "Broker id (empty: the cluster-wide default)")->expected(0, 1);
}

}  // namespace

void AddConfigsCommands(CLI::App& app, Commands& commands) {
  auto* configs = app.add_subcommand("configs", "Topic and broker configs")->require_subcommand(1);

  auto describe = std::make_shared<ConfigsOptions>();
  auto* describe_cmd = configs->add_subcommand("describe", "Show configs");
  auto alter = std::make_shared<ConfigsOptions>();
  auto* alter_cmd = configs->add_subcommand("alter", "Set or remove configs");
  AddResourceOptions(describe_cmd, *describe);
  AddResourceOptions(alter_cmd, *alter);
  alter_cmd->add_option("--set", alter->set, "key=value (repeatable)");
  alter_cmd->add_option("--delete", alter->remove, "key (repeatable)");
  commands.push_back({describe_cmd, [describe](const Context& ctx) { return Describe(*describe, ctx); }});
  commands.push_back({alter_cmd, [alter](const Context& ctx) { return Alter(*alter, ctx); }});
}

}  // namespace strata::cli
