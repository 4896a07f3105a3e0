// strata: the admin command line. Talks gRPC (proto/admin.proto) to the controllers
// named by --bootstrap-controller (or STRATA_BOOTSTRAP_CONTROLLER): "host:port,..." or
// "id@host:port,..." (controller.quorum.voters' form, which lets it follow NOT_CONTROLLER
// straight to the leader). Prints tables, or JSON with --output json. Exit codes: 0 done,
// 1 the cluster refused or failed (one line on stderr says why), 2 usage error.
//   strata cluster describe
//   strata quorum describe
//   strata topics create NAME [--partitions N] [--replication-factor R] [--config k=v]...
//                              [--replica-assignment 1:2:3,2:3:1]
//   strata topics list | describe [NAME...] | delete NAME... | alter NAME --partitions N
//   strata configs describe (--topic NAME | --broker [ID]) | alter (--topic NAME | --broker [ID])
//                           [--set k=v]... [--delete k]...
//   strata leaders elect [--type preferred|unclean] [--topic NAME [--partition P]...]

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "admin.grpc.pb.h"
#include "broker/controller_client.h"
#include "proto/kafka/error_code.h"
#include "tools/cli/table.h"

namespace {

using namespace strata;
namespace av1 = strata::admin::v1;
using json = nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

std::string ErrorText(int32_t code, const std::string& message) {
  return absl::StrCat(proto::kafka::ErrorName(static_cast<proto::kafka::ErrorCode>(code)),
                      message.empty() ? "" : ": ", message);
}

// Calls the active controller through ControllerClient (which follows NOT_CONTROLLER);
// false with *error set when no controller answered or it refused the request.
class Admin {
 public:
  explicit Admin(const std::string& bootstrap)
      : client_(broker::ParseControllerAddresses(bootstrap), std::chrono::seconds(30)) {}

  template <typename Request, typename Response>
  bool Call(grpc::Status (av1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
            const Request& request, Response* response, std::string* error) {
    absl::Status s = client_.CallAdmin(method, request, response, std::chrono::seconds(30));
    if (!s.ok()) {
      *error = std::string(s.message());
      return false;
    }
    if (response->error_code() != 0) {
      *error = ErrorText(response->error_code(), response->error_message());
      return false;
    }
    return true;
  }

 private:
  broker::ControllerClient client_;
};

std::string Ids(const google::protobuf::RepeatedField<int32_t>& ids) { return absl::StrJoin(ids, ","); }

std::string TopicIdText(const std::string& bytes) {
  std::string out;
  absl::WebSafeBase64Escape(bytes, &out);
  return out;
}

// Prints per-item results; returns the exit code (1 when any item failed).
template <typename Results>
int PrintResults(const Results& results, bool as_json, const char* what) {
  int code = kExitOk;
  json out = json::array();
  Table table({"NAME", "TOPIC_ID", "RESULT"});
  for (const auto& r : results) {
    std::string result = r.error_code() == 0 ? "ok" : ErrorText(r.error_code(), r.error_message());
    if (r.error_code() != 0) code = kExitFailed;
    out.push_back({{"name", r.name()}, {"topic_id", TopicIdText(r.topic_id())}, {"error_code", r.error_code()},
                   {"error", r.error_code() == 0 ? "" : result}});
    table.Add({r.name(), r.topic_id().empty() ? "-" : TopicIdText(r.topic_id()), result});
    if (r.error_code() != 0 && !as_json) std::cerr << what << " " << r.name() << ": " << result << std::endl;
  }
  if (as_json) {
    std::cout << out.dump() << std::endl;
  } else {
    table.Print(std::cout);
  }
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"strata: administer a Strata cluster through its controllers"};
  app.require_subcommand(1);
  std::string bootstrap;
  if (const char* env = std::getenv("STRATA_BOOTSTRAP_CONTROLLER")) bootstrap = env;
  std::string output = "table";
  app.add_option("--bootstrap-controller", bootstrap,
                 "Controllers: host:port,... or id@host:port,... (default: $STRATA_BOOTSTRAP_CONTROLLER)");
  app.add_option("--output,-o", output, "table (default) or json")->check(CLI::IsMember({"table", "json"}));

