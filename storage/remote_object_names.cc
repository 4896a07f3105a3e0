#include "storage/remote_object_names.h"

#include "absl/strings/str_cat.h"
#include "storage/errc.h"

namespace strata::storage {

const char* RemoteIndexSuffix(RemoteIndexType type) {
  switch (type) {
    case RemoteIndexType::kOffset: return ".index";
    case RemoteIndexType::kTimestamp: return ".timeindex";
    case RemoteIndexType::kProducerSnapshot: return ".snapshot";
    case RemoteIndexType::kLeaderEpoch: return ".leader-epoch-checkpoint";
    case RemoteIndexType::kTransaction: return kRemoteTxnIndexSuffix;
  }
  return ".index";
}

std::string RemotePartitionName(const RemoteLogSegmentId& id) { return absl::StrCat(id.topic_id, "-", id.partition); }

std::string RemoteObjectName(const RemoteLogSegmentId& id, const char* suffix) {
  return absl::StrCat(id.topic_id, "-", id.partition, "/", id.segment_id, suffix);
}

std::vector<RemoteObjectSource> RemoteObjectSources(const LogSegmentData& data) {
  auto from_file = [](const char* suffix, const std::string& file) {
    RemoteObjectSource out;
    out.suffix = suffix;
    out.file = file;
    return out;
  };
  std::vector<RemoteObjectSource> out;
  out.push_back(from_file(kRemoteLogSuffix, data.log_path));
  out.push_back(from_file(RemoteIndexSuffix(RemoteIndexType::kOffset), data.offset_index_path));
  out.push_back(from_file(RemoteIndexSuffix(RemoteIndexType::kTimestamp), data.time_index_path));
  out.push_back(from_file(RemoteIndexSuffix(RemoteIndexType::kProducerSnapshot), data.producer_snapshot_path));
  RemoteObjectSource epochs;
  epochs.suffix = RemoteIndexSuffix(RemoteIndexType::kLeaderEpoch);
  epochs.bytes = data.leader_epochs;
  out.push_back(std::move(epochs));
  out.push_back(from_file(kRemoteTxnIndexSuffix, data.txn_index_path));
  return out;
}

absl::Status CheckRemoteObjectName(const std::string& name) {
  static const auto plain = [](absl::string_view s, bool dots) {
    if (s.empty()) return false;
    for (char c : s) {
      bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                (dots && c == '.');
      if (!ok) return false;
    }
    return true;
  };
  const size_t slash = name.find('/');
  const bool ok = slash != std::string::npos && plain(absl::string_view(name).substr(0, slash), false) &&
                  name.find('/', slash + 1) == std::string::npos && name.find("..") == std::string::npos &&
                  name.size() > slash + 1 && name[slash + 1] != '.' &&
                  plain(absl::string_view(name).substr(slash + 1), true);
  if (!ok) return MakeError(Errc::kInvalidArgument, absl::StrCat("'", name, "' is not a remote object name"));
  return absl::OkStatus();
}

absl::Status CheckRemoteSegmentId(const RemoteLogSegmentId& id) {
  auto plain = [](const std::string& s) {
    if (s.empty()) return false;
    for (char c : s) {
      bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (!ok) return false;
    }
    return true;
  };
  if (!plain(id.topic_id) || !plain(id.segment_id) || id.partition < 0) {
    return MakeError(Errc::kInvalidArgument, absl::StrCat("remote segment id ", id.topic_id, "-", id.partition, "/",
                                                          id.segment_id, " is not base64url ids and a partition"));
  }
  return absl::OkStatus();
}

}  // namespace strata::storage
