// strata-storage: command line entry point; see tools/README.md.

#include <spdlog/sinks/stdout_color_sinks.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "base/logging.h"
#include "storage/meta_properties.h"
#include "tools/storage/storage_tool.h"

int main(int argc, char** argv) {
  using namespace strata::tools;
  CLI::App app{"strata-storage: offline tools for Strata log directories (exit codes: 0 ok, 1 problem found, "
               "2 usage error)"};
  app.require_subcommand(1);
  bool verbose = false;
  app.add_flag("-v,--verbose", verbose, "Show the storage engine's log messages (on stderr)");

  DumpOptions dump;
  std::string output = "text";
  CLI::App* dump_cmd = app.add_subcommand(
      "dump", "Print the batches, entries or producers of .log, .index, .timeindex, .snapshot, checkpoint and "
              "meta.properties files");
  dump_cmd->add_option("files", dump.files, "Files to dump")->required();
  dump_cmd->add_flag("--records", dump.records, "Also print every record (compressed batches decompressed)");
  dump_cmd->add_option("--output", output, "text (default) or json (one JSON object per line)")
      ->check(CLI::IsMember({"text", "json"}));
  dump_cmd->add_option("--max-bytes", dump.max_value_bytes,
                       "Cut printed keys and values after this many bytes (0: never; default 64)");
  bool dump_verify = false;
  dump_cmd->add_flag("--verify", dump_verify,
                     "Treat each argument as a partition directory and check it as `verify` does");

  VerifyOptions verify;
  CLI::App* verify_cmd =
      app.add_subcommand("verify", "Check a partition directory end to end without modifying it");
  verify_cmd->add_option("dir", verify.dir, "Partition directory, <log dir>/<topic>-<partition>")->required();
  verify_cmd->add_flag("--deep", verify.deep, "Also decode the records of every batch (compressed ones decompressed)");

  SmokeOptions smoke;
  CLI::App* smoke_cmd = app.add_subcommand(
      "smoke", "Append, read back, reopen cleanly and read back smoke-0 through a LogManager; prints figures");
  smoke_cmd->add_option("--dir", smoke.dir, "Log directory (created if missing)")->required();
  smoke_cmd->add_option("--records", smoke.records, "Records to append (default 200000)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  smoke_cmd->add_option("--record-bytes", smoke.record_bytes, "Value bytes per record (default 1024)")
      ->check(CLI::Range(1, 64 << 20));
  smoke_cmd->add_option("--batch-bytes", smoke.batch_bytes, "Value bytes per batch (default 16384)")
      ->check(CLI::Range(1, 64 << 20));
  smoke_cmd->add_option("--segment-bytes", smoke.segment_bytes, "segment.bytes (default 1 GiB)")
      ->check(CLI::Range(int64_t{1} << 14, int64_t{1} << 32));

  FormatOptions format;
  CLI::App* format_cmd = app.add_subcommand(
      "format", "Write meta.properties (cluster id, node id, directory id) into a node's metadata.log.dir and log.dirs");
  format_cmd->add_option("--cluster-id,-t", format.cluster_id, "The cluster id (strata-storage random-uuid)")->required();
  format_cmd->add_option("--config,-c", format.config, "The node's server.properties")->required();
  format_cmd->add_option("--override", format.overrides, "key=value replacing a setting of the file (repeatable)");
  CLI::Option* standalone = format_cmd->add_flag(
      "--standalone,-s", format.standalone,
      "A dynamic quorum's controller: the only initial voter (add the others with strata quorum add-voter)");
  CLI::Option* initial = format_cmd->add_option(
      "--initial-controllers,-I", format.initial_controllers,
      "A dynamic quorum's controller: every initial voter, id@host:port:DIRECTORY_ID,... (the same list on each)");
  CLI::Option* none = format_cmd->add_flag(
      "--no-initial-controllers,-N", format.no_initial_controllers,
      "A dynamic quorum's controller that is not an initial voter (strata quorum add-voter adds it)");
  standalone->excludes(initial)->excludes(none);
  initial->excludes(none);
  CLI::App* uuid_cmd = app.add_subcommand("random-uuid", "Print a new random id (for --cluster-id)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }

  spdlog::set_default_logger(spdlog::stderr_color_mt("strata-storage"));
  spdlog::set_level(verbose ? spdlog::level::info : spdlog::level::warn);

  if (*dump_cmd && dump_verify) {
    int worst = kExitOk;
    for (const auto& dir : dump.files) worst = std::max(worst, RunVerify(VerifyOptions{dir, false}, std::cout));
    return worst;
  }
  if (*dump_cmd) {
    dump.json = output == "json";
    return RunDump(dump, std::cout);
  }
  if (*verify_cmd) return RunVerify(verify, std::cout);
  if (*smoke_cmd) return RunSmoke(smoke, std::cout);
  if (*format_cmd) return RunFormat(format, std::cout, std::cerr);
  if (*uuid_cmd) {
    std::cout << strata::storage::NewBase64Uuid() << std::endl;
    return kExitOk;
  }
  return kExitUsage;
}
