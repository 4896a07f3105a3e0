#pragma once
// bootstrap-voters.json in metadata.log.dir: the voters a dynamic quorum (KIP-853)
// starts with. `strata-storage format --standalone` or `--initial-controllers` writes it
// once; RaftNode's Config::bootstrap is read from it, and the quorum's first leader
// writes it into the log (raft.h). It plays the part of Kafka's 0-0.checkpoint, which
// does not fit Strata's snapshots (RocksDB directories from index 1 on). A controller
// formatted with --no-initial-controllers has none and learns its voters from the leader.
//   {"kraft_version": 1, "voters": [{"id": 1, "directory_id": "<base64 uuid>",
//     "endpoints": [{"name": "CONTROLLER", "host": "127.0.0.1", "port": 9093}]}, ...]}
// Thread-safe (stateless functions).
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "raft/voter_set.h"
#include "storage/file_ops.h"

namespace strata::raft {

inline constexpr char kBootstrapVotersFileName[] = "bootstrap-voters.json";

// Kafka's --initial-controllers: "1@host:port:DIRID,2@host:port:DIRID", each directory
// id a base64 uuid; every voter gets one endpoint, named listener_name. INVALID_ARGUMENT
// naming the entry that is not of that form (or an id twice).
absl::StatusOr<VoterSet> ParseInitialControllers(absl::string_view text, const std::string& listener_name);

std::string BootstrapVotersToJson(const VoterSet& voters);
absl::StatusOr<VoterSet> ParseBootstrapVoters(const std::string& json, const std::string& source);

// Writes dir/bootstrap-voters.json atomically. An identical file is kept (formatting
// twice is harmless); a different one is FAILED_PRECONDITION: the quorum's first voters
// are never rewritten.
absl::Status WriteBootstrapVoters(storage::FileOps& ops, const std::string& dir, const VoterSet& voters);
// The file's voters; nullopt when there is none. A file that does not parse is an error.
absl::StatusOr<std::optional<VoterSet>> ReadBootstrapVoters(storage::FileOps& ops, const std::string& dir);

}  // namespace strata::raft
