// strata transactions list | describe: transactional ids and their transactions, as
// Kafka's kafka-transactions.sh shows them (docs/transactions.md). The controllers name
// the brokers; list asks each broker's transaction coordinator (ListTransactions v1),
// describe finds each id's coordinator (FindCoordinator v4, key type 1) and asks it
// (DescribeTransactions v0).

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/kafka/describe_transactions.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/list_transactions.h"
#include "tools/cli/groups.h"

namespace strata::cli {

namespace kafka = proto::kafka;

namespace {

constexpr int16_t kListTransactionsVersion = 1;
constexpr int16_t kDescribeTransactionsVersion = 0;
constexpr int16_t kFindCoordinatorVersion = 4;

std::string ErrorOf(int16_t code) { return std::string(kafka::ErrorName(static_cast<kafka::ErrorCode>(code))); }

struct ListOptions {
  std::vector<std::string> states;
  std::vector<int64_t> producer_ids;
};

// ListTransactions at every broker: each answers the ids it coordinates.
int List(const ListOptions& options, const Context& ctx) {
  auto brokers = ListBrokers(ctx);
  if (!brokers.ok()) return Fail("transactions list", std::string(brokers.status().message()));
  int code = kExitOk;
  struct Listed {
    kafka::ListTransactionsResponse::TransactionState txn;
    int32_t coordinator;
  };
  std::vector<Listed> listed;
  std::set<std::string> unknown;  // state names the brokers do not know
  kafka::ListTransactionsRequest request;
  request.state_filters = options.states;
  request.producer_id_filters = options.producer_ids;
  for (const auto& [id, endpoint] : *brokers) {
    auto connection = ConnectBroker(endpoint);
    absl::StatusOr<kafka::ListTransactionsResponse> r =
        connection.ok() ? KafkaCall(**connection, kafka::ApiKey::kListTransactions, kListTransactionsVersion, request,
                                    kafka::WriteListTransactionsRequest, kafka::ReadListTransactionsResponse)
                        : absl::StatusOr<kafka::ListTransactionsResponse>(connection.status());
    const std::string what = absl::StrCat("transactions list: broker ", id, " (", HostPort(endpoint), ")");
    if (!r.ok()) {
      code = Fail(what, std::string(r.status().message()));
      continue;
    }
    if (r->error_code != 0) code = Fail(what, ErrorOf(r->error_code));
    unknown.insert(r->unknown_state_filters.begin(), r->unknown_state_filters.end());
    for (auto& t : r->transaction_states) listed.push_back({std::move(t), id});
  }
  if (!unknown.empty()) code = Fail("transactions list", absl::StrCat("unknown states: ", absl::StrJoin(unknown, ", ")));
  std::sort(listed.begin(), listed.end(),
            [](const Listed& a, const Listed& b) { return a.txn.transactional_id < b.txn.transactional_id; });
  json out = json::array();
  Table table({"TRANSACTIONAL_ID", "STATE", "PRODUCER_ID", "COORDINATOR"});
  for (const Listed& l : listed) {
    out.push_back({{"transactional_id", l.txn.transactional_id}, {"state", l.txn.transaction_state},
                   {"producer_id", l.txn.producer_id}, {"coordinator", l.coordinator}});
    table.Add({l.txn.transactional_id, l.txn.transaction_state, std::to_string(l.txn.producer_id),
               std::to_string(l.coordinator)});
  }
  Print(table, out, ctx.as_json);
  return code;
}

// The coordinator of a transactional id, asked of the first broker that answers.
absl::StatusOr<std::pair<int32_t, Endpoint>> FindTransactionCoordinator(const std::map<int32_t, Endpoint>& brokers,
                                                                         const std::string& id) {
  absl::Status last = absl::UnavailableError("no broker");
  kafka::FindCoordinatorRequest request;
  request.key_type = kafka::kCoordinatorKeyTypeTransaction;
  request.coordinator_keys = {id};
  for (const auto& [broker, endpoint] : brokers) {
    auto connection = ConnectBroker(endpoint);
    if (!connection.ok()) {
      last = connection.status();
      continue;
    }
    auto r = KafkaCall(**connection, kafka::ApiKey::kFindCoordinator, kFindCoordinatorVersion, request,
                       kafka::WriteFindCoordinatorRequest, kafka::ReadFindCoordinatorResponse);
    if (!r.ok()) {
      last = r.status();
      continue;
    }
    if (r->coordinators.empty()) return absl::DataLossError("FindCoordinator answered no coordinator");
    const auto& c = r->coordinators.front();
    if (c.error_code != 0) {
      return absl::UnavailableError(absl::StrCat(ErrorOf(c.error_code), c.error_message ? ": " + *c.error_message : ""));
    }
    return std::make_pair(c.node_id, Endpoint{c.host, c.port});
  }
  return last;
}

int Describe(const std::vector<std::string>& ids, const Context& ctx) {
  auto brokers = ListBrokers(ctx);
  if (!brokers.ok()) return Fail("transactions describe", std::string(brokers.status().message()));
  int code = kExitOk;
  json out = json::array();
  Table table({"TRANSACTIONAL_ID", "COORDINATOR", "STATE", "PRODUCER_ID", "EPOCH", "TIMEOUT_MS", "START_MS",
               "PARTITIONS"});
  for (const std::string& id : ids) {
    const std::string what = absl::StrCat("transactions describe ", id);
    auto coordinator = FindTransactionCoordinator(*brokers, id);
    if (!coordinator.ok()) {
      code = Fail(what, std::string(coordinator.status().message()));
      continue;
    }
    auto connection = ConnectBroker(coordinator->second);
    if (!connection.ok()) {
      code = Fail(what, std::string(connection.status().message()));
      continue;
    }
    auto r = KafkaCall(**connection, kafka::ApiKey::kDescribeTransactions, kDescribeTransactionsVersion,
                       kafka::DescribeTransactionsRequest{{id}}, kafka::WriteDescribeTransactionsRequest,
                       kafka::ReadDescribeTransactionsResponse);
    if (!r.ok() || r->transaction_states.empty()) {
      code = Fail(what, r.ok() ? "no answer for it" : std::string(r.status().message()));
      continue;
    }
    const auto& s = r->transaction_states.front();
    if (s.error_code != 0) {
      code = Fail(what, ErrorOf(s.error_code));
      continue;
    }
    std::vector<std::string> partitions;
    json parts = json::array();
    for (const auto& t : s.topics) {
      for (int32_t p : t.partitions) {
        partitions.push_back(absl::StrCat(t.topic, "-", p));
        parts.push_back({{"topic", t.topic}, {"partition", p}});
      }
    }
    out.push_back({{"transactional_id", id}, {"coordinator", coordinator->first}, {"state", s.transaction_state},
                   {"producer_id", s.producer_id}, {"producer_epoch", s.producer_epoch},
                   {"timeout_ms", s.transaction_timeout_ms},
                   {"start_ms", s.transaction_start_time_ms < 0 ? json(nullptr) : json(s.transaction_start_time_ms)},
                   {"partitions", parts}});
    table.Add({id, std::to_string(coordinator->first), s.transaction_state, std::to_string(s.producer_id),
               std::to_string(s.producer_epoch), std::to_string(s.transaction_timeout_ms),
               s.transaction_start_time_ms < 0 ? "-" : std::to_string(s.transaction_start_time_ms),
               partitions.empty() ? "-" : absl::StrJoin(partitions, ",")});
  }
  Print(table, out, ctx.as_json);
  return code;
}

}  // namespace

void AddTransactionsCommands(CLI::App& app, Commands& commands) {
  auto* txns = app.add_subcommand("transactions", "List and describe transactional ids and their transactions")
                   ->require_subcommand(1);
  auto list = std::make_shared<ListOptions>();
  auto* list_cmd = txns->add_subcommand("list", "Every transactional id of the cluster: state, producer id, coordinator");
  list_cmd->add_option("--state", list->states,
                       "Only these states (Empty, Ongoing, PrepareCommit, PrepareAbort, CompleteCommit, CompleteAbort)");
  list_cmd->add_option("--producer-id", list->producer_ids, "Only these producer ids");
  commands.push_back({list_cmd, [list](const Context& ctx) { return List(*list, ctx); }});
  auto ids = std::make_shared<std::vector<std::string>>();
  auto* describe_cmd = txns->add_subcommand(
      "describe", "Per transactional id: its coordinator, state, producer id and epoch, timeout, and the partitions of "
                  "its open transaction");
  describe_cmd->add_option("ids", *ids, "Transactional ids")->required();
  commands.push_back({describe_cmd, [ids](const Context& ctx) { return Describe(*ids, ctx); }});
}

}  // namespace strata::cli
