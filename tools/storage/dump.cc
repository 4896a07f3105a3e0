// strata-storage dump: prints the contents of storage files, as kafka-dump-log does.
// Text output is one "key: value ..." line per batch / record / entry; with
// --output json every line is instead one JSON object carrying "type" and "file".

#include <algorithm>
#include <concepts>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "raft/voter_set.h"
#include "storage/checkpoint_file.h"
#include "storage/cleaner.h"
#include "storage/control_record.h"
#include "storage/log_cleaner.h"
#include "storage/log_manager.h"
#include "storage/meta_properties.h"
#include "storage/producer_state.h"
#include "tools/storage/file_readers.h"
#include "tools/storage/storage_tool.h"

namespace strata::tools {
namespace {

using storage::RecordBatchHeader;

struct Field {
  template <typename T>
    requires std::integral<T> && (!std::same_as<T, bool>)
  Field(const char* k, T v) : key(k), value(static_cast<int64_t>(v)) {}
  Field(const char* k, bool v) : key(k), value(v) {}
  Field(const char* k, std::string v) : key(k), value(std::move(v)) {}
  Field(const char* k, const char* v) : key(k), value(std::string(v)) {}
  Field(const char* k, std::vector<std::string> v) : key(k), value(std::move(v)) {}

  const char* key;
  std::variant<int64_t, bool, std::string, std::vector<std::string>> value;
};

// Writes lines of fields as text or as JSON objects.
class Emitter {
 public:
  Emitter(std::ostream& out, bool json, std::string file) : out_(out), json_(json), file_(std::move(file)) {}

  void Begin() {
    if (!json_) out_ << "Dumping " << file_ << "\n";
  }

  void Line(const char* type, const std::vector<Field>& fields, absl::string_view text_prefix = "") {
    if (json_) {
      nlohmann::ordered_json j;
      j["type"] = type;
      j["file"] = file_;
      for (const Field& f : fields) {
        std::visit([&](const auto& v) { j[f.key] = v; }, f.value);
      }
      out_ << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return;
    }
    std::string line(text_prefix);
    bool first = true;
    for (const Field& f : fields) {
      if (!first) line += ' ';
      first = false;
      absl::StrAppend(&line, f.key, ": ");
      std::visit(
          [&](const auto& v) {
            using V = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<V, bool>) line += v ? "true" : "false";
            else if constexpr (std::is_same_v<V, std::vector<std::string>>)
              absl::StrAppend(&line, "[", absl::StrJoin(v, ","), "]");
            else absl::StrAppend(&line, v);
          },
          f.value);
    }
    out_ << line << "\n";
  }

  void Note(absl::string_view message) { Message("note", "Note: ", message); }
  void Error(absl::string_view message) { Message("error", "ERROR: ", message); }

 private:
  void Message(const char* type, absl::string_view prefix, absl::string_view message) {
    if (json_) {
      Line(type, {Field("message", std::string(message))});
    } else {
      out_ << prefix << message << "\n";
    }
  }

