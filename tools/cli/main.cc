// strata: the admin command line. Talks gRPC (proto/admin.proto) to the controllers
// named by --bootstrap-controller (or STRATA_BOOTSTRAP_CONTROLLER): "host:port,..." or
// "id@host:port,..." (controller.quorum.voters' form, which lets it follow NOT_CONTROLLER
// straight to the leader). Prints tables, or JSON with --output json. Exit codes: 0 done,
// 1 the cluster refused or failed (one line on stderr says why), 2 usage error.
// --command-config FILE (or STRATA_COMMAND_CONFIG) names a client config file with
// Kafka's setting names, for mutual TLS to the controllers (tools/cli/command_config.h).
//   strata cluster describe | balance [--execute] | unregister --broker N
//   strata quorum describe
//   strata topics create NAME [--partitions N] [--replication-factor R] [--config k=v]...
//                              [--replica-assignment 1:2:3,2:3:1]
//   strata topics list | describe [NAME...] | delete NAME... | alter NAME --partitions N
//   strata configs describe (--topic NAME | --broker [ID]) | alter (--topic NAME | --broker [ID])
//                           [--set k=v]... [--delete k]...
//   strata leaders elect [--type preferred|unclean] [--topic NAME [--partition P]...]
//   strata partitions reassign generate --topic T... --brokers 1,2,3 | execute --plan F | verify --plan F
//                              | cancel --plan F | list [--topic T]...
//   strata groups list | describe GROUP... [--members] | delete GROUP...
//   strata users list | describe NAME... | set NAME [--mechanism M] (--password P | --password-file F)
//                [--iterations N] | delete NAME [--mechanism M]
//   strata acls add | list | remove [--topic T | --group G | --cluster | --transactional-id X]
//               [--pattern literal|prefixed] [--principal User:name] [--host H] [--operation OP]... [--deny]
//   strata quotas describe | alter [--user U | --user-default] [--client-id C | --client-id-default]
//                 [--ip A | --ip-default] [--add key=value]... [--delete key]... [--validate-only]
//   strata features describe | upgrade --feature name=level... [--dry-run]
//                   | downgrade --feature name=level... [--unsafe] [--dry-run]
//   strata groups reset-offsets GROUP (--topic T[:P,P...]... | --all-topics)
//   strata transactions list [--state S]... [--producer-id ID]... | describe ID...
//                 (--to-earliest | --to-latest | --to-datetime TS | --to-offset N | --shift-by N) [--execute]
// The groups commands ask the brokers (the group coordinators, the partitions' leaders)
// over the Kafka protocol; the brokers and topics come from the controllers.
// Each group lives in a file of its own (cluster.cc, quorum.cc, topics.cc, configs.cc,
// leaders.cc, groups.cc); this file parses the global options and runs the one command parsed.

#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tools/cli/command.h"
#include "tools/cli/command_config.h"
#include "tools/cli/kafka_call.h"

int main(int argc, char** argv) {
  using namespace strata::cli;
  CLI::App app{"strata: administer a Strata cluster through its controllers"};
  app.require_subcommand(1);
  std::string bootstrap;
  if (const char* env = std::getenv("STRATA_BOOTSTRAP_CONTROLLER")) bootstrap = env;
  std::string command_config;
  if (const char* env = std::getenv("STRATA_COMMAND_CONFIG")) command_config = env;
  std::string output = "table";
  std::string listener;
  if (const char* env = std::getenv("STRATA_LISTENER")) listener = env;
  app.add_option("--bootstrap-controller", bootstrap,
                 "Controllers: host:port,... or id@host:port,... (default: $STRATA_BOOTSTRAP_CONTROLLER)");
  app.add_option("--command-config", command_config,
                 "A client config file: security.protocol=SSL, ssl.keystore.location, ssl.truststore.location (PEM) "
                 "for mutual TLS to the controllers (default: $STRATA_COMMAND_CONFIG)");
  app.add_option("--output,-o", output, "table (default) or json")->check(CLI::IsMember({"table", "json"}));
  app.add_option("--listener", listener,
                 "The brokers' listener (by name) that commands talking to brokers use (groups, topics describe "
                 "--tiers), of the command config's security.protocol; default $STRATA_LISTENER, else each broker's "
                 "first listener of that protocol");

  Commands commands;
  for (auto add : {AddClusterCommands, AddQuorumCommands, AddTopicsCommands, AddConfigsCommands, AddLeadersCommands,
                    AddPartitionsCommands, AddGroupsCommands, AddTransactionsCommands, AddUsersCommands, AddAclsCommands, AddQuotasCommands,
                    AddFeaturesCommands}) {
    add(app, commands);
  }

  // Global options may also follow the subcommand: strata topics list --output json.
  std::function<void(CLI::App*)> fall_through = [&](CLI::App* a) {
    a->fallthrough();
    for (CLI::App* sub : a->get_subcommands({})) fall_through(sub);
  };
  fall_through(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (bootstrap.empty()) {
    std::cerr << "strata: give --bootstrap-controller host:port (or set STRATA_BOOTSTRAP_CONTROLLER)" << std::endl;
    return kExitUsage;
  }
  absl::StatusOr<CommandConfig> client_config = ReadCommandConfig(command_config);
  if (!client_config.ok()) {
    std::cerr << "strata: " << client_config.status().message() << std::endl;
    return kExitUsage;
  }
  strata::cli::SetBrokerSecurity(client_config->broker_security);
  Admin admin(bootstrap, strata::security::ChannelCredentials(client_config->controller_tls));
  const Context context{admin, output == "json", listener};
  for (const Command& command : commands) {
    if (*command.app) return command.run(context);
  }
  return kExitUsage;
}
