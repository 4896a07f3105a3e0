// strata-perf: command line entry point; see tools/README.md.

#include <csignal>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "base/deadlock_detection.h"
#include "tools/perf/perf_tool.h"

namespace {

using namespace strata::tools::perf;

void AddCommandConfig(CLI::App* command, CommonOptions& options) {
  command
      ->add_option("--command-config", options.command_config,
                   "A client config file with Kafka's names (security.protocol, ssl.*, sasl.*), as Kafka's tools take")
      ->check(CLI::ExistingFile);
}

void AddCommon(CLI::App* command, CommonOptions& options) {
  command->add_option("--bootstrap-server", options.bootstrap_servers, "Brokers to ask for metadata, host:port,...")
      ->required();
  command->add_option("--topic", options.topic, "The topic")->required();
  command->add_option("--partitions", options.partitions, "all (default) or a list of partitions, 0,2,5");
  command->add_flag("--json", options.json, "Print one JSON object instead of the human lines");
  AddCommandConfig(command, options);
  command
      ->add_option("--timeout-ms", options.timeout_ms,
                   "Longest wait for a response (and for a consume making no progress); default 30000")
      ->check(CLI::Range(1, 3'600'000));
}

}  // namespace

int main(int argc, char** argv) {
  if (absl::Status s = strata::SetDeadlockDetectionFromEnvironment(); !s.ok()) {
    std::cerr << "strata-perf: " << s.message() << std::endl;
    return 2;
  }
  CLI::App app{
      "strata-perf: producer and consumer load over the Kafka protocol (exit codes: 0 ok, 1 errors or "
      "failed requests, 2 usage error)"};
  app.require_subcommand(1);

  ProduceOptions produce;
  CLI::App* produce_cmd = app.add_subcommand(
      "produce",
      "Produce records (null key, random value) to the partitions' leaders; prints records/s, MB/s and "
      "request latency percentiles");
  AddCommon(produce_cmd, produce);
  produce_cmd->add_option("--num-records", produce.num_records, "Records to produce")
      ->required()
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  produce_cmd->add_option("--record-size", produce.record_size, "Value bytes per record (default 1024)")
      ->check(CLI::Range(0, 64 << 20));
  produce_cmd->add_option("--batch-size", produce.batch_size, "Bytes per record batch, as batch.size (default 16384)")
      ->check(CLI::Range(1, 64 << 20));
  produce_cmd->add_option("--acks", produce.acks, "0, 1 (default) or -1 (all)")->check(CLI::IsMember({0, 1, -1}));
  produce_cmd
      ->add_option("--max-in-flight", produce.max_in_flight, "Produce requests pipelined per connection (default 5)")
      ->check(CLI::Range(1, 1000));
  produce_cmd->add_option("--throughput", produce.throughput, "Records/s cap over all partitions (-1: none, default)");

  ConsumeOptions consume;
  CLI::App* consume_cmd = app.add_subcommand(
      "consume",
      "Read every partition from its start to its end offset at the start of the run, validating each "
      "batch; prints records/s, MB/s and fetch latency percentiles");
  AddCommon(consume_cmd, consume);
  consume_cmd->add_option("--num-records", consume.num_records, "Stop after this many records (default: all)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 40));
  consume_cmd->add_option("--fetch-max-bytes", consume.fetch_max_bytes, "Fetch max_bytes (default 52428800)")
      ->check(CLI::Range(1, 1 << 30));
  consume_cmd
      ->add_option("--max-partition-fetch-bytes", consume.partition_max_bytes,
                   "Fetch partition_max_bytes (default 1048576)")
      ->check(CLI::Range(1, 1 << 30));
  consume_cmd->add_option("--fetch-max-wait-ms", consume.max_wait_ms, "Fetch max_wait_ms (default 500)")
      ->check(CLI::Range(0, 60'000));
  consume_cmd->add_flag("!--no-fetch-session", consume.fetch_sessions,
                        "Name every partition in every Fetch (default: an incremental fetch session, KIP-227)");

  ConnectOptions connect;
  CLI::App* connect_cmd = app.add_subcommand(
      "connect",
      "Open connections one after another (TCP, TLS and SASL as --command-config says, then ApiVersions); prints "
      "their latency");
  connect_cmd
      ->add_option("--bootstrap-server", connect.bootstrap_servers, "The broker to connect to, host:port (the first)")
      ->required();
  connect_cmd->add_option("--num-connections", connect.num_connections, "Connections to open (default 100)")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000}));
  connect_cmd->add_flag("--json", connect.json, "Print one JSON object instead of the human line");
  AddCommandConfig(connect_cmd, connect);
  connect_cmd->add_option("--timeout-ms", connect.timeout_ms, "Longest wait for a response; default 30000")
      ->check(CLI::Range(1, 3'600'000));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a broker closing a connection is an error to report, not a signal
  CommonOptions& common = *produce_cmd   ? static_cast<CommonOptions&>(produce)
                          : *connect_cmd ? static_cast<CommonOptions&>(connect)
                                         : static_cast<CommonOptions&>(consume);
  if (!common.command_config.empty()) {
    auto security = strata::client::ReadClientConfig(common.command_config);
    if (!security.ok()) {
      std::cerr << "strata-perf: " << security.status().message() << std::endl;
      return kExitUsage;
    }
    common.security = *std::move(security);
  }
  if (*produce_cmd) return RunProduce(produce, std::cout, std::cerr);
  if (*connect_cmd) return RunConnect(connect, std::cout, std::cerr);
  return RunConsume(consume, std::cout, std::cerr);
}
