// strata topics create | list | describe | delete | alter.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "tools/cli/command.h"
#include "tools/cli/leader_offsets.h"

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

const char* RemoteStateName(int state) {
  switch (state) {
    case metadata::v1::RemoteLogSegment::COPY_SEGMENT_STARTED: return "COPY_SEGMENT_STARTED";
    case metadata::v1::RemoteLogSegment::COPY_SEGMENT_FINISHED: return "COPY_SEGMENT_FINISHED";
    case metadata::v1::RemoteLogSegment::DELETE_SEGMENT_STARTED: return "DELETE_SEGMENT_STARTED";
    default: return "DELETE_SEGMENT_FINISHED";
  }
}

// --tiers: a partition's two tiers. The remote tier's copies come from the controllers'
// image; the local log start and the start across both tiers from the leader
// (ListOffsets EARLIEST_LOCAL and EARLIEST; -1 when it cannot be asked).
struct Tiers {
  int64_t log_start_offset = -1;
  int64_t local_log_start_offset = -1;
  int64_t remote_log_start_offset = -1;
  int64_t highest_copied_offset = -1;
  int64_t remote_segment_count = 0;
  int64_t remote_bytes = 0;
  json segments = json::array();
};

Tiers TiersOf(const std::string& topic, const av1::PartitionDescription& p,
              const std::map<int32_t, Endpoint>& endpoints) {
  Tiers t;
  for (const auto& s : p.remote_segments()) {
    t.segments.push_back({{"segment_id", TopicIdText(s.segment_id())}, {"state", RemoteStateName(s.state())},
                          {"start_offset", s.start_offset()}, {"end_offset", s.end_offset()},
                          {"size_in_bytes", s.segment_size_in_bytes()}, {"broker", s.broker_id()},
                          {"leader_epoch", s.leader_epoch()}});
    if (s.state() != metadata::v1::RemoteLogSegment::COPY_SEGMENT_FINISHED) continue;
    ++t.remote_segment_count;
    t.remote_bytes += s.segment_size_in_bytes();
    if (t.remote_log_start_offset < 0 || s.start_offset() < t.remote_log_start_offset) {
      t.remote_log_start_offset = s.start_offset();
    }
    t.highest_copied_offset = std::max(t.highest_copied_offset, s.end_offset());
  }
  auto leader = endpoints.find(p.leader());
  if (leader != endpoints.end()) {
    if (auto o = LeaderListOffset(leader->second, topic, p.partition_id(), -4); o.ok()) t.local_log_start_offset = *o;
    if (auto o = LeaderListOffset(leader->second, topic, p.partition_id(), -2); o.ok()) t.log_start_offset = *o;
  }
  return t;
}

// `topics list` (names only: one row a topic) and `topics describe` (a row a partition;
// with tiers, the local and remote tier of each).
int Describe(const std::vector<std::string>& names, bool list_only, const Context& ctx, bool tiers = false) {
  av1::DescribeTopicsRequest request;
  for (const auto& n : names) request.add_names(n);
  request.set_include_remote_segments(tiers);
  std::map<int32_t, Endpoint> endpoints;
  if (tiers) {
    av1::DescribeClusterResponse cluster;
    std::string error;
    if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &cluster, &error)) {
      return Fail("topics describe", error);
    }
    endpoints = BrokerEndpoints(cluster, ctx.listener);
  }
  av1::DescribeTopicsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeTopics, request, &r, &error)) {
    return Fail("topics describe", error);
  }
  int code = kExitOk;
  json out = json::array();
  Table list({"TOPIC", "TOPIC_ID", "PARTITIONS"});
  Table parts({"TOPIC", "PARTITION", "LEADER", "EPOCH", "REPLICAS", "ISR", "OFFLINE"});
  Table tier_rows({"TOPIC", "PARTITION", "LEADER", "LOG_START", "LOCAL_LOG_START", "REMOTE_LOG_START",
                   "HIGHEST_COPIED", "REMOTE_SEGMENTS", "REMOTE_BYTES", "TIER_STATE_FAILING"});
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
                    {"offline_replicas", std::vector<int32_t>(p.offline_replicas().begin(), p.offline_replicas().end())},
                    {"adding_replicas", std::vector<int32_t>(p.adding_replicas().begin(), p.adding_replicas().end())},
                    {"removing_replicas",
                     std::vector<int32_t>(p.removing_replicas().begin(), p.removing_replicas().end())}});
      parts.Add({t.name(), std::to_string(p.partition_id()), p.leader() < 0 ? "none" : std::to_string(p.leader()),
                 std::to_string(p.leader_epoch()), Ids(p.replicas()), Ids(p.isr()),
                 p.offline_replicas().empty() ? "-" : Ids(p.offline_replicas())});
      if (tiers) {
        Tiers tier = TiersOf(t.name(), p, endpoints);
        json& row = pj.back();
        row["log_start_offset"] = tier.log_start_offset;
        row["local_log_start_offset"] = tier.local_log_start_offset;
        row["remote_log_start_offset"] = tier.remote_log_start_offset;
        row["highest_copied_offset"] = tier.highest_copied_offset;
        row["remote_segment_count"] = tier.remote_segment_count;
        row["remote_bytes"] = tier.remote_bytes;
        row["remote_segments"] = tier.segments;
        row["tier_state_failing_replicas"] =
            std::vector<int32_t>(p.tier_state_failing_replicas().begin(), p.tier_state_failing_replicas().end());
        tier_rows.Add({t.name(), std::to_string(p.partition_id()), std::to_string(p.leader()),
                       std::to_string(tier.log_start_offset), std::to_string(tier.local_log_start_offset),
                       std::to_string(tier.remote_log_start_offset), std::to_string(tier.highest_copied_offset),
                       std::to_string(tier.remote_segment_count), std::to_string(tier.remote_bytes),
                       p.tier_state_failing_replicas().empty() ? "-" : Ids(p.tier_state_failing_replicas())});
      }
    }
    out.push_back({{"name", t.name()}, {"topic_id", TopicIdText(t.topic_id())}, {"partitions", pj}});
    list.Add({t.name(), TopicIdText(t.topic_id()), std::to_string(t.partitions_size())});
  }
  Print(list_only ? list : tiers ? tier_rows : parts, out, ctx.as_json);
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

  struct DescribeOptions {
    std::vector<std::string> names;
    bool tiers = false;
  };
  auto describe = std::make_shared<DescribeOptions>();
  auto* describe_cmd = topics->add_subcommand("describe", "Partitions, leaders, replicas and ISRs");
  describe_cmd->add_option("names", describe->names, "Topics (default: all)");
  describe_cmd->add_flag("--tiers", describe->tiers,
                         "Tiered storage: each partition's log start, local log start, remote log start, highest "
                         "copied offset, remote segments and bytes (asks the leaders too), and the followers whose "
                         "state cannot yet be built from the remote tier");
  commands.push_back({describe_cmd, [describe](const Context& ctx) {
                        return Describe(describe->names, false, ctx, describe->tiers);
                      }});

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
