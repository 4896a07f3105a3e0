// strata quorum describe | add-voter | remove-voter: the Raft metadata quorum's leader,
// term, commit index and voters; a dynamic quorum's (KIP-853) voters changed one at a time
// through the active controller.

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/kafka/error_code.h"
#include "server/server_config.h"
#include "storage/meta_properties.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

using proto::kafka::ErrorCode;

std::string DirectoryText(const std::string& bytes) {
  return bytes.size() == 16 ? storage::EncodeBase64Uuid(bytes) : std::string("-");
}

int Describe(const Context& ctx, bool local) {
  av1::DescribeQuorumResponse r;
  std::string error;
  av1::DescribeQuorumRequest request;
  request.set_local(local);
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeQuorum, request, &r, &error)) {
    return Fail("quorum describe", error);
  }
  Table t({"LEADER", "TERM", "HIGH_WATERMARK", "VOTERS", "KRAFT_VERSION"});
  t.Add({std::to_string(r.leader_id()), std::to_string(r.leader_epoch()), std::to_string(r.high_watermark()),
         Ids(r.voters()), std::to_string(r.kraft_version())});
  json voters = json::array();
  for (const auto& v : r.voter_states()) {
    json endpoints = json::array();
    for (const auto& n : r.nodes()) {
      if (n.node_id() != v.replica_id()) continue;
      for (const auto& l : n.listeners()) endpoints.push_back(absl::StrCat(l.name(), "://", l.host(), ":", l.port()));
    }
    voters.push_back({{"id", v.replica_id()},
                      {"directory_id", DirectoryText(v.replica_directory_id())},
                      {"log_end_offset", v.log_end_offset()},
                      {"last_fetch_timestamp", v.last_fetch_timestamp()},
                      {"last_caught_up_timestamp", v.last_caught_up_timestamp()},
                      {"endpoints", endpoints}});
  }
  json observers = json::array();
  for (const auto& o : r.observers()) {
    observers.push_back({{"id", o.replica_id()},
                         {"directory_id", DirectoryText(o.replica_directory_id())},
                         {"log_end_offset", o.log_end_offset()}});
  }
  if (!ctx.as_json && !r.voter_states().empty()) {
    Print(t, json(), false);
    Table states({"REPLICA", "DIRECTORY_ID", "LOG_END_OFFSET", "ROLE"});
    for (const auto& v : r.voter_states()) {
      states.Add({std::to_string(v.replica_id()), DirectoryText(v.replica_directory_id()),
                  std::to_string(v.log_end_offset()), v.replica_id() == r.leader_id() ? "Leader" : "Follower"});
    }
    for (const auto& o : r.observers()) {
      states.Add({std::to_string(o.replica_id()), DirectoryText(o.replica_directory_id()),
                  std::to_string(o.log_end_offset()), "Observer"});
    }
    std::cout << std::endl;
    Print(states, json(), false);
    return kExitOk;
  }
  Print(t,
        json{{"leader_id", r.leader_id()},
             {"leader_epoch", r.leader_epoch()},
             {"high_watermark", r.high_watermark()},
             {"kraft_version", r.kraft_version()},
             {"voters", std::vector<int32_t>(r.voters().begin(), r.voters().end())},
             {"voter_states", voters},
             {"observers", observers}},
        ctx.as_json);
  return kExitOk;
}

// The voter a command names: --id, --directory-id and --endpoint, or --config, which
// reads them from the node's server.properties and its metadata.log.dir's meta.properties
// as Kafka's add-controller does.
struct VoterArgs {
  int32_t id = 0;
  std::string directory_id;           // base64
  std::vector<std::string> endpoints;  // NAME://host:port
  std::string config;
  double timeout_seconds = 60;

  // INVALID_ARGUMENT-style message in *error, false, when the voter is not fully named.
  bool Resolve(bool need_endpoints, std::string* error) {
    if (!config.empty()) {
      auto c = server::ServerConfig::Load(config);
      if (!c.ok()) return Fail(error, std::string(c.status().message()));
      if (!c->controller) return Fail(error, absl::StrCat(config, " is not a controller's (process.roles)"));
      auto meta = storage::CheckFormatted(*storage::FileOps::Default(), c->metadata_log_dir, c->node_id);
      if (!meta.ok()) return Fail(error, std::string(meta.status().message()));
      id = c->node_id;
      directory_id = meta->directory_id;
      auto [host, port] = c->ControllerAdvertised();
      endpoints = {absl::StrCat(c->controller_listener_names, "://", host, ":", port)};
    }
    if (id <= 0) return Fail(error, "name the voter: --id and --directory-id, or --config");
    if (!storage::DecodeBase64Uuid(directory_id).ok()) {
      return Fail(error, absl::StrCat("--directory-id '", directory_id, "' is not a base64 uuid (22 characters)"));
    }
    if (need_endpoints && endpoints.empty()) return Fail(error, "name its endpoint: --endpoint CONTROLLER://host:port");
    return true;
  }
  static bool Fail(std::string* error, std::string why) {
    *error = std::move(why);
    return false;
  }
};

bool AddListeners(const VoterArgs& args, av1::AddRaftVoterRequest* request, std::string* error) {
  auto listeners = server::ParseListeners(absl::StrJoin(args.endpoints, ","));
  if (!listeners.ok()) {
    *error = std::string(listeners.status().message());
    return false;
  }
  for (const server::Listener& l : *listeners) {
    av1::RaftVoterEndpoint* e = request->add_listeners();
    e->set_name(l.name);
    e->set_host(l.host);
    e->set_port(l.port);
  }
  return true;
}

