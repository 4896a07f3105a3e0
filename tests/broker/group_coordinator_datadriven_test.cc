// The group coordinator's state machine as tables of steps (tests/support/datadriven.h):
// each file under testdata/group_coordinator/ is a story of members joining, syncing,
// heartbeating, leaving and committing, with the answers each step delivers. Members are
// named by aliases (a, b, ...): the coordinator's member ids (a client id and a UUID)
// are printed as the alias that received them. STRATA_REWRITE_TESTDATA=1 rewrites the
// expected answers.
//
// Commands:
//   join <alias> [instance=<id>] [protocols=range,roundrobin] [restarted]   a new alias
//       first gets MEMBER_ID_REQUIRED and its id (KIP-394), then joins with it; a known
//       one rejoins with its id, or without one when restarted (a static member's new
//       process: its old id is then <alias>_old)
//   sync <alias> [generation=N] [assign=a:x,b:y] [instance=<id>]   (generation: the
//       alias's last join)
//   heartbeat <alias> [generation=N] [instance=<id>]
//   leave <alias>...
//   commit <alias> offset=N [generation=N]   (alias "-": without group management)
//   fetch                 the committed offset of orders-0
//   tick <ms>             the clock moves on; due timers and completed writes run
//   describe              the group's state, protocol and members
//   restart               a new coordinator loads what the old one wrote (a failover)

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "broker/group/group_coordinator.h"
#include "storage/clock.h"
#include "tests/support/datadriven.h"
#include "tests/support/memory_group_log.h"

namespace strata::broker {
namespace {

using ::strata::testing::DataDrivenCommand;

class Story {
 public:
  Story() { coordinator_ = Make(); }

  std::string Run(const DataDrivenCommand& c) {
    out_.clear();
    if (c.name == "join") {
      Join(c);
    } else if (c.name == "sync") {
      Sync(c);
    } else if (c.name == "heartbeat") {
      const std::string& alias = Alias(c);
      ErrorCode e = coordinator_->Heartbeat("g", ids_[alias], Instance(c),
                                            static_cast<int32_t>(c.GetInt("generation", generations_[alias])));
      Say(absl::StrCat("heartbeat ", alias, ": ", proto::kafka::ErrorName(e)));
    } else if (c.name == "leave") {
      std::vector<MemberIdentity> who;
      for (const std::string& alias : c.positional) who.push_back({ids_[alias], std::nullopt});
      LeaveGroupResult r = coordinator_->LeaveGroup("g", who);
      std::vector<std::string> each;
      for (size_t i = 0; i < r.members.size(); ++i) {
        each.push_back(absl::StrCat(c.positional[i], "=", proto::kafka::ErrorName(r.members[i])));
      }
      Say(absl::StrCat("leave: ", proto::kafka::ErrorName(r.error), " ", absl::StrJoin(each, " ")));
    } else if (c.name == "commit") {
      Commit(c);
    } else if (c.name == "fetch") {
      OffsetFetchResult r = coordinator_->FetchOffsets("g", std::vector<storage::TopicPartition>{{"orders", 0}});
      Say(absl::StrCat("fetch: ", proto::kafka::ErrorName(r.error), " orders-0=", r.partitions.at(0).offset));
    } else if (c.name == "tick") {
      clock_.Advance(std::stoll(c.positional.at(0)));
      coordinator_->RunDueTimers();
    } else if (c.name == "describe") {
      Describe();
    } else if (c.name == "restart") {
      coordinator_.reset();
      coordinator_ = Make();
      Say("restarted");
    } else {
      ADD_FAILURE() << "line " << c.line_number << ": unknown command " << c.name;
    }
    return Resolve(absl::StrJoin(out_, "\n"));
  }

 private:
  std::unique_ptr<GroupCoordinator> Make() {
    GroupCoordinatorOptions o;
    o.offsets_topic_partitions = 1;
    o.group_initial_rebalance_delay_ms = 3000;
    o.offsets_retention_ms = 60'000;
    o.offsets_retention_check_interval_ms = 1000;
    o.clock = &clock_;
    o.start_thread = false;
    auto c = std::make_unique<GroupCoordinator>(o, &log_);
    c->OnLeadership({{0, 1}}, 1);
    c->RunDueTimers();
    return c;
  }

  static const std::string& Alias(const DataDrivenCommand& c) { return c.positional.at(0); }
  static bool Flag(const DataDrivenCommand& c, const std::string& name) {
    return std::find(c.positional.begin(), c.positional.end(), name) != c.positional.end();
  }
  static std::optional<std::string> Instance(const DataDrivenCommand& c) {
    if (!c.Has("instance")) return std::nullopt;
    return c.Get("instance");
  }

  void Say(std::string line) { out_.push_back(std::move(line)); }

  // An id, printed as the alias that was given it once the command is over (a static
  // member learns its id only from its own answer, which may come after another's).
  static std::string Named(const std::string& id) { return id.empty() ? "-" : "{" + id + "}"; }
  std::string Resolve(std::string text) const {
    for (size_t open = text.find('{'); open != std::string::npos; open = text.find('{', open + 1)) {
      size_t close = text.find('}', open);
      if (close == std::string::npos) break;
      const std::string id = text.substr(open + 1, close - open - 1);
      std::string alias = "?";
      for (const auto& [name, known] : ids_) {
        if (known == id) alias = name;
      }
      text.replace(open, close - open + 1, alias);
    }
    return text;
  }