  auto* cluster = app.add_subcommand("cluster", "The cluster's brokers")->require_subcommand(1);
  auto* cluster_describe = cluster->add_subcommand("describe", "List the brokers and the active controller");
  auto* quorum = app.add_subcommand("quorum", "The Raft metadata quorum")->require_subcommand(1);
  auto* quorum_describe = quorum->add_subcommand("describe", "Leader, term and commit index");

  auto* topics = app.add_subcommand("topics", "Create, list, describe, delete and alter topics")->require_subcommand(1);
  std::string topic_name;
  int32_t partitions = -1, replication_factor = -1;
  std::vector<std::string> topic_configs;
  std::string assignment;
  auto* topics_create = topics->add_subcommand("create", "Create a topic");
  topics_create->add_option("name", topic_name, "Topic name")->required();
  topics_create->add_option("--partitions", partitions, "Partition count (default: num.partitions)");
  topics_create->add_option("--replication-factor", replication_factor, "Replicas per partition (default: default.replication.factor)");
  topics_create->add_option("--config", topic_configs, "key=value (repeatable)");
  topics_create->add_option("--replica-assignment", assignment, "Per partition, broker ids: 1:2:3,2:3:1");
  auto* topics_list = topics->add_subcommand("list", "List topic names");
  std::vector<std::string> names;
  auto* topics_describe = topics->add_subcommand("describe", "Partitions, leaders, replicas and ISRs");
  topics_describe->add_option("names", names, "Topics (default: all)");
  auto* topics_delete = topics->add_subcommand("delete", "Delete topics");
  topics_delete->add_option("names", names, "Topics")->required();
  auto* topics_alter = topics->add_subcommand("alter", "Add partitions to a topic");
  topics_alter->add_option("name", topic_name, "Topic name")->required();
  topics_alter->add_option("--partitions", partitions, "The new partition count")->required();

  auto* configs = app.add_subcommand("configs", "Topic and broker configs")->require_subcommand(1);
  std::string config_topic, config_broker;
  bool broker_flag = false;
  std::vector<std::string> set_ops, delete_ops;
  auto* configs_describe = configs->add_subcommand("describe", "Show configs");
  auto* configs_alter = configs->add_subcommand("alter", "Set or remove configs");
  for (auto* c : {configs_describe, configs_alter}) {
    c->add_option("--topic", config_topic, "Topic");
    c->add_option("--broker", config_broker, "Broker id (empty: the cluster-wide default)")->expected(0, 1);
  }
  configs_alter->add_option("--set", set_ops, "key=value (repeatable)");
  configs_alter->add_option("--delete", delete_ops, "key (repeatable)");

  auto* leaders = app.add_subcommand("leaders", "Partition leadership")->require_subcommand(1);
  std::string election_type = "preferred";
  std::vector<int32_t> election_partitions;
  auto* leaders_elect = leaders->add_subcommand("elect", "Elect preferred (or unclean) leaders");
  leaders_elect->add_option("--type", election_type, "preferred (default) or unclean")
      ->check(CLI::IsMember({"preferred", "unclean"}));
  leaders_elect->add_option("--topic", topic_name, "Topic (default: every partition)");
  leaders_elect->add_option("--partition", election_partitions, "Partition (repeatable; default: all of the topic)");

  // Global options may also follow the subcommand: strata topics list --output json.
  app.fallthrough();
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->fallthrough();
    for (CLI::App* leaf : sub->get_subcommands({})) leaf->fallthrough();
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  broker_flag = configs_describe->count("--broker") > 0 || configs_alter->count("--broker") > 0;
  if (bootstrap.empty()) {
    std::cerr << "strata: give --bootstrap-controller host:port (or set STRATA_BOOTSTRAP_CONTROLLER)" << std::endl;
    return kExitUsage;
  }
  Admin admin(bootstrap);
  bool as_json = output == "json";
  std::string error;
  auto fail = [&](const std::string& what) {
    std::cerr << "strata: " << what << ": " << error << std::endl;
    return kExitFailed;
  };