  std::ostream& out_;
  const bool json_;
  const std::string file_;
};

std::string OptionalBytes(const std::optional<std::string>& bytes, size_t limit) {
  return bytes ? Printable(*bytes, limit) : "null";
}

// What a control record says, as kafka-dump-log prints it: a transaction marker, or
// one of KRaft's configuration records in a metadata log (raft/voter_set.h).
std::string DescribeControlRecord(const storage::Record& r) {
  if (!r.key) return "no key";
  auto type = raft::DecodeControlKey(*r.key);
  if (!type.ok()) return std::string(type.status().message());
  absl::string_view value = r.value ? absl::string_view(*r.value) : absl::string_view();
  switch (*type) {
    case static_cast<int16_t>(storage::ControlRecordType::kAbort): return "endTxnMarker: ABORT";
    case static_cast<int16_t>(storage::ControlRecordType::kCommit): return "endTxnMarker: COMMIT";
    case raft::kKraftVersionControlType: {
      auto version = raft::DecodeKraftVersion(value);
      return version.ok() ? absl::StrCat("KRaftVersion: ", *version)
                          : absl::StrCat("KRaftVersion: ", version.status().message());
    }
    case raft::kKraftVotersControlType: {
      auto voters = raft::VoterSet::Decode(value);
      return voters.ok() ? absl::StrCat("KRaftVoters: ", voters->DebugString())
                         : absl::StrCat("KRaftVoters: ", voters.status().message());
    }
    default: return absl::StrCat("control type ", *type);
  }
}

int DumpLog(const std::string& path, const DumpOptions& options, Emitter& e) {
  auto reader = LogFileReader::Open(path);
  if (!reader.ok()) {
    e.Error(reader.status().message());
    return kExitUsage;
  }
  int64_t batches = 0, records = 0;
  auto summary = [&] {
    e.Line("summary", {Field("batches", batches), Field("records", records),
                       Field("validBytes", (*reader)->position()), Field("fileBytes", (*reader)->size())});
  };
  while (true) {
    auto next = (*reader)->Next();
    if (!next.ok()) {
      e.Error(next.status().message());
      summary();
      return kExitProblem;
    }
    if (!next->has_value()) break;
    const ScannedBatch& b = **next;
    const RecordBatchHeader& h = b.header;
    e.Line("batch", {
        Field("baseOffset", h.base_offset),
        Field("lastOffset", h.last_offset()),
        Field("count", h.records_count),
        Field("baseSequence", h.base_sequence),
        Field("lastSequence", h.last_sequence()),
        Field("producerId", h.producer_id),
        Field("producerEpoch", h.producer_epoch),
        Field("partitionLeaderEpoch", h.partition_leader_epoch),
        Field("isTransactional", h.is_transactional()),
        Field("isControl", h.is_control()),
        Field("compression", storage::CompressionName(h.compression())),
        Field("timestampType", h.log_append_time() ? "LogAppendTime" : "CreateTime"),
        Field("baseTimestamp", h.base_timestamp),
        Field("maxTimestamp", h.max_timestamp),
        Field("position", b.position),
        Field("size", h.size_in_bytes()),
        Field("magic", int{h.magic}),
        Field("crc", h.crc),
        Field("crcValid", b.crc.ok()),
    });
    if (!b.crc.ok()) {
      e.Error(b.crc.message());
      summary();
      return kExitProblem;
    }
    ++batches;
    records += h.records_count;
    if (!options.records) continue;
    auto decoded = DecodeBatchRecords(b.bytes);
    if (!decoded.ok()) {
      e.Error(absl::StrCat((*reader)->Where(b.position), ": ", decoded.status().message()));
      summary();
      return kExitProblem;
    }
    for (const storage::Record& r : *decoded) {
      std::vector<std::string> header_keys;
      for (const auto& rh : r.headers) header_keys.push_back(Printable(rh.key, options.max_value_bytes));
      std::vector<Field> fields = {
          Field("offset", h.base_offset + r.offset_delta),
          Field("timestamp", h.base_timestamp + r.timestamp_delta),
          Field("keySize", r.key ? static_cast<int64_t>(r.key->size()) : int64_t{-1}),
          Field("valueSize", r.value ? static_cast<int64_t>(r.value->size()) : int64_t{-1}),
          Field("headerKeys", std::move(header_keys)),
          Field("key", OptionalBytes(r.key, options.max_value_bytes)),
          Field("value", OptionalBytes(r.value, options.max_value_bytes)),
      };
      if (h.is_control()) fields.emplace_back("control", DescribeControlRecord(r));
      e.Line("record", fields, "| ");
    }
  }
  summary();
  return kExitOk;
}

template <typename Contents>
int IndexTail(const Contents& contents, Emitter& e) {
  if (contents.zero_entries_dropped > 0) {
    e.Note(absl::StrCat("skipped ", contents.zero_entries_dropped, " trailing all-zero (preallocated) entries"));
  }
  if (contents.stray_bytes > 0) {
    e.Error(absl::StrCat("the file is ", contents.file_bytes, " bytes, ", contents.stray_bytes,
                         " bytes past the last whole entry"));
    return kExitProblem;
  }
  return kExitOk;
}

int DumpOffsetIndex(const std::string& path, int64_t base_offset, Emitter& e) {
  auto contents = ReadOffsetIndexFile(path, base_offset);
  if (!contents.ok()) {
    e.Error(contents.status().message());
    return kExitUsage;
  }
  for (const auto& entry : contents->entries) {
    e.Line("entry", {Field("offset", entry.offset), Field("position", entry.position)});
  }
  return IndexTail(*contents, e);
}

int DumpTimeIndex(const std::string& path, int64_t base_offset, Emitter& e) {
  auto contents = ReadTimeIndexFile(path, base_offset);
  if (!contents.ok()) {
    e.Error(contents.status().message());
    return kExitUsage;
  }
  for (const auto& entry : contents->entries) {
    e.Line("entry", {Field("timestamp", entry.timestamp), Field("offset", entry.offset)});
  }
  return IndexTail(*contents, e);
}

int DumpOffsetCheckpoint(const std::string& path, const std::string& text, Emitter& e) {
  auto parsed = storage::ParseOffsetCheckpoint(text, path);
  if (!parsed.ok()) {
    e.Error(parsed.status().message());
    return kExitProblem;
  }
  for (const auto& [tp, offset] : *parsed) {
    e.Line("entry", {Field("topic", tp.topic), Field("partition", tp.partition), Field("offset", offset)});
  }
  return kExitOk;
}

// What a cleaner checkpoint says of each log next to it (offline: no high watermark, no
// topic config): the checkpoint, and the bytes of the rolled segments below and above it
// (the active segment is never cleaned). min.compaction.lag.ms and the high watermark
// may hold some of the dirty bytes back, so the ratio is the most the cleaner would see.
int DumpCleanerCheckpoint(const std::string& path, const std::string& text, Emitter& e) {
  auto parsed = storage::ParseOffsetCheckpoint(text, path);
  if (!parsed.ok()) {
    e.Error(parsed.status().message());
    return kExitProblem;
  }
  storage::FileOps& ops = *storage::FileOps::Default();
  int worst = kExitOk;
  for (const auto& [tp, offset] : *parsed) {
    std::string dir = storage::JoinPath(storage::DirName(path), tp.DirName());
    auto names = ops.ListDir(dir);
    if (!names.ok()) {
      e.Line("compaction", {Field("topic", tp.topic), Field("partition", tp.partition), Field("checkpoint", offset),
                            Field("log", "absent")});
      continue;
    }
    std::vector<int64_t> bases;
    for (const std::string& name : *names) {
      auto segment = storage::ParseSegmentFileName(name);
      if (segment && segment->kind == storage::kLogSuffix && segment->state.empty()) bases.push_back(segment->offset);
    }
    std::sort(bases.begin(), bases.end());
    storage::CleaningView view;
    view.log_start_offset = bases.empty() ? 0 : bases.front();
    view.log_end_offset = INT64_MAX;
    for (size_t i = 0; i + 1 < bases.size(); ++i) {
      std::string log_path = storage::SegmentFileName(dir, bases[i], storage::kLogSuffix);
      auto file = ops.Open(log_path, storage::OpenMode::kRead);
      if (!file.ok()) {
        e.Error(file.status().message());
        worst = kExitProblem;
        break;
      }
      auto size = (*file)->Size();
      if (!size.ok()) {
        e.Error(size.status().message());
        worst = kExitProblem;
        break;
      }
      view.segments.push_back(storage::CleanableSegment{nullptr, std::shared_ptr<storage::File>(std::move(*file)),
                                                        bases[i], bases[i + 1], *size, storage::kNoTimestamp});
    }
    storage::Dirtiness d = storage::MeasureDirtiness(view, offset, 0);
    e.Line("compaction", {Field("topic", tp.topic), Field("partition", tp.partition), Field("checkpoint", offset),
                          Field("firstDirtyOffset", d.first_dirty_offset), Field("cleanBytes", d.clean_bytes),
                          Field("dirtyBytes", d.dirty_bytes), Field("dirtyRatio", absl::StrFormat("%.3f", d.ratio()))});
  }
  return worst;
}

int DumpEpochCheckpoint(const std::string& path, const std::string& text, Emitter& e) {
  auto parsed = storage::ParseEpochCheckpoint(text, path);
  if (!parsed.ok()) {
    e.Error(parsed.status().message());
    return kExitProblem;
  }
  for (const auto& entry : *parsed) {
    e.Line("entry", {Field("epoch", entry.epoch), Field("startOffset", entry.start_offset)});
  }
  return kExitOk;
}

int DumpSnapshot(const std::string& path, int64_t offset, const std::string& data, Emitter& e) {
  auto producers = storage::ProducerStateManager::DecodeSnapshot(data, path);
  if (!producers.ok()) {
    e.Error(producers.status().message());
    return kExitProblem;
  }
  e.Line("snapshot", {Field("snapshotOffset", offset), Field("producers", producers->size())});
  for (const auto& [id, entry] : *producers) {
    storage::ProducerBatch last = entry.batches.empty() ? storage::ProducerBatch{} : entry.batches.back();
    e.Line("producer", {
        Field("producerId", id),
        Field("producerEpoch", entry.producer_epoch),
        Field("firstSequence", last.first_sequence),
        Field("lastSequence", last.last_sequence),
        Field("lastOffset", last.last_offset),
        Field("offsetDelta", last.offset_delta),
        Field("lastTimestamp", entry.last_timestamp),
    });
  }
  return kExitOk;
}

int DumpMetaProperties(const std::string& path, const std::string& text, Emitter& e) {
  auto meta = storage::ParseMetaProperties(std::string(text), path);
  if (!meta.ok()) {
    e.Error(meta.status().message());
    return kExitProblem;
  }
  e.Line("meta", {Field("clusterId", meta->cluster_id), Field("nodeId", meta->node_id),
                  Field("directoryId", meta->directory_id)});
  return kExitOk;
}

int DumpFile(const std::string& path, const DumpOptions& options, std::ostream& out) {
  Emitter e(out, options.json, path);
  e.Begin();
  ClassifiedFile c = ClassifyFile(storage::BaseName(path));
  switch (c.kind) {
    case FileKind::kLog: return DumpLog(path, options, e);
    case FileKind::kOffsetIndex: return DumpOffsetIndex(path, c.segment->offset, e);
    case FileKind::kTimeIndex: return DumpTimeIndex(path, c.segment->offset, e);
    case FileKind::kUnknown:
      e.Error(absl::StrCat("do not know how to dump ", storage::BaseName(path),
                           ": expected NNN.log, NNN.index, NNN.timeindex, NNN.snapshot, an offset, cleaner or "
                           "leader-epoch checkpoint, or meta.properties"));
      return kExitUsage;
    default: break;
  }
  auto data = ReadFileReadOnly(path);
  if (!data.ok()) {
    e.Error(data.status().message());
    return kExitUsage;
  }
  switch (c.kind) {
    case FileKind::kSnapshot: return DumpSnapshot(path, c.segment->offset, *data, e);
    case FileKind::kOffsetCheckpoint: return DumpOffsetCheckpoint(path, *data, e);
    case FileKind::kCleanerCheckpoint: return DumpCleanerCheckpoint(path, *data, e);
    case FileKind::kEpochCheckpoint: return DumpEpochCheckpoint(path, *data, e);
    case FileKind::kMetaProperties: return DumpMetaProperties(path, *data, e);
    case FileKind::kCleanShutdown:
      e.Line("marker", {Field("cleanShutdown", true), Field("bytes", data->size())});
      return kExitOk;
    default: return kExitUsage;
  }
}

}  // namespace

int RunDump(const DumpOptions& options, std::ostream& out) {
  int worst = kExitOk;
  for (const std::string& path : options.files) worst = std::max(worst, DumpFile(path, options, out));
  return worst;
}

}  // namespace strata::tools
