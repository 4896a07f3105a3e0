#include "storage/meta_properties.h"

#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::storage {

std::string NewBase64Uuid() {
  std::random_device rd;
  std::string bytes(16, '\0');
  for (char& c : bytes) c = static_cast<char>(rd());
  bytes[6] = static_cast<char>((bytes[6] & 0x0f) | 0x40);  // version 4
  bytes[8] = static_cast<char>((bytes[8] & 0x3f) | 0x80);  // IETF variant
  return EncodeBase64Uuid(bytes);
}

std::string EncodeBase64Uuid(absl::string_view bytes) {
  ABSL_CHECK_EQ(bytes.size(), 16u);
  std::string out;
  absl::WebSafeBase64Escape(bytes, &out);
  return out;
}

absl::StatusOr<std::string> DecodeBase64Uuid(const std::string& id) {
  std::string bytes;
  if (id.size() != 22 || !absl::WebSafeBase64Unescape(id, &bytes) || bytes.size() != 16) {
    return absl::InvalidArgumentError(absl::StrCat("'", id, "' is not a base64 uuid (22 characters)"));
  }
  return bytes;
}

std::string FormatMetaProperties(const MetaProperties& m) {
  return absl::StrCat("#\n# written by strata-storage format\nversion=1\ncluster.id=", m.cluster_id,
                      "\nnode.id=", m.node_id, "\ndirectory.id=", m.directory_id, "\n");
}

absl::StatusOr<MetaProperties> ParseMetaProperties(const std::string& text, const std::string& path) {
  MetaProperties m;
  bool version = false, cluster = false, node = false, dir = false;
  auto bad = [&](absl::string_view what) {
    return MakeError(Errc::kInvalidCheckpoint, absl::StrCat(path, ": ", what));
  };
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> kv = absl::StrSplit(line, absl::MaxSplits('=', 1));
    if (kv.size() != 2) return bad(absl::StrCat("'", line, "' is not key=value"));
    if (kv[0] == "version") {
      if (kv[1] != "1") return bad(absl::StrCat("version ", kv[1], " is not supported"));
      version = true;
    } else if (kv[0] == "cluster.id") {
      m.cluster_id = kv[1];
      cluster = true;
    } else if (kv[0] == "node.id") {
      if (!absl::SimpleAtoi(kv[1], &m.node_id) || m.node_id < 0) return bad("node.id is not a node id");
      node = true;
    } else if (kv[0] == "directory.id") {
      m.directory_id = kv[1];
      dir = true;
    }
  }
  if (!version || !cluster || !node || !dir) return bad("version, cluster.id, node.id and directory.id are required");
  if (!DecodeBase64Uuid(m.directory_id).ok()) return bad("directory.id is not a base64 uuid");
  return m;
}

absl::StatusOr<MetaProperties> FormatDirectory(FileOps& ops, const std::string& dir, const std::string& cluster_id,
                                               int32_t node_id, const std::string& directory_id) {
  if (!directory_id.empty()) STRATA_RETURN_IF_ERROR(DecodeBase64Uuid(directory_id).status());
  STRATA_RETURN_IF_ERROR(CreateDirRecursively(ops, dir));
  std::string path = JoinPath(dir, kMetaPropertiesFileName);
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  if (exists) {
    STRATA_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(ops, path));
    STRATA_ASSIGN_OR_RETURN(MetaProperties m, ParseMetaProperties(text, path));
    if (m.cluster_id != cluster_id || m.node_id != node_id) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat(dir, " is formatted for cluster ", m.cluster_id, " node ",
                                                         m.node_id, ", not cluster ", cluster_id, " node ", node_id));
    }
    if (!directory_id.empty() && m.directory_id != directory_id) {
      return MakeError(Errc::kInvalidConfig, absl::StrCat(dir, " has directory id ", m.directory_id, ", not ",
                                                         directory_id, " (the id given for node ", node_id, ")"));
    }
    return m;
  }
  MetaProperties m{cluster_id, node_id, directory_id.empty() ? NewBase64Uuid() : directory_id};
  STRATA_RETURN_IF_ERROR(WriteFileAtomically(ops, path, FormatMetaProperties(m)));
  return m;
}

absl::StatusOr<MetaProperties> CheckFormatted(FileOps& ops, const std::string& dir, int32_t node_id,
                                              const std::string& cluster_id) {
  std::string path = JoinPath(dir, kMetaPropertiesFileName);
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  if (!exists) {
    return absl::FailedPreconditionError(absl::StrCat(
        dir, " is not formatted (no meta.properties); run: strata-storage format --cluster-id ID --config FILE"));
  }
  STRATA_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(ops, path));
  STRATA_ASSIGN_OR_RETURN(MetaProperties m, ParseMetaProperties(text, path));
  if (m.node_id != node_id) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " belongs to node ", m.node_id, ", but node.id is ", node_id));
  }
  if (!cluster_id.empty() && m.cluster_id != cluster_id) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " belongs to cluster ", m.cluster_id, ", not ", cluster_id));
  }
  return m;
}

}  // namespace strata::storage
