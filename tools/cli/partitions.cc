// strata partitions reassign generate | execute | verify | cancel | list: moving replicas
// between brokers as kafka-reassign-partitions.sh does, with its plan files
// (reassignment_plan.h), through the controllers' AlterPartitionReassignments and
// ListPartitionReassignments (controller/reassignment.h).
//   generate --topic T... --brokers 1,2,3   a plan placing the topics' partitions afresh
//                                           over those brokers (racks respected, replicas
//                                           and leaders even; controller/placement.h)
//   execute --plan FILE                     starts the plan's reassignments; prints the
//                                           current assignment first (to roll back with)
//   verify --plan FILE                      each partition: completed, in progress, or
//                                           not as planned; exit 0 only when all completed
//   cancel --plan FILE                      cancels those in progress (back to the
//                                           replicas before)
//   list [--topic T]...                     the reassignments in progress
// and strata cluster balance [--execute] (partitions.h): a plan evening out replicas and
// leaderships over the usable brokers with the fewest moves (controller/balance.h).

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "controller/balance.h"
#include "controller/placement.h"
#include "proto/kafka/error_code.h"
#include "tools/cli/command.h"
#include "tools/cli/partitions.h"
#include "tools/cli/reassignment_plan.h"
#include "tools/cli/reassignment_throttles.h"

namespace strata::cli {
namespace {

using proto::kafka::ErrorCode;

std::vector<int32_t> Vector(const google::protobuf::RepeatedField<int32_t>& ids) { return {ids.begin(), ids.end()}; }

bool DescribeTopics(const Context& ctx, const std::set<std::string>& names, av1::DescribeTopicsResponse* r,
                    std::string* error) {
  av1::DescribeTopicsRequest request;
  for (const std::string& n : names) request.add_names(n);
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeTopics, request, r, error)) return false;
  for (const auto& t : r->topics()) {
    if (t.error_code() != 0) {
      *error = "topic " + t.name() + ": " + ErrorText(t.error_code(), t.error_message());
      return false;
    }
  }
  return true;
}

std::set<std::string> TopicsOf(const std::vector<PlannedPartition>& plan) {
  std::set<std::string> topics;
  for (const PlannedPartition& p : plan) topics.insert(p.topic);
  return topics;
}

struct GenerateOptions {
  std::vector<std::string> topics;
  std::string brokers;  // 1,2,3
};

int Generate(const GenerateOptions& o, const Context& ctx) {
  std::set<int32_t> ids;
  for (absl::string_view id : absl::StrSplit(o.brokers, ',', absl::SkipEmpty())) {
    int32_t b;
    if (!absl::SimpleAtoi(id, &b)) {
      std::cerr << "strata: --brokers '" << o.brokers << "' is not like 1,2,3" << std::endl;
      return kExitUsage;
    }
    ids.insert(b);
  }
  av1::DescribeClusterResponse cluster;
  av1::DescribeTopicsResponse topics;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &cluster, &error) ||
      !DescribeTopics(ctx, {o.topics.begin(), o.topics.end()}, &topics, &error)) {
    return Fail("partitions reassign generate", error);
  }
  controller::PlacementRequest request;
  for (const auto& b : cluster.brokers()) {
    if (!ids.erase(b.broker_id())) continue;
    request.brokers.push_back({b.broker_id(), b.rack().empty() ? std::nullopt : std::optional<std::string>(b.rack())});
  }
  if (!ids.empty()) return Fail("partitions reassign generate", "broker " + std::to_string(*ids.begin()) + " is not registered");
  std::vector<PlannedPartition> plan;
  for (const auto& t : topics.topics()) {
    if (t.partitions().empty()) continue;
    request.partition_count = t.partitions_size();
    request.replication_factor = t.partitions(0).replicas_size() - t.partitions(0).adding_replicas_size();
    auto placed = controller::PlaceReplicas(request);
    if (!placed.ok()) return Fail("partitions reassign generate", "topic " + t.name() + ": " + std::string(placed.status().message()));
    for (const auto& [partition, replicas] : *placed) {
      plan.push_back({t.name(), partition, replicas});
      for (size_t i = 0; i < replicas.size(); ++i) {
        controller::BrokerLoad& load = request.existing_load[replicas[i]];
        ++load.replicas;
        if (i == 0) ++load.leaders;
      }
    }
  }
  std::cerr << "Current partition replica assignment:\n"
            << PlanJson(CurrentAssignment(plan, topics)) << "\nProposed partition reassignment:" << std::endl;
  std::cout << PlanJson(plan) << std::endl;
  return kExitOk;
}