// Whether the quorum is as a change wants it, by the leader: the voter is one with this
// directory id (add), or no voter has this id (remove).
bool ChangeHolds(const Context& ctx, const VoterArgs& args, bool add) {
  av1::DescribeQuorumResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeQuorum, av1::DescribeQuorumRequest(), &r, &error)) {
    return false;
  }
  for (const auto& v : r.voter_states()) {
    if (v.replica_id() == args.id) return add && DirectoryText(v.replica_directory_id()) == args.directory_id;
  }
  return !add;
}

// Sends the change until it is done, refused for good, or the timeout passes: a change
// in progress, a leader not ready and a voter still catching up are retried (each attempt
// asks for at most 25 s, within the Admin client's deadline). An answer that the change
// is done already (DUPLICATE_VOTER, VOTER_NOT_FOUND) after an attempt that may have made
// it (retried, or unanswered: a leader killed before its answer) is success when the
// leader's voters show it.
template <typename Request>
int RunChange(const Context& ctx, const char* what, const VoterArgs& args, Request request,
              grpc::Status (av1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                               av1::RaftVoterChangeResponse*),
              ErrorCode done_already) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(args.timeout_seconds * 1000));
  bool retried = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    request.set_timeout_ms(static_cast<int32_t>(std::clamp<int64_t>(left.count(), 1000, 25000)));
    av1::RaftVoterChangeResponse r;
    std::string error;
    bool unanswered = false;
    if (ctx.admin.Call(method, request, &r, &error, &unanswered)) break;
    retried = retried || unanswered;
    // A retry of a change that did happen before its answer was lost.
    if (retried && r.error_code() == static_cast<int32_t>(done_already) &&
        ChangeHolds(ctx, args, done_already == ErrorCode::kDuplicateVoter)) {
      break;
    }
    const bool retriable = r.error_code() == static_cast<int32_t>(ErrorCode::kRequestTimedOut) ||
                           r.error_code() == static_cast<int32_t>(ErrorCode::kNotController);
    if (!retriable || Clock::now() + std::chrono::seconds(1) >= deadline) return Fail(what, error);
    std::cerr << "strata: " << what << ": " << error << "; retrying" << std::endl;
    retried = true;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (ctx.as_json) {
    std::cout << json{{"voter_id", args.id}, {"directory_id", args.directory_id}, {"result", "ok"}}.dump() << std::endl;
  } else {
    std::cout << what << ": voter " << args.id << " (directory " << args.directory_id << ") done" << std::endl;
  }
  return kExitOk;
}

void AddVoterOptions(CLI::App* cmd, VoterArgs* args, bool endpoints) {
  cmd->add_option("--id", args->id, "The voter's node id");
  cmd->add_option("--directory-id", args->directory_id,
                  "The directory.id of its metadata.log.dir (meta.properties; strata quorum describe shows it)");
  if (endpoints) {
    cmd->add_option("--endpoint", args->endpoints, "Its controller listener, CONTROLLER://host:port (repeatable)");
  }
  cmd->add_option("--config", args->config,
                  "Its server.properties: node.id, the controller listener and metadata.log.dir's directory id");
  cmd->add_option("--timeout", args->timeout_seconds, "Seconds to keep trying (default 60)")
      ->check(CLI::Range(1.0, 3600.0));
}

int AddVoter(const Context& ctx, VoterArgs& args) {
  constexpr char kWhat[] = "quorum add-voter";
  std::string error;
  if (!args.Resolve(true, &error)) return Fail(kWhat, error);
  av1::AddRaftVoterRequest request;
  request.set_voter_id(args.id);
  request.set_voter_directory_id(*storage::DecodeBase64Uuid(args.directory_id));
  if (!AddListeners(args, &request, &error)) return Fail(kWhat, error);
  return RunChange(ctx, kWhat, args, request, &av1::AdminService::Stub::AddRaftVoter, ErrorCode::kDuplicateVoter);
}

int RemoveVoter(const Context& ctx, VoterArgs& args) {
  constexpr char kWhat[] = "quorum remove-voter";
  std::string error;
  if (!args.Resolve(false, &error)) return Fail(kWhat, error);
  av1::RemoveRaftVoterRequest request;
  request.set_voter_id(args.id);
  request.set_voter_directory_id(*storage::DecodeBase64Uuid(args.directory_id));
  return RunChange(ctx, kWhat, args, request, &av1::AdminService::Stub::RemoveRaftVoter, ErrorCode::kVoterNotFound);
}

}  // namespace

void AddQuorumCommands(CLI::App& app, Commands& commands) {
  auto* quorum = app.add_subcommand("quorum", "The Raft metadata quorum")->require_subcommand(1);
  auto local = std::make_shared<bool>(false);
  auto* describe = quorum->add_subcommand("describe", "Leader, term, commit index and voters (the leader's view)");
  describe->add_flag("--local", *local,
                     "The view of the controller --bootstrap-controller names (its leader, term and commit index), "
                     "whoever leads");
  commands.push_back({describe, [local](const Context& ctx) { return Describe(ctx, *local); }});

  auto add_args = std::make_shared<VoterArgs>();
  auto* add = quorum->add_subcommand(
      "add-voter", "Add a controller to a dynamic quorum's voters (it catches up first; KIP-853 AddRaftVoter)");
  AddVoterOptions(add, add_args.get(), true);
  commands.push_back({add, [add_args](const Context& ctx) { return AddVoter(ctx, *add_args); }});
  auto remove_args = std::make_shared<VoterArgs>();
  auto* remove = quorum->add_subcommand(
      "remove-voter", "Remove a controller from a dynamic quorum's voters (KIP-853 RemoveRaftVoter)");
  AddVoterOptions(remove, remove_args.get(), false);
  commands.push_back({remove, [remove_args](const Context& ctx) { return RemoveVoter(ctx, *remove_args); }});
}

}  // namespace strata::cli
