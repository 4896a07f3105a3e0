#include "raft/snapshot_transfer.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/errc.h"

namespace strata::raft {

using storage::Errc;
using storage::MakeError;

absl::Status ForEachSnapshotChunk(const SnapshotStore& store, storage::FileOps& ops, const SnapshotMeta& meta,
                                  const std::function<bool(v1::SnapshotChunk&)>& emit, size_t chunk_bytes) {
  STRATA_ASSIGN_OR_RETURN(SnapshotManifest manifest, store.ReadManifest(meta));
  std::string dir = store.PathOf(meta);
  v1::SnapshotChunk chunk;
  chunk.set_index(meta.index);
  chunk.set_term(meta.term);
  chunk.set_manifest_json(manifest.ToJson());
  std::string buffer(chunk_bytes, '\0');
  for (size_t i = 0; i < manifest.files.size(); ++i) {
    const SnapshotFile& f = manifest.files[i];
    STRATA_ASSIGN_OR_RETURN(auto file, ops.Open(storage::JoinPath(dir, f.name), storage::OpenMode::kRead));
    int64_t offset = 0;
    do {
      size_t want = static_cast<size_t>(std::min<int64_t>(f.bytes - offset, static_cast<int64_t>(chunk_bytes)));
      STRATA_ASSIGN_OR_RETURN(size_t n, file->Read(static_cast<uint64_t>(offset), buffer.data(), want));
      if (n != want) {
        return MakeError(Errc::kInconsistentLog, absl::StrCat("snapshot file ", f.name, " is shorter than its manifest says"));
      }
      chunk.set_index(meta.index);
      chunk.set_term(meta.term);
      chunk.set_file(f.name);
      chunk.set_offset(offset);
      chunk.set_data(buffer.data(), n);
      offset += static_cast<int64_t>(n);
      chunk.set_done(i + 1 == manifest.files.size() && offset == f.bytes);
      if (!emit(chunk)) return absl::CancelledError("snapshot transfer cancelled");
      chunk.Clear();
    } while (offset < f.bytes);
  }
  if (manifest.files.empty()) {  // nothing but the manifest
    chunk.set_done(true);
    if (!emit(chunk)) return absl::CancelledError("snapshot transfer cancelled");
  }
  return absl::OkStatus();
}

SnapshotReceiver::~SnapshotReceiver() {
  if (manifest_ && !sealed_) store_.AbortPartial(partial_);
}

absl::Status SnapshotReceiver::Accept(const v1::SnapshotChunk& chunk) {
  if (sealed_) return MakeError(Errc::kInvalidArgument, "snapshot chunk after the last one");
  if (!manifest_) {
    if (chunk.manifest_json().empty()) return MakeError(Errc::kInvalidArgument, "the first snapshot chunk has no manifest");
    STRATA_ASSIGN_OR_RETURN(SnapshotManifest m, SnapshotManifest::Parse(chunk.manifest_json(), "in transfer"));
    if (m.meta.index != chunk.index() || m.meta.term != chunk.term()) {
      return MakeError(Errc::kInvalidArgument, "the snapshot manifest names another snapshot");
    }
    STRATA_ASSIGN_OR_RETURN(partial_, store_.BeginPartial(m.meta));
    manifest_ = std::move(m);
  }
  if (chunk.index() != manifest_->meta.index || chunk.term() != manifest_->meta.term) {
    return MakeError(Errc::kInvalidArgument, "a snapshot chunk of another snapshot");
  }
  if (!chunk.file().empty()) {
    STRATA_RETURN_IF_ERROR(store_.WritePartialFile(partial_, chunk.file(), chunk.offset(), chunk.data()));
  }
  if (chunk.done()) {
    STRATA_RETURN_IF_ERROR(store_.Seal(partial_, manifest_));
    sealed_ = true;
  }
  return absl::OkStatus();
}

}  // namespace strata::raft