// Sends the plan's partitions (targets, or cancels) and prints each partition's outcome.
int Alter(const std::vector<PlannedPartition>& plan, bool cancel, const Context& ctx, const char* what) {
  av1::AlterPartitionReassignmentsRequest request;
  request.set_allow_replication_factor_change(true);
  for (const PlannedPartition& p : plan) {
    auto* r = request.add_partitions();
    r->set_topic(p.topic);
    r->set_partition_id(p.partition);
    r->set_cancel(cancel);
    if (!cancel) r->mutable_replicas()->Add(p.replicas.begin(), p.replicas.end());
  }
  av1::AlterPartitionReassignmentsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::AlterPartitionReassignments, request, &r, &error)) return Fail(what, error);
  int code = kExitOk;
  json out = json::array();
  Table t({"TOPIC", "PARTITION", "RESULT"});
  for (const auto& e : r.results()) {
    const bool none = cancel && e.error_code() == static_cast<int32_t>(ErrorCode::kNoReassignmentInProgress);
    std::string result = e.error_code() == 0 ? (cancel ? "cancelled" : "started")
                         : none              ? "none in progress"
                                             : ErrorText(e.error_code(), e.error_message());
    if (e.error_code() != 0 && !none) code = kExitFailed;
    out.push_back({{"topic", e.topic()}, {"partition", e.partition_id()}, {"error_code", e.error_code()},
                   {"result", result}});
    t.Add({e.topic(), std::to_string(e.partition_id()), result});
  }
  Print(t, out, ctx.as_json);
  return code;
}

// Sets the plan's throttles (reassignment_throttles.h) when throttle >= 0.
bool Throttle(const std::vector<PlannedPartition>& plan, const av1::DescribeTopicsResponse& topics,
              int64_t throttle, const Context& ctx, std::string* error) {
  if (throttle < 0) return true;
  if (!AlterThrottles(ThrottleRequest(plan, topics, throttle), ctx, error)) return false;
  std::cerr << "Throttled at " << throttle << " bytes/s: run verify until it completes, which removes the throttle"
            << std::endl;
  return true;
}

struct ExecuteOptions {
  std::string plan;
  int64_t throttle = -1;  // bytes per second; -1: none
};

int Execute(const ExecuteOptions& o, const Context& ctx) {
  auto plan = ReadPlan(o.plan);
  if (!plan.ok()) return Fail("partitions reassign execute", std::string(plan.status().message()));
  av1::DescribeTopicsResponse topics;
  std::string error;
  if (!DescribeTopics(ctx, TopicsOf(*plan), &topics, &error) || !Throttle(*plan, topics, o.throttle, ctx, &error)) {
    return Fail("partitions reassign execute", error);
  }
  // Where the partitions are now, to roll back with (on stderr: stdout is the results).
  std::cerr << "Current partition replica assignment (save it to roll back):\n"
            << PlanJson(CurrentAssignment(*plan, topics)) << std::endl;
  return Alter(*plan, /*cancel=*/false, ctx, "partitions reassign execute");
}

int Cancel(const std::string& path, const Context& ctx) {
  auto plan = ReadPlan(path);
  if (!plan.ok()) return Fail("partitions reassign cancel", std::string(plan.status().message()));
  return Alter(*plan, /*cancel=*/true, ctx, "partitions reassign cancel");
}

