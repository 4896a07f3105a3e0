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
// Thread-safe: Apply/SaveSnapshot/RestoreSnapshot come from the driver thread; WithImage
// may be called from any thread.

#include <functional>
#include <memory>
#include <string>

#include <rocksdb/db.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
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
  // reference to the image past its return. f may call WithImage on this store again
  // (a broker applies the image inside WithImage, and the fetches that wakes look their
  // partitions up): the nested call runs under the outer call's lock, since absl::Mutex
  // reader locks must not nest (a writer waiting between them would deadlock both).
  // The image's lock comes first in every lock order: f may take other locks (a broker's
  // ApplyImage takes the replica manager's, partitions' and purgatories' locks, and the
  // operations it completes take theirs), so WithImage must not be called by a thread
  // holding any other lock. absl's deadlock detection (on in Debian's absl, so in every
  // test) aborts the process on the reverse order.
  template <typename F>
  auto WithImage(F&& f) const {
    if (reading_on_this_thread_ == this) return f(ImageUnderOuterLock());
    absl::ReaderMutexLock lock(&mu_);
    struct Restore {
      const MetadataStore* outer;
      ~Restore() { reading_on_this_thread_ = outer; }
    } restore{reading_on_this_thread_};
    reading_on_this_thread_ = this;
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

  // The image, for a WithImage nested in one on the same thread (which holds mu_).
  const MetadataImage& ImageUnderOuterLock() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return image_; }

  // The store whose WithImage this thread is inside (nullptr: none).
  static inline thread_local const MetadataStore* reading_on_this_thread_ = nullptr;
  const std::string dir_;  // the RocksDB directory
  mutable absl::Mutex mu_;
  MetadataImage image_ ABSL_GUARDED_BY(mu_);
  raft::SnapshotMeta applied_ ABSL_GUARDED_BY(mu_);
  int64_t apply_errors_ ABSL_GUARDED_BY(mu_) = 0;
  std::unique_ptr<rocksdb::DB> db_;
  std::function<void(const pb::MetadataBatch&, raft::Index)> listener_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::controller
