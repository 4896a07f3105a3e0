#include "storage/checkpoint_file.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

constexpr int kVersion = 0;

absl::Status Invalid(absl::string_view file, size_t line, absl::string_view what) {
  return MakeError(Errc::kInvalidCheckpoint, absl::StrCat("checkpoint ", file, " line ", line, ": ", what));
}

std::string Format(const std::vector<std::string>& lines) {
  std::string out = absl::StrCat(kVersion, "\n", lines.size(), "\n");
  for (const auto& line : lines) absl::StrAppend(&out, line, "\n");
  return out;
}

// Splits into entry lines after checking the version and count lines; each entry
// line is split on single spaces into exactly `fields` fields.
absl::StatusOr<std::vector<std::vector<absl::string_view>>> Parse(absl::string_view text, absl::string_view file,
                                                                 size_t fields) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() < 2) return Invalid(file, lines.size() + 1, "missing version or count line");
  int version = 0;
  if (!absl::SimpleAtoi(lines[0], &version)) return Invalid(file, 1, absl::StrCat("version '", lines[0], "' is not a number"));
  if (version != kVersion) return Invalid(file, 1, absl::StrCat("unsupported version ", version));
  int64_t count = 0;
  if (!absl::SimpleAtoi(lines[1], &count) || count < 0) {
    return Invalid(file, 2, absl::StrCat("count '", lines[1], "' is not a non-negative number"));
  }
  if (static_cast<size_t>(count) != lines.size() - 2) {
    return Invalid(file, 2, absl::StrCat("count says ", count, " entries but ", lines.size() - 2, " follow"));
  }
  std::vector<std::vector<absl::string_view>> entries;
  for (size_t i = 2; i < lines.size(); ++i) {
    std::vector<absl::string_view> parts = absl::StrSplit(lines[i], ' ');
    if (parts.size() != fields) {
      return Invalid(file, i + 1, absl::StrCat("expected ", fields, " space-separated fields, got '", lines[i], "'"));
    }
    entries.push_back(std::move(parts));
  }
  return entries;
}

}  // namespace

std::string FormatOffsetCheckpoint(const OffsetCheckpoint& offsets) {
  std::vector<std::string> lines;
  for (const auto& [tp, offset] : offsets) lines.push_back(absl::StrCat(tp.topic, " ", tp.partition, " ", offset));
  return Format(lines);
}

absl::StatusOr<OffsetCheckpoint> ParseOffsetCheckpoint(absl::string_view text, absl::string_view file_name) {
  STRATA_ASSIGN_OR_RETURN(auto entries, Parse(text, file_name, 3));
  OffsetCheckpoint offsets;
  for (size_t i = 0; i < entries.size(); ++i) {
    TopicPartition tp;
    tp.topic = std::string(entries[i][0]);
    int64_t offset = 0;
    if (tp.topic.empty() || !absl::SimpleAtoi(entries[i][1], &tp.partition) || tp.partition < 0 ||
        !absl::SimpleAtoi(entries[i][2], &offset) || offset < 0) {
      return Invalid(file_name, i + 3, "expected '<topic> <partition> <offset>' with non-negative numbers");
    }
    if (!offsets.emplace(tp, offset).second) {
      return Invalid(file_name, i + 3, absl::StrCat("duplicate entry for ", tp.DirName()));
    }
  }
  return offsets;
}

absl::Status WriteOffsetCheckpoint(FileOps& ops, const std::string& path, const OffsetCheckpoint& offsets) {
  return WriteFileAtomically(ops, path, FormatOffsetCheckpoint(offsets));
}

absl::StatusOr<OffsetCheckpoint> ReadOffsetCheckpoint(FileOps& ops, const std::string& path) {
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  if (!exists) return OffsetCheckpoint();
  STRATA_ASSIGN_OR_RETURN(std::string text, ReadWholeFile(ops, path));
  return ParseOffsetCheckpoint(text, path);
}

std::string FormatEpochCheckpoint(const std::vector<EpochEntry>& entries) {
  std::vector<std::string> lines;
  for (const auto& e : entries) lines.push_back(absl::StrCat(e.epoch, " ", e.start_offset));
  return Format(lines);
}

absl::StatusOr<std::vector<EpochEntry>> ParseEpochCheckpoint(absl::string_view text, absl::string_view file_name) {
  STRATA_ASSIGN_OR_RETURN(auto entries, Parse(text, file_name, 2));
  std::vector<EpochEntry> result;
  for (size_t i = 0; i < entries.size(); ++i) {
    EpochEntry e;
    if (!absl::SimpleAtoi(entries[i][0], &e.epoch) || e.epoch < 0 || !absl::SimpleAtoi(entries[i][1], &e.start_offset) ||
        e.start_offset < 0) {
      return Invalid(file_name, i + 3, "expected '<epoch> <start offset>' with non-negative numbers");
    }
    result.push_back(e);
  }
  return result;
}

}  // namespace strata::storage