int Verify(const std::string& path, const Context& ctx) {
  auto plan = ReadPlan(path);
  if (!plan.ok()) return Fail("partitions reassign verify", std::string(plan.status().message()));
  av1::DescribeTopicsResponse topics;
  std::string error;
  if (!DescribeTopics(ctx, TopicsOf(*plan), &topics, &error)) return Fail("partitions reassign verify", error);
  std::map<std::pair<std::string, int32_t>, const av1::PartitionDescription*> now;
  for (const auto& t : topics.topics()) {
    for (const auto& p : t.partitions()) now[{t.name(), p.partition_id()}] = &p;
  }
  int code = kExitOk;
  json out = json::array();
  Table t({"TOPIC", "PARTITION", "STATE", "REPLICAS", "ADDING", "REMOVING"});
  for (const PlannedPartition& planned : *plan) {
    auto it = now.find({planned.topic, planned.partition});
    std::string state = "unknown partition";
    std::vector<int32_t> replicas, adding, removing;
    if (it != now.end()) {
      const av1::PartitionDescription& p = *it->second;
      replicas = Vector(p.replicas());
      adding = Vector(p.adding_replicas());
      removing = Vector(p.removing_replicas());
      state = !adding.empty() || !removing.empty() ? "in progress"
              : replicas == planned.replicas       ? "completed"
                                                   : "not as planned";
    }
    if (state != "completed") code = kExitFailed;
    out.push_back({{"topic", planned.topic}, {"partition", planned.partition}, {"state", state},
                   {"replicas", replicas}, {"adding_replicas", adding}, {"removing_replicas", removing},
                   {"planned_replicas", planned.replicas}});
    auto ids = [](const std::vector<int32_t>& v) {
      std::string s;
      for (int32_t b : v) s += (s.empty() ? "" : ",") + std::to_string(b);
      return s.empty() ? std::string("-") : s;
    };
    t.Add({planned.topic, std::to_string(planned.partition), state, ids(replicas), ids(adding), ids(removing)});
  }
  if (code == kExitOk) {
    // Every partition completed: the throttles a reassignment set go (as Kafka's verify).
    av1::DescribeClusterResponse cluster;
    if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &cluster, &error) ||
        !AlterThrottles(ClearThrottlesRequest(*plan, cluster), ctx, &error)) {
      Print(t, out, ctx.as_json);
      return Fail("partitions reassign verify: clearing the throttles", error);
    }
  }
  Print(t, out, ctx.as_json);
  return code;
}

int List(const std::vector<std::string>& topics, const Context& ctx) {
  av1::ListPartitionReassignmentsRequest request;
  for (const std::string& name : topics) request.add_topics()->set_name(name);
  av1::ListPartitionReassignmentsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::ListPartitionReassignments, request, &r, &error)) {
    return Fail("partitions reassign list", error);
  }
  json out = json::array();
  Table t({"TOPIC", "PARTITION", "REPLICAS", "ADDING", "REMOVING"});
  for (const auto& e : r.reassignments()) {
    out.push_back({{"topic", e.topic()}, {"partition", e.partition_id()}, {"replicas", Vector(e.replicas())},
                   {"adding_replicas", Vector(e.adding_replicas())}, {"removing_replicas", Vector(e.removing_replicas())}});
    t.Add({e.topic(), std::to_string(e.partition_id()), Ids(e.replicas()),
           e.adding_replicas().empty() ? "-" : Ids(e.adding_replicas()),
           e.removing_replicas().empty() ? "-" : Ids(e.removing_replicas())});
  }
  Print(t, out, ctx.as_json);
  return kExitOk;
}

}  // namespace

