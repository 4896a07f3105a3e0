// strata topics create | list | describe | delete | alter.

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

struct CreateOptions {
  std::string name;
  int32_t partitions = -1;
  int32_t replication_factor = -1;
  std::vector<std::string> configs;  // key=value
  std::string assignment;            // 1:2:3,2:3:1
};

int Create(const CreateOptions& o, const Context& ctx) {
  av1::CreateTopicsRequest request;
  auto* t = request.add_topics();
  t->set_name(o.name);
  t->set_num_partitions(o.partitions);
  t->set_replication_factor(o.replication_factor);
  for (const std::string& kv : o.configs) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) {
      std::cerr << "strata: --config '" << kv << "' is not key=value" << std::endl;
      return kExitUsage;
    }
    (*t->mutable_configs())[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  if (!o.assignment.empty()) {
    int32_t p = 0;
    for (absl::string_view part : absl::StrSplit(o.assignment, ',')) {
      auto* a = t->add_assignments();
      a->set_partition_id(p++);
      for (absl::string_view id : absl::StrSplit(part, ':')) {
        int32_t b;
        if (!absl::SimpleAtoi(id, &b)) {
          std::cerr << "strata: --replica-assignment '" << o.assignment << "' is not like 1:2:3,2:3:1" << std::endl;
          return kExitUsage;
        }
        a->add_broker_ids(b);
      }
    }
  }
  av1::CreateTopicsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::CreateTopics, request, &r, &error)) return Fail("topics create", error);
  return PrintResults(r.topics(), ctx.as_json, "create");
}

// `topics list` (names only: one row a topic) and `topics describe` (a row a partition).
int Describe(const std::vector<std::string>& names, bool list_only, const Context& ctx) {
  av1::DescribeTopicsRequest request;
  for (const auto& n : names) request.add_names(n);
  av1::DescribeTopicsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeTopics, request, &r, &error)) {
    return Fail("topics describe", error);
  }
  int code = kExitOk;
  json out = json::array();
  Table list({"TOPIC", "TOPIC_ID", "PARTITIONS"});
  Table parts({"TOPIC", "PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "OFFLINE"});
  for (const auto& t : r.topics()) {
    if (t.error_code() != 0) {
      std::cerr << "strata: topic " << t.name() << ": " << ErrorText(t.error_code(), t.error_message()) << std::endl;
      code = kExitFailed;
      continue;
    }
    json pj = json::array();
    for (const auto& p : t.partitions()) {
      pj.push_back({{"partition", p.partition_id()}, {"leader", p.leader()}, {"leader_epoch", p.leader_epoch()},
                    {"replicas", std::vector<int32_t>(p.replicas().begin(), p.replicas().end())},
                    {"isr", std::vector<int32_t>(p.isr().begin(), p.isr().end())},
                    {"offline_replicas", std::vector<int32_t>(p.offline_replicas().begin(), p.offline_replicas().end())}});
      parts.Add({t.name(), std::to_string(p.partition_id()), p.leader() < 0 ? "none" : std::to_string(p.leader()),
                 std::to_string(p.leader_epoch()), Ids(p.replicas()), Ids(p.isr()),
                 p.offline_replicas().empty() ? "-" : Ids(p.offline_replicas())});
    }
    out.push_back({{"name", t.name()}, {"topic_id", TopicIdText(t.topic_id())}, {"partitions", pj}});
    list.Add({t.name(), TopicIdText(t.topic_id()), std::to_string(t.partitions_size())});
  }
  Print(list_only ? list : parts, out, ctx.as_json);
  return code;
}

int Delete(const std::vector<std::string>& names, const Context& ctx) {
  av1::DeleteTopicsRequest request;
  for (const auto& n : names) request.add_names(n);
  av1::DeleteTopicsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DeleteTopics, request, &r, &error)) return Fail("topics delete", error);
  return PrintResults(r.topics(), ctx.as_json, "delete");
}

int Alter(const std::string& name, int32_t partitions, const Context& ctx) {
  av1::CreatePartitionsRequest request;
  auto* t = request.add_topics();
  t->set_name(name);
  t->set_count(partitions);
  av1::CreatePartitionsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::CreatePartitions, request, &r, &error)) return Fail("topics alter", error);
  return PrintResults(r.topics(), ctx.as_json, "alter");
}

}  // namespace

void AddTopicsCommands(CLI::App& app, Commands& commands) {
  auto* topics = app.add_subcommand("topics", "Create, list, describe, delete and alter topics")->require_subcommand(1);

  auto create = std::make_shared<CreateOptions>();
  auto* create_cmd = topics->add_subcommand("create", "Create a topic");
  create_cmd->add_option("name", create->name, "Topic name")->required();
  create_cmd->add_option("--partitions", create->partitions, "Partition count (default: num.partitions)");
  create_cmd->add_option("--replication-factor", create->replication_factor,
                         "Replicas per partition (default: default.replication.factor)");
  create_cmd->add_option("--config", create->configs, "key=value (repeatable)");
  create_cmd->add_option("--replica-assignment", create->assignment, "Per partition, broker ids: 1:2:3,2:3:1");
  commands.push_back({create_cmd, [create](const Context& ctx) { return Create(*create, ctx); }});

  auto* list_cmd = topics->add_subcommand("list", "List topic names");
  commands.push_back({list_cmd, [](const Context& ctx) { return Describe({}, true, ctx); }});

  auto describe = std::make_shared<std::vector<std::string>>();
  auto* describe_cmd = topics->add_subcommand("describe", "Partitions, leaders, replicas and ISRs");
  describe_cmd->add_option("names", *describe, "Topics (default: all)");
  commands.push_back({describe_cmd, [describe](const Context& ctx) { return Describe(*describe, false, ctx); }});

  auto remove = std::make_shared<std::vector<std::string>>();
  auto* delete_cmd = topics->add_subcommand("delete", "Delete topics");
  delete_cmd->add_option("names", *remove, "Topics")->required();
  commands.push_back({delete_cmd, [remove](const Context& ctx) { return Delete(*remove, ctx); }});

  struct AlterOptions {
    std::string name;
    int32_t partitions = -1;
  };
  auto alter = std::make_shared<AlterOptions>();
  auto* alter_cmd = topics->add_subcommand("alter", "Add partitions to a topic");
  alter_cmd->add_option("name", alter->name, "Topic name")->required();
  alter_cmd->add_option("--partitions", alter->partitions, "The new partition count")->required();
  commands.push_back({alter_cmd, [alter](const Context& ctx) { return Alter(alter->name, alter->partitions, ctx); }});
}

}  // namespace strata::cli
