// strata cluster describe: the brokers and the active controller; strata cluster
// balance (partitions.h); strata cluster unregister --broker N: remove a broker's
// registration (kafka-cluster unregister; its replicas leave the ISRs first, and a
// broker process still running registers again).

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/cli/command.h"
#include "tools/cli/partitions.h"

namespace strata::cli {
namespace {

std::string EndpointText(const metadata::v1::BrokerEndpoint& e) {
  return absl::StrCat(e.name(), "://", e.host(), ":", e.port());
}

int Describe(const Context& ctx) {
  av1::DescribeClusterResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &r, &error)) {
    return Fail("cluster describe", error);
  }
  if (ctx.as_json) {
    json brokers = json::array();
    for (const auto& b : r.brokers()) {
      json endpoints = json::array();
      for (const auto& e : b.endpoints()) endpoints.push_back(EndpointText(e));
      brokers.push_back({{"id", b.broker_id()}, {"endpoints", endpoints}, {"rack", b.rack()}, {"fenced", b.fenced()},
                         {"in_controlled_shutdown", b.in_controlled_shutdown()}, {"epoch", b.broker_epoch()},
                         {"offline_log_dirs", b.offline_log_dirs()}});
    }
    std::cout << json{{"cluster_id", r.cluster_id()}, {"controller_id", r.controller_id()}, {"brokers", brokers}}.dump()
              << std::endl;
    return kExitOk;
  }
  std::cout << "Cluster " << r.cluster_id() << ", active controller " << r.controller_id() << std::endl;
  Table t({"BROKER", "ENDPOINTS", "RACK", "STATE", "EPOCH", "OFFLINE_DIRS"});
  for (const auto& b : r.brokers()) {
    std::vector<std::string> endpoints;
    for (const auto& e : b.endpoints()) endpoints.push_back(EndpointText(e));
    t.Add({std::to_string(b.broker_id()), absl::StrJoin(endpoints, ","), b.rack().empty() ? "-" : b.rack(),
           b.fenced() ? "fenced" : (b.in_controlled_shutdown() ? "shutting-down" : "unfenced"),
           std::to_string(b.broker_epoch()), std::to_string(b.offline_log_dirs())});
  }
  t.Print(std::cout);
  return kExitOk;
}

int Unregister(int32_t broker, const Context& ctx) {
  av1::UnregisterBrokerRequest request;
  request.set_broker_id(broker);
  av1::UnregisterBrokerResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::UnregisterBroker, request, &r, &error)) {
    return Fail("cluster unregister", error);
  }
  std::cout << (ctx.as_json ? json{{"broker", broker}, {"result", "unregistered"}}.dump()
                            : absl::StrCat("broker ", broker, " is no longer registered"))
            << std::endl;
  return kExitOk;
}

}  // namespace

void AddClusterCommands(CLI::App& app, Commands& commands) {
  auto* cluster = app.add_subcommand("cluster", "The cluster's brokers")->require_subcommand(1);
  commands.push_back({cluster->add_subcommand("describe", "List the brokers and the active controller"), Describe});
  auto execute = std::make_shared<bool>(false);
  auto throttle = std::make_shared<int64_t>(-1);
  auto* balance = cluster->add_subcommand(
      "balance", "Even out replicas and leaderships over the brokers (prints the plan; --execute starts it)");
  balance->add_flag("--execute", *execute, "Start the plan's reassignments");
  balance->add_option("--throttle", *throttle, "Replication throttle in bytes/s for the moves");
  commands.push_back({balance, [execute, throttle](const Context& ctx) { return Balance(*execute, *throttle, ctx); }});
  auto broker = std::make_shared<int32_t>(-1);
  auto* unregister = cluster->add_subcommand(
      "unregister", "Remove a broker's registration (one that is gone for good; a running one registers again)");
  unregister->add_option("--broker", *broker, "The broker's id")->required();
  commands.push_back({unregister, [broker](const Context& ctx) { return Unregister(*broker, ctx); }});
}

}  // namespace strata::cli
