// Partition's side of AlterReplicaLogDirs: the future log that follows the current one
// and takes its place (partition.h; the steps are driven by log_dir_mover.h).

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "broker/common/kafka_error.h"
#include "broker/replication/partition.h"
#include "storage/record_batch.h"

namespace strata::broker {

namespace kafka = proto::kafka;

void Partition::AttachFutureLog(storage::Log* future) {
  ABSL_CHECK(future != nullptr) << tp_.DirName();
  absl::MutexLock lock(&future_mu_);
  future_ = future;
}

void Partition::DetachFutureLog() {
  absl::MutexLock lock(&future_mu_);  // waits for a copy step under way
  future_ = nullptr;
}

storage::Log* Partition::future_log() const {
  absl::MutexLock lock(&future_mu_);
  return future_;
}

std::string Partition::future_log_dir() const {
  absl::MutexLock lock(&future_mu_);
  return future_ == nullptr ? "" : future_->log_dir();
}

absl::StatusOr<Partition::FutureCopy> Partition::CopyToFutureLog(uint64_t max_bytes) {
  absl::MutexLock future(&future_mu_);
  absl::ReaderMutexLock lock(&mu_);
  return CopyToFutureLocked(max_bytes);
}

absl::StatusOr<Partition::FutureCopy> Partition::CopyToFutureLocked(uint64_t max_bytes) {
  if (future_ == nullptr) {
    return KafkaError(kafka::ErrorCode::kReplicaNotAvailable, absl::StrCat(tp_.DirName(), " is not moving"));
  }
  storage::Log& current = *log();
  storage::Log& future = *future_;
  // Appends to the current log may go on (under the shared lock); truncations wait for
  // future_mu_. So the current log holds every offset below the future log's end, and
  // its end only grows during the step.
  const int64_t start = current.log_start_offset();
  const int64_t end = current.log_end_offset();
  int64_t from = future.log_end_offset();
  ABSL_CHECK_LE(from, end) << tp_.DirName() << ": the future log is ahead of the current one";
  if (from < start) {
    // Retention or DeleteRecords moved the current log's start past what was copied.
    STRATA_RETURN_IF_ERROR(future.TruncateFullyAndStartAt(start));
    from = start;
  }
  FutureCopy out;
  if (from < end) {
    STRATA_ASSIGN_OR_RETURN(storage::FetchDataInfo read, current.Read(from, max_bytes, end, /*min_one_batch=*/true));
    STRATA_ASSIGN_OR_RETURN(std::string bytes, read.records.ReadAll());
    // A read cut by max_bytes may end inside a batch: the whole batches go now, the rest
    // with the next step.
    bytes.resize(storage::WholeBatches(bytes).size());
    ABSL_CHECK(!bytes.empty()) << tp_.DirName() << ": no whole batch at offset " << from;
    const int64_t base = storage::RecordBatchHeader::Parse(bytes.data()).base_offset;
    if (base < from) {
      // The current log starts inside a batch (DeleteRecords to an offset in it): the
      // future log starts with the whole batch; the swap moves its start up.
      if (from != future.log_start_offset()) {
        return absl::InternalError(absl::StrCat(tp_.DirName(), ": a read from the future log's end at ", from,
                                                " began at ", base));
      }
      STRATA_RETURN_IF_ERROR(future.TruncateFullyAndStartAt(base));
      from = base;
    }
    STRATA_RETURN_IF_ERROR(future.AppendAsFollower(bytes).status());
    out.bytes = static_cast<int64_t>(bytes.size());
    out.offsets = future.log_end_offset() - from;
  }
  out.lag = current.log_end_offset() - future.log_end_offset();
  return out;
}

absl::Status Partition::TruncateBothLocked(absl::FunctionRef<absl::Status(storage::Log&)> truncate) {
  STRATA_RETURN_IF_ERROR(truncate(*log()));
  return future_ == nullptr ? absl::OkStatus() : truncate(*future_);
}

absl::Status Partition::ReplaceLogWithFuture(storage::LogManager& logs, uint64_t max_bytes) {
  absl::MutexLock future(&future_mu_);
  if (future_ == nullptr) {
    return KafkaError(kafka::ErrorCode::kReplicaNotAvailable, absl::StrCat(tp_.DirName(), " is not moving"));
  }
  // What was copied goes to disk first, while the partition serves: the swap closes the
  // future log, and that flush is then only of the last step's bytes.
  STRATA_RETURN_IF_ERROR(future_->FlushAll());
  absl::MutexLock lock(&mu_);  // no append, read or state change until the future log serves
  for (;;) {
    STRATA_ASSIGN_OR_RETURN(FutureCopy copied, CopyToFutureLocked(max_bytes));
    if (copied.lag == 0) break;
  }
  STRATA_ASSIGN_OR_RETURN(storage::LogManager::Replaced replaced, logs.ReplaceCurrentWithFuture(tp_));
  log_.store(replaced.log, std::memory_order_release);
  retired_logs_.push_back(std::move(replaced.retired));
  future_ = nullptr;
  return absl::OkStatus();
}

void Partition::UpdateLogConfig(const storage::LogConfig& config) {
  absl::ReaderMutexLock lock(&mu_);
  log()->UpdateConfig(config);
}

void Partition::SetHighestOffsetInRemoteStorage(int64_t offset) {
  absl::ReaderMutexLock lock(&mu_);
  log()->set_highest_offset_in_remote_storage(offset);
}

}  // namespace strata::broker
