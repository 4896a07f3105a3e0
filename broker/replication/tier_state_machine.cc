#include "broker/replication/tier_state_machine.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/common/remote_segment_id.h"
#include "storage/errc.h"

namespace strata::broker {

TierStateMachine::TierStateMachine(TierStateMachineOptions options) : options_(std::move(options)) {
  ABSL_CHECK(options_.remote_storage != nullptr);
  ABSL_CHECK(options_.remote_segment_for != nullptr);
}

absl::StatusOr<RemoteAuxState> TierStateMachine::Build(const std::string& name, const std::string& topic_id,
                                                       int32_t partition, int64_t fetch_start,
                                                       int64_t leader_log_start) {
  RemoteAuxState out;
  out.fetch_start = fetch_start;
  if (fetch_start <= leader_log_start) {
    // The empty remote range: nothing below fetch_start is kept anywhere.
    ++empty_ranges_;
    NoteOutcome(name, absl::OkStatus());
    return out;
  }
  auto build = [&]() -> absl::StatusOr<RemoteAuxState> {
    auto segment = options_.remote_segment_for(topic_id, partition, fetch_start - 1);
    if (!segment) {
      return storage::MakeError(
          storage::Errc::kRemoteStorageError,
          absl::StrCat("no finished remote copy holds offset ", fetch_start - 1, " (the remote range [",
                       leader_log_start, ", ", fetch_start, ") is not empty; its metadata is missing)"));
    }
    storage::RemoteLogSegmentId id = RemoteIdOf(*segment);
    STRATA_ASSIGN_OR_RETURN(std::string checkpoint,
                            options_.remote_storage->FetchIndex(id, storage::RemoteIndexType::kLeaderEpoch));
    STRATA_ASSIGN_OR_RETURN(out.epochs, storage::ParseEpochCheckpoint(
                                            checkpoint, absl::StrCat("remote segment ", id.segment_id,
                                                                     " leader-epoch-checkpoint")));
    if (segment->end_offset() == fetch_start - 1) {
      // Its producer snapshot was taken where the next segment begins: at fetch_start.
      STRATA_ASSIGN_OR_RETURN(out.producer_snapshot,
                              options_.remote_storage->FetchIndex(id, storage::RemoteIndexType::kProducerSnapshot));
    }
    out.from_remote = true;
    return out;
  };
  auto built = build();
  NoteOutcome(name, built.status());
  if (!built.ok()) {
    ++errors_;
    return built.status();
  }
  ++builds_;
  return built;
}

void TierStateMachine::NoteOutcome(const std::string& name, const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  if (!status.ok() && failing_.insert(name).second) {
    spdlog::warn("{}: cannot build the state below the leader's local log start from the remote tier (retried with "
                 "backoff): {}",
                 name, status.ToString());
  } else if (status.ok() && failing_.erase(name) > 0) {
    spdlog::info("{}: built the state below the leader's local log start from the remote tier", name);
  }
}

std::vector<std::string> TierStateMachine::failing() const {
  absl::MutexLock lock(&mu_);
  return std::vector<std::string>(failing_.begin(), failing_.end());
}

TierStateMachineStats TierStateMachine::stats() const {
  absl::MutexLock lock(&mu_);
  return TierStateMachineStats{builds_.load(), empty_ranges_.load(), errors_.load(),
                               static_cast<int64_t>(failing_.size())};
}

}  // namespace strata::broker
