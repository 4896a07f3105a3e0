#pragma once
// strata-storage: offline tools for a Strata log directory (tools/README.md).
//   dump   — prints what a segment, index, checkpoint or snapshot file holds
//   verify — checks a partition directory end to end without changing it
//   smoke  — writes, reads back, reopens and reads back a log through LogManager
//   format — writes meta.properties into a node's directories; random-uuid — a new id
// Each command returns a process exit code (ExitCode). Output goes to the given
// stream so the commands can be driven from tests. Not thread-safe.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace strata::tools {

enum ExitCode : int {
  kExitOk = 0,       // the command did what it was asked and found nothing wrong
  kExitProblem = 1,  // the data is damaged or inconsistent, or smoke saw a mismatch
  kExitUsage = 2,    // bad arguments, or a file that cannot be opened or is of unknown kind
};

struct DumpOptions {
  std::vector<std::string> files;
  bool records = false;         // --records: decode the records of every batch
  bool json = false;            // --output json: one JSON object per line
  size_t max_value_bytes = 64;  // keys and values longer than this are cut (0: no limit)
};
int RunDump(const DumpOptions& options, std::ostream& out);

struct VerifyOptions {
  std::string dir;
  bool deep = false;  // --deep: decode the records of every batch too
};
int RunVerify(const VerifyOptions& options, std::ostream& out);

struct SmokeOptions {
  std::string dir;
  int64_t records = 200'000;
  int32_t record_bytes = 1024;
  int32_t batch_bytes = 16 * 1024;
  int64_t segment_bytes = 0;  // 0: LogConfig's default
};
int RunSmoke(const SmokeOptions& options, std::ostream& out);

struct FormatOptions {
  std::string cluster_id;
  std::string config;                  // the node's server.properties
  std::vector<std::string> overrides;  // --override key=value
  // A dynamic quorum's controller (controller.quorum.bootstrap.servers) needs exactly one:
  // the only initial voter; every initial voter ("1@host:port:DIRID,..."), this node
  // getting the directory id named for it; or a controller to be added later.
  bool standalone = false;
  std::string initial_controllers;
  bool no_initial_controllers = false;
};
// Writes meta.properties into metadata.log.dir and every log.dirs entry; for a dynamic
// quorum's initial voter also metadata.log.dir/bootstrap-voters.json
// (raft/bootstrap_voters.h).
int RunFormat(const FormatOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strata::tools