  if (*cluster_describe) {
    av1::DescribeClusterResponse r;
    if (!admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &r, &error)) {
      return fail("cluster describe");
    }
    if (as_json) {
      json brokers = json::array();
      for (const auto& b : r.brokers()) {
        json endpoints = json::array();
        for (const auto& e : b.endpoints()) endpoints.push_back(absl::StrCat(e.name(), "://", e.host(), ":", e.port()));
        brokers.push_back({{"id", b.broker_id()}, {"endpoints", endpoints}, {"rack", b.rack()}, {"fenced", b.fenced()},
                           {"in_controlled_shutdown", b.in_controlled_shutdown()}, {"epoch", b.broker_epoch()},
                           {"offline_log_dirs", b.offline_log_dirs()}});
      }
      std::cout << json{{"cluster_id", r.cluster_id()}, {"controller_id", r.controller_id()}, {"brokers", brokers}}.dump()
                << std::endl;
    } else {
      std::cout << "Cluster " << r.cluster_id() << ", active controller " << r.controller_id() << std::endl;
      Table t({"BROKER", "ENDPOINTS", "RACK", "STATE", "EPOCH", "OFFLINE_DIRS"});
      for (const auto& b : r.brokers()) {
        std::vector<std::string> endpoints;
        for (const auto& e : b.endpoints()) endpoints.push_back(absl::StrCat(e.name(), "://", e.host(), ":", e.port()));
        t.Add({std::to_string(b.broker_id()), absl::StrJoin(endpoints, ","), b.rack().empty() ? "-" : b.rack(),
               b.fenced() ? "fenced" : (b.in_controlled_shutdown() ? "shutting-down" : "unfenced"),
               std::to_string(b.broker_epoch()), std::to_string(b.offline_log_dirs())});
      }
      t.Print(std::cout);
    }
    return kExitOk;
  }
  if (*quorum_describe) {
    av1::DescribeQuorumResponse r;
    if (!admin.Call(&av1::AdminService::Stub::DescribeQuorum, av1::DescribeQuorumRequest(), &r, &error)) {
      return fail("quorum describe");
    }
    if (as_json) {
      std::cout << json{{"leader_id", r.leader_id()}, {"leader_epoch", r.leader_epoch()},
                        {"high_watermark", r.high_watermark()}, {"voters", std::vector<int32_t>(r.voters().begin(), r.voters().end())}}
                       .dump()
                << std::endl;
    } else {
      Table t({"LEADER", "TERM", "HIGH_WATERMARK", "VOTERS"});
      t.Add({std::to_string(r.leader_id()), std::to_string(r.leader_epoch()), std::to_string(r.high_watermark()),
             Ids(r.voters())});
      t.Print(std::cout);
    }
    return kExitOk;
  }
  if (*topics_create) {
    av1::CreateTopicsRequest request;
    auto* t = request.add_topics();
    t->set_name(topic_name);
    t->set_num_partitions(partitions);
    t->set_replication_factor(replication_factor);
    for (const std::string& kv : topic_configs) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        std::cerr << "strata: --config '" << kv << "' is not key=value" << std::endl;
        return kExitUsage;
      }
      (*t->mutable_configs())[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (!assignment.empty()) {
      int32_t p = 0;
      for (absl::string_view part : absl::StrSplit(assignment, ',')) {
        auto* a = t->add_assignments();
        a->set_partition_id(p++);
        for (absl::string_view id : absl::StrSplit(part, ':')) {
          int32_t b;
          if (!absl::SimpleAtoi(id, &b)) {
            std::cerr << "strata: --replica-assignment '" << assignment << "' is not like 1:2:3,2:3:1" << std::endl;
            return kExitUsage;
          }
          a->add_broker_ids(b);
        }
      }
    }
    av1::CreateTopicsResponse r;
    if (!admin.Call(&av1::AdminService::Stub::CreateTopics, request, &r, &error)) return fail("topics create");
    return PrintResults(r.topics(), as_json, "create");
  }
  if (*topics_list || *topics_describe) {
    av1::DescribeTopicsRequest request;
    for (const auto& n : names) request.add_names(n);
    av1::DescribeTopicsResponse r;
    if (!admin.Call(&av1::AdminService::Stub::DescribeTopics, request, &r, &error)) return fail("topics describe");
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
    if (as_json) {
      std::cout << out.dump() << std::endl;
    } else {
      (*topics_list ? list : parts).Print(std::cout);
    }
    return code;
  }
  if (*topics_delete) {
    av1::DeleteTopicsRequest request;
    for (const auto& n : names) request.add_names(n);
    av1::DeleteTopicsResponse r;
    if (!admin.Call(&av1::AdminService::Stub::DeleteTopics, request, &r, &error)) return fail("topics delete");
    return PrintResults(r.topics(), as_json, "delete");
  }
  if (*topics_alter) {
    av1::CreatePartitionsRequest request;
    auto* t = request.add_topics();
    t->set_name(topic_name);
    t->set_count(partitions);
    av1::CreatePartitionsResponse r;
    if (!admin.Call(&av1::AdminService::Stub::CreatePartitions, request, &r, &error)) return fail("topics alter");
    return PrintResults(r.topics(), as_json, "alter");
  }
  if (*configs_describe || *configs_alter) {
    if (config_topic.empty() == !broker_flag) {
      std::cerr << "strata: give exactly one of --topic NAME or --broker [ID]" << std::endl;
      return kExitUsage;
    }
    av1::ConfigResource resource;
    resource.set_type(config_topic.empty() ? av1::ConfigResource::BROKER : av1::ConfigResource::TOPIC);
    resource.set_name(config_topic.empty() ? config_broker : config_topic);
    if (*configs_describe) {
      av1::DescribeConfigsRequest request;
      *request.add_resources() = resource;
      av1::DescribeConfigsResponse r;
      if (!admin.Call(&av1::AdminService::Stub::DescribeConfigs, request, &r, &error)) return fail("configs describe");
      const auto& result = r.results(0);
      if (result.error_code() != 0) {
        error = ErrorText(result.error_code(), result.error_message());
        return fail("configs describe");
      }
      json out = json::array();
      Table t({"NAME", "VALUE", "SOURCE"});
      for (const auto& e : result.entries()) {
        out.push_back({{"name", e.name()}, {"value", e.value()}, {"is_default", e.is_default()}});
        t.Add({e.name(), e.value(), e.is_default() ? "default" : "set"});
      }
      if (as_json) {
        std::cout << out.dump() << std::endl;
      } else {
        t.Print(std::cout);
      }
      return kExitOk;
    }
    av1::AlterConfigsRequest request;
    auto* res = request.add_resources();
    *res->mutable_resource() = resource;
    for (const std::string& kv : set_ops) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos) {
        std::cerr << "strata: --set '" << kv << "' is not key=value" << std::endl;
        return kExitUsage;
      }
      auto* op = res->add_ops();
      op->set_name(kv.substr(0, eq));
      op->set_value(kv.substr(eq + 1));
    }
    for (const std::string& k : delete_ops) {
      auto* op = res->add_ops();
      op->set_name(k);
      op->set_remove(true);
    }
    av1::AlterConfigsResponse r;
    if (!admin.Call(&av1::AdminService::Stub::AlterConfigs, request, &r, &error)) return fail("configs alter");
    if (r.results(0).error_code() != 0) {
      error = ErrorText(r.results(0).error_code(), r.results(0).error_message());
      return fail("configs alter");
    }
    std::cout << (as_json ? "{\"result\":\"ok\"}" : "ok") << std::endl;
    return kExitOk;
  }
  if (*leaders_elect) {
    av1::ElectLeadersRequest request;
    request.set_election_type(election_type == "unclean" ? av1::ElectLeadersRequest::UNCLEAN
                                                         : av1::ElectLeadersRequest::PREFERRED);
    if (!topic_name.empty()) {
      auto* tp = request.add_topics();
      tp->set_name(topic_name);
      for (int32_t p : election_partitions) tp->add_partitions(p);
    }
    av1::ElectLeadersResponse r;
    if (!admin.Call(&av1::AdminService::Stub::ElectLeaders, request, &r, &error)) return fail("leaders elect");
    int code = kExitOk;
    json out = json::array();
    Table t({"TOPIC", "PARTITION", "RESULT"});
    for (const auto& e : r.results()) {
      bool ok = e.error_code() == 0 || e.error_code() == static_cast<int32_t>(proto::kafka::ErrorCode::kElectionNotNeeded);
      if (!ok) code = kExitFailed;
      std::string result = e.error_code() == 0 ? "elected" : ErrorText(e.error_code(), e.error_message());
      out.push_back({{"topic", e.topic()}, {"partition", e.partition_id()}, {"error_code", e.error_code()}, {"result", result}});
      t.Add({e.topic(), std::to_string(e.partition_id()), result});
    }
    if (as_json) {
      std::cout << out.dump() << std::endl;
    } else {
      t.Print(std::cout);
    }
    return code;
  }
  return kExitUsage;
}