  void Join(const DataDrivenCommand& c) {
    const std::string alias = Alias(c);
    JoinGroupParams p;
    p.group_id = "g";
    p.client_id = alias;
    p.session_timeout_ms = 10000;
    p.rebalance_timeout_ms = 30000;
    p.protocol_type = "consumer";
    for (absl::string_view name : absl::StrSplit(c.Get("protocols", "range"), ',')) {
      p.protocols.push_back({std::string(name), absl::StrCat("meta-", alias)});
    }
    if (c.Has("instance")) p.group_instance_id = c.Get("instance");
    p.require_known_member_id = true;
    if (!ids_.count(alias) && !p.group_instance_id) {
      // KIP-394: the first join learns the member id.
      coordinator_->JoinGroup(p, [this, alias](JoinGroupResult r) {
        ids_[alias] = r.member_id;
        Say(absl::StrCat("join ", alias, ": ", proto::kafka::ErrorName(r.error)));
      });
    }
    p.member_id = ids_.count(alias) && !Flag(c, "restarted") ? ids_[alias] : "";
    coordinator_->JoinGroup(p, [this, alias](JoinGroupResult r) {
      if (!r.member_id.empty() && !ids_.count(alias)) ids_[alias] = r.member_id;
      if (!r.member_id.empty() && r.member_id != ids_[alias]) {  // a static member's new id
        ids_[alias + "_old"] = ids_[alias];
        ids_[alias] = r.member_id;
      }
      if (r.error != ErrorCode::kNone) {
        Say(absl::StrCat("join ", alias, ": ", proto::kafka::ErrorName(r.error)));
        return;
      }
      generations_[alias] = r.generation_id;
      std::vector<std::string> members;
      for (const auto& m : r.members) members.push_back(Named(m.member_id));
      Say(absl::StrCat("join ", alias, ": generation ", r.generation_id, " protocol ", r.protocol_name.value_or("-"),
                       " leader ", Named(r.leader_id), members.empty() ? "" : " members ",
                       absl::StrJoin(members, ","), r.skip_assignment ? " skip_assignment" : ""));
    });
    coordinator_->RunDueTimers();  // a write the join made completes
  }

  void Sync(const DataDrivenCommand& c) {
    const std::string alias = Alias(c);
    SyncGroupParams p;
    p.group_id = "g";
    p.member_id = ids_[alias];
    p.group_instance_id = Instance(c);
    p.generation_id = static_cast<int32_t>(c.GetInt("generation", generations_[alias]));
    if (c.Has("assign")) {
      for (absl::string_view pair : absl::StrSplit(c.Get("assign"), ',')) {
        std::vector<std::string> kv = absl::StrSplit(pair, ':');
        p.assignments.push_back({ids_[kv.at(0)], kv.at(1)});
      }
    }
    coordinator_->SyncGroup(p, [this, alias](SyncGroupResult r) {
      if (r.error != ErrorCode::kNone) return Say(absl::StrCat("sync ", alias, ": ", proto::kafka::ErrorName(r.error)));
      Say(absl::StrCat("sync ", alias, ": assignment ", r.assignment.empty() ? "-" : r.assignment));
    });
    coordinator_->RunDueTimers();  // the assignment's write completes
  }

  void Commit(const DataDrivenCommand& c) {
    const std::string alias = Alias(c);
    OffsetCommitParams p;
    p.group_id = "g";
    p.member_id = alias == "-" ? "" : ids_[alias];
    p.generation_id = static_cast<int32_t>(c.GetInt("generation", alias == "-" ? -1 : generations_[alias]));
    p.partitions = {{"orders", 0, c.GetInt("offset", 0), -1, std::nullopt}};
    coordinator_->CommitOffsets(p, [this, alias](std::vector<PartitionError> r) {
      Say(absl::StrCat("commit ", alias, ": ", proto::kafka::ErrorName(r.at(0).error)));
    });
    coordinator_->RunDueTimers();
  }

  void Describe() {
    GroupDescription d = coordinator_->DescribeGroup("g");
    std::vector<std::string> members;
    for (const auto& m : d.members) {
      members.push_back(absl::StrCat(Named(m.member_id), m.group_instance_id ? "(" + *m.group_instance_id + ")" : "",
                                     m.assignment.empty() ? "" : "=" + m.assignment));
    }
    Say(absl::StrCat("group g: ", GroupStateName(d.state), " protocol ", d.protocol_name.empty() ? "-" : d.protocol_name,
                     " members ", members.empty() ? "-" : absl::StrJoin(members, ",")));
  }

  storage::ManualClock clock_;
  testing::MemoryGroupLog log_;
  std::map<std::string, std::string> ids_;       // alias -> member id
  std::map<std::string, int32_t> generations_;  // alias -> generation of its last join
  std::vector<std::string> out_;
  // Last: a coordinator going away answers the requests still waiting, into the above.
  std::unique_ptr<GroupCoordinator> coordinator_;
};

class GroupCoordinatorStories : public ::testing::TestWithParam<std::string> {};

TEST_P(GroupCoordinatorStories, AnswersAreTheTables) {
  Story story;
  ::strata::testing::RunDataDriven(std::string(STRATA_TESTDATA_DIR) + "/group_coordinator/" + GetParam() + ".txt",
                         [&](const DataDrivenCommand& c) { return story.Run(c); });
}

INSTANTIATE_TEST_SUITE_P(Files, GroupCoordinatorStories,
                         ::testing::Values("rebalance", "static_members", "sessions_and_offsets"));

}  // namespace
}  // namespace strata::broker
