#include "storage/file_names.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "storage/file_ops.h"
#include "storage/meta_properties.h"

namespace strata::storage {

std::string OffsetToFileStem(int64_t offset) { return absl::StrFormat("%020d", offset); }

std::string SegmentFileName(absl::string_view dir, int64_t base_offset, absl::string_view suffix) {
  return JoinPath(dir, absl::StrCat(OffsetToFileStem(base_offset), suffix));
}

std::optional<ParsedFileName> ParseSegmentFileName(absl::string_view name) {
  if (name.size() < 21 || name[20] != '.') return std::nullopt;
  for (int i = 0; i < 20; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
  }
  ParsedFileName parsed;
  if (!absl::SimpleAtoi(name.substr(0, 20), &parsed.offset)) return std::nullopt;
  absl::string_view rest = name.substr(20);
  for (absl::string_view state : {kCleanedSuffix, kSwapSuffix, kDeletedSuffix}) {
    if (rest.size() > state.size() && rest.substr(rest.size() - state.size()) == state) {
      parsed.state = std::string(state);
      rest.remove_suffix(state.size());
      break;
    }
  }
  for (absl::string_view kind : {kLogSuffix, kIndexSuffix, kTimeIndexSuffix, kTxnIndexSuffix, kSnapshotSuffix}) {
    if (rest == kind) {
      parsed.kind = std::string(kind);
      return parsed;
    }
  }
  return std::nullopt;
}

std::string TopicPartition::DirName() const { return absl::StrCat(topic, "-", partition); }

std::optional<TopicPartition> ParsePartitionDirName(absl::string_view name) {
  size_t dash = name.find_last_of('-');
  if (dash == absl::string_view::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  TopicPartition tp;
  tp.topic = std::string(name.substr(0, dash));
  absl::string_view digits = name.substr(dash + 1);
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  if (!absl::SimpleAtoi(digits, &tp.partition) || tp.partition < 0) return std::nullopt;
  return tp;
}

std::string FutureDirName(const TopicPartition& tp) {
  return absl::StrCat(tp.DirName(), ".", NewBase64Uuid(), kFutureDirSuffix);
}

std::optional<TopicPartition> ParseFutureDirName(absl::string_view name) {
  if (!absl::ConsumeSuffix(&name, kFutureDirSuffix)) return std::nullopt;
  // The unique part is base64url, which has no '.'; a topic name may have some.
  size_t dot = name.find_last_of('.');
  if (dot == absl::string_view::npos || dot + 1 == name.size()) return std::nullopt;
  return ParsePartitionDirName(name.substr(0, dot));
}

}  // namespace strata::storage