int Balance(bool execute, int64_t throttle, const Context& ctx) {
  av1::DescribeClusterResponse cluster;
  av1::DescribeTopicsResponse topics;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &cluster, &error) ||
      !DescribeTopics(ctx, {}, &topics, &error)) {
    return Fail("cluster balance", error);
  }
  std::vector<controller::PlacementBroker> brokers;
  for (const auto& b : cluster.brokers()) {
    if (b.fenced() || b.in_controlled_shutdown()) continue;
    brokers.push_back({b.broker_id(), b.rack().empty() ? std::nullopt : std::optional<std::string>(b.rack())});
  }
  controller::ClusterAssignment current;
  for (const auto& t : topics.topics()) {
    for (const auto& p : t.partitions()) {
      if (!p.adding_replicas().empty() || !p.removing_replicas().empty()) {
        return Fail("cluster balance", t.name() + "-" + std::to_string(p.partition_id()) +
                                           " is being reassigned (strata partitions reassign list): balance once "
                                           "every reassignment completed");
      }
      current[{t.name(), p.partition_id()}] = Vector(p.replicas());
    }
  }
  controller::ClusterAssignment balanced = controller::PlanBalance(brokers, current);
  std::vector<PlannedPartition> plan;
  for (const auto& [key, replicas] : balanced) plan.push_back({key.first, key.second, replicas});
  // Where replicas and preferred leaderships are now and would be, per broker (stderr).
  controller::ClusterAssignment after = current;
  for (const auto& [key, replicas] : balanced) after[key] = replicas;
  auto counts = [](const controller::ClusterAssignment& a, int32_t broker) {
    int replicas = 0, leaders = 0;
    for (const auto& [key, r] : a) {
      replicas += static_cast<int>(std::count(r.begin(), r.end(), broker));
      leaders += !r.empty() && r[0] == broker;
    }
    return std::to_string(replicas) + " replicas, " + std::to_string(leaders) + " preferred leaderships";
  };
  for (const auto& b : brokers) {
    std::cerr << "broker " << b.id << ": " << counts(current, b.id) << " -> " << counts(after, b.id) << std::endl;
  }
  std::cerr << plan.size() << " partition(s) to change" << (execute ? "" : " (a dry run: --execute starts them)")
            << std::endl;
  if (!execute || plan.empty()) {
    std::cout << PlanJson(plan) << std::endl;
    return kExitOk;
  }
  if (!Throttle(plan, topics, throttle, ctx, &error)) return Fail("cluster balance", error);
  return Alter(plan, /*cancel=*/false, ctx, "cluster balance");
}

void AddPartitionsCommands(CLI::App& app, Commands& commands) {
  auto* partitions = app.add_subcommand("partitions", "Partition replicas")->require_subcommand(1);
  auto* reassign = partitions->add_subcommand("reassign", "Move replicas between brokers (kafka-reassign-partitions)")
                       ->require_subcommand(1);
  auto generate = std::make_shared<GenerateOptions>();
  auto* generate_cmd = reassign->add_subcommand("generate", "Print a plan placing the topics afresh over the brokers");
  generate_cmd->add_option("--topic", generate->topics, "Topic (repeatable)")->required();
  generate_cmd->add_option("--brokers", generate->brokers, "The brokers to place them on: 1,2,3")->required();
  commands.push_back({generate_cmd, [generate](const Context& ctx) { return Generate(*generate, ctx); }});

  auto execute = std::make_shared<ExecuteOptions>();
  auto* execute_cmd = reassign->add_subcommand("execute", "Start the plan's reassignments");
  execute_cmd->add_option("--plan", execute->plan, "The plan (kafka-reassign-partitions' JSON)")->required();
  execute_cmd->add_option("--throttle", execute->throttle,
                          "Replication throttle in bytes/s for the moving replicas (verify removes it)");
  commands.push_back({execute_cmd, [execute](const Context& ctx) { return Execute(*execute, ctx); }});
  auto plan = std::make_shared<std::string>();
  struct Leaf {
    const char* name;
    const char* help;
    int (*run)(const std::string&, const Context&);
  };
  for (const Leaf& leaf : {Leaf{"verify", "Say whether each reassignment of the plan completed (and then remove "
                                          "the throttles)", Verify},
                           Leaf{"cancel", "Cancel the plan's reassignments in progress", Cancel}}) {
    auto* cmd = reassign->add_subcommand(leaf.name, leaf.help);
    cmd->add_option("--plan", *plan, "The plan (kafka-reassign-partitions' JSON)")->required();
    commands.push_back({cmd, [plan, run = leaf.run](const Context& ctx) { return run(*plan, ctx); }});
  }
  auto list_topics = std::make_shared<std::vector<std::string>>();
  auto* list_cmd = reassign->add_subcommand("list", "List the reassignments in progress");
  list_cmd->add_option("--topic", *list_topics, "Topic (repeatable; default: every topic)");
  commands.push_back({list_cmd, [list_topics](const Context& ctx) { return List(*list_topics, ctx); }});
}

}  // namespace strata::cli
