#pragma once
// What the strata CLI's subcommand groups share: the exit codes, the Admin client that
// calls the active controller, the Context a command runs with, and the table of leaf
// commands main dispatches on. Each group (cluster.cc, quorum.cc, topics.cc, configs.cc,
// leaders.cc, groups.cc, features.cc, ...) adds its subcommands with an Add*Commands function.
// Not thread-safe: one command runs, on main's thread.

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "CLI/CLI.hpp"
#include "admin.grpc.pb.h"
#include "broker/lifecycle/controller_client.h"
#include "tools/cli/table.h"

namespace strata::cli {

namespace av1 = strata::admin::v1;
using json = nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// "NAME: message" for a Kafka error code (the message left out when empty).
std::string ErrorText(int32_t code, const std::string& message);
// Broker ids as "1,2,3".
std::string Ids(const google::protobuf::RepeatedField<int32_t>& ids);
// A topic id as Kafka prints it (URL-safe base64).
std::string TopicIdText(const std::string& bytes);

// Calls the active controller through ControllerClient (which follows NOT_CONTROLLER);
// false with *error set when no controller answered or it refused the request.
// *unanswered (when given): an attempt went unanswered before the answer (a change may
// have been made by it: ControllerChannel::CallMethod).
class Admin {
 public:
  // credentials: TLS to the controllers (null: plaintext).
  Admin(const std::string& bootstrap, std::shared_ptr<grpc::ChannelCredentials> credentials)
      : client_(broker::ParseControllerAddresses(bootstrap), std::chrono::seconds(30), std::move(credentials)) {}

  template <typename Request, typename Response>
  bool Call(grpc::Status (av1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
            const Request& request, Response* response, std::string* error, bool* unanswered = nullptr) {
    absl::Status s = client_.CallAdmin(method, request, response, std::chrono::seconds(30), unanswered);
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

// What every command runs with, once the arguments are parsed.
struct Context {
  Admin& admin;
  bool as_json = false;
  // The brokers' listener for the commands that talk to brokers (groups, topics describe
  // --tiers); empty: each broker's first listener of the client config's protocol
  // (kafka_call.h BrokerEndpoints).
  std::string listener;
};

// One leaf subcommand (`topics create`, ...) and what runs it (-> exit code) when it is
// the one parsed.
struct Command {
  CLI::App* app;
  std::function<int(const Context&)> run;
};
using Commands = std::vector<Command>;

// Each adds its group to `app` (in the order --help lists the groups) and its leaf
// commands to `commands`.
void AddClusterCommands(CLI::App& app, Commands& commands);
void AddQuorumCommands(CLI::App& app, Commands& commands);
void AddTopicsCommands(CLI::App& app, Commands& commands);
void AddConfigsCommands(CLI::App& app, Commands& commands);
void AddLeadersCommands(CLI::App& app, Commands& commands);
void AddPartitionsCommands(CLI::App& app, Commands& commands);
void AddGroupsCommands(CLI::App& app, Commands& commands);
void AddTransactionsCommands(CLI::App& app, Commands& commands);
void AddUsersCommands(CLI::App& app, Commands& commands);
void AddAclsCommands(CLI::App& app, Commands& commands);
void AddQuotasCommands(CLI::App& app, Commands& commands);
void AddFeaturesCommands(CLI::App& app, Commands& commands);

// Prints "strata: WHAT: ERROR" on stderr; returns kExitFailed.
int Fail(const std::string& what, const std::string& error);

// Prints the table, or `as_json` the JSON value, on stdout.
void Print(const Table& table, const json& as_json_value, bool as_json);

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
  Print(table, out, as_json);
  return code;
}

}  // namespace strata::cli
