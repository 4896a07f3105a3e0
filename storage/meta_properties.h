#pragma once
// meta.properties: the identity of a formatted directory (every log dir and the metadata
// log dir), in Kafka's format:
//   version=1
//   cluster.id=<22-character base64 uuid>
//   node.id=<id>
//   directory.id=<22-character base64 uuid>
// `strata-storage format` writes it (atomically); a node refuses to start on a directory
// without one, or of another cluster or node, naming the command to run.
// Thread-safe (stateless functions).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/file_ops.h"

namespace strata::storage {

inline constexpr char kMetaPropertiesFileName[] = "meta.properties";

struct MetaProperties {
  std::string cluster_id;
  int32_t node_id = 0;
  std::string directory_id;  // base64 (22 characters) of 16 bytes
  bool operator==(const MetaProperties&) const = default;
};

// A new random id, base64url without padding (Kafka's Uuid.randomUuid().toString()).
std::string NewBase64Uuid();
// The 16 bytes behind a base64 id; INVALID_ARGUMENT when it is not one.
absl::StatusOr<std::string> DecodeBase64Uuid(const std::string& id);
// The base64 id of 16 bytes. REQUIRES: bytes.size() == 16.
std::string EncodeBase64Uuid(absl::string_view bytes);

std::string FormatMetaProperties(const MetaProperties& m);
absl::StatusOr<MetaProperties> ParseMetaProperties(const std::string& text, const std::string& path);

// Writes dir/meta.properties (creating dir) unless one exists: an existing one of the
// same cluster and node is kept (formatting twice is harmless), another is an error.
// directory_id: the base64 id the directory must have (strata-storage format
// --initial-controllers names it); empty: a new random one, or the existing one's.
absl::StatusOr<MetaProperties> FormatDirectory(FileOps& ops, const std::string& dir, const std::string& cluster_id,
                                               int32_t node_id, const std::string& directory_id = "");
// Reads dir/meta.properties and checks it belongs to node_id (and cluster_id, unless
// empty). FAILED_PRECONDITION naming `strata-storage format` when it is missing.
absl::StatusOr<MetaProperties> CheckFormatted(FileOps& ops, const std::string& dir, int32_t node_id,
                                              const std::string& cluster_id = "");

}  // namespace strata::storage
