// strata quorum describe: the Raft metadata quorum's leader, term and commit index.

#include <string>
#include <vector>

#include "tools/cli/command.h"

namespace strata::cli {
namespace {

int Describe(const Context& ctx) {
  av1::DescribeQuorumResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeQuorum, av1::DescribeQuorumRequest(), &r, &error)) {
    return Fail("quorum describe", error);
  }
  Table t({"LEADER", "TERM", "HIGH_WATERMARK", "VOTERS"});
  t.Add({std::to_string(r.leader_id()), std::to_string(r.leader_epoch()), std::to_string(r.high_watermark()),
         Ids(r.voters())});
  Print(t,
        json{{"leader_id", r.leader_id()},
             {"leader_epoch", r.leader_epoch()},
             {"high_watermark", r.high_watermark()},
             {"voters", std::vector<int32_t>(r.voters().begin(), r.voters().end())}},
        ctx.as_json);
  return kExitOk;
}

}  // namespace

void AddQuorumCommands(CLI::App& app, Commands& commands) {
  auto* quorum = app.add_subcommand("quorum", "The Raft metadata quorum")->require_subcommand(1);
  commands.push_back({quorum->add_subcommand("describe", "Leader, term and commit index"), Describe});
}

}  // namespace strata::cli
