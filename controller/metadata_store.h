#pragma once
// MetadataStore: the metadata image (metadata_image.h) applied from the committed Raft
// log, kept in memory and in RocksDB in <dir>. Each Raft entry (one MetadataBatch) is
// applied to the image and written as one RocksDB WriteBatch holding every entity it
// touched together with the applied index and term, so a restart resumes exactly after
// the last entry RocksDB holds; entries at or below it are skipped when the log is
// replayed. It is the Raft StateMachine of controllers (and of brokers, through the
// observer): a snapshot is a RocksDB checkpoint (SST files hard-linked), restored by
// replacing the database with the snapshot's files.
// A record that does not fit the image is skipped and counted (every node skips the
// same one); a RocksDB error is returned, and the Raft driver stops the node on it.
// Thread-safe: Apply/SaveSnapshot/RestoreSnapshot come from the driver thread; Read may
// be called from any thread.

#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>

#include <rocksdb/db.h>

#include "absl/status/statusor.h"
#include "controller/metadata_image.h"
#include "raft/state_machine.h"


namespace strata::controller {

class MetadataStore final : public raft::StateMachine {
 public:
  static absl::StatusOr<std::unique_ptr<MetadataStore>> Open(const std::string& dir);
  ~MetadataStore() override;

  absl::Status Apply(const raft::Entry& entry) override;
  absl::Status SaveSnapshot(storage::FileOps& ops, const std::string& dir) override;
  absl::Status RestoreSnapshot(storage::FileOps& ops, const std::string& dir, const raft::SnapshotMeta& meta) override;

  // The last entry applied (and durable in RocksDB).
  raft::SnapshotMeta applied() const;
  // Records skipped because they did not fit the image.
  int64_t apply_errors() const;
  // Runs f(image) under a shared lock and returns what f returns; f must not keep a
  // reference to the image past its return.
  template <typename F>
  auto WithImage(F&& f) const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return f(image_);
  }
  // Called (on the applying thread, after the image changed) with each applied batch,
  // and with an empty batch after a snapshot replaced the whole image.
  void set_listener(std::function<void(const pb::MetadataBatch&, raft::Index)> listener);

 private:
  explicit MetadataStore(std::string dir) : dir_(std::move(dir)) {}
  absl::Status OpenDb();
  absl::Status LoadImage();
  void CloseDb();

  const std::string dir_;  // the RocksDB directory
  mutable std::shared_mutex mu_;
  MetadataImage image_;
  raft::SnapshotMeta applied_;
  int64_t apply_errors_ = 0;
  std::unique_ptr<rocksdb::DB> db_;
  std::function<void(const pb::MetadataBatch&, raft::Index)> listener_;
};

}  // namespace strata::controller
