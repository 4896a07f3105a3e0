// strata leaders elect: preferred (or unclean) leader election.

#include <memory>
#include <string>
#include <vector>

#include "proto/kafka/error_code.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

struct ElectOptions {
  std::string type = "preferred";
  std::string topic;  // empty: every partition
  std::vector<int32_t> partitions;
};

int Elect(const ElectOptions& o, const Context& ctx) {
  av1::ElectLeadersRequest request;
  request.set_election_type(o.type == "unclean" ? av1::ElectLeadersRequest::UNCLEAN
                                                : av1::ElectLeadersRequest::PREFERRED);
  if (!o.topic.empty()) {
    auto* tp = request.add_topics();
    tp->set_name(o.topic);
    for (int32_t p : o.partitions) tp->add_partitions(p);
  }
  av1::ElectLeadersResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::ElectLeaders, request, &r, &error)) return Fail("leaders elect", error);
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
  Print(t, out, ctx.as_json);
  return code;
}

}  // namespace

void AddLeadersCommands(CLI::App& app, Commands& commands) {
  auto* leaders = app.add_subcommand("leaders", "Partition leadership")->require_subcommand(1);
  auto elect = std::make_shared<ElectOptions>();
  auto* elect_cmd = leaders->add_subcommand("elect", "Elect preferred (or unclean) leaders");
  elect_cmd->add_option("--type", elect->type, "preferred (default) or unclean")
      ->check(CLI::IsMember({"preferred", "unclean"}));
  elect_cmd->add_option("--topic", elect->topic, "Topic (default: every partition)");
  elect_cmd->add_option("--partition", elect->partitions, "Partition (repeatable; default: all of the topic)");
  commands.push_back({elect_cmd, [elect](const Context& ctx) { return Elect(*elect, ctx); }});
}

}  // namespace strata::cli
