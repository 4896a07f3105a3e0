#include "broker/share/share_partition.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::broker {

const char* ShareRecordStateName(ShareRecordState state) {
  switch (state) {
    case ShareRecordState::kAvailable: return "Available";
    case ShareRecordState::kAcquired: return "Acquired";
    case ShareRecordState::kAcknowledged: return "Acknowledged";
    case ShareRecordState::kArchived: return "Archived";
  }
  return "?";
}

bool IsShareRecordState(int8_t state) {
  return state == static_cast<int8_t>(ShareRecordState::kAvailable) ||
         state == static_cast<int8_t>(ShareRecordState::kAcquired) ||
         state == static_cast<int8_t>(ShareRecordState::kAcknowledged) ||
         state == static_cast<int8_t>(ShareRecordState::kArchived);
}

absl::Status CheckShareState(const SharePartitionState& state) {
  if (state.start_offset < 0) {
    return absl::InvalidArgumentError(absl::StrCat("a negative start offset ", state.start_offset));
  }
  int64_t next = state.start_offset;
  for (const ShareStateBatch& b : state.batches) {
    if (b.first_offset < next || b.last_offset < b.first_offset || b.delivery_count < 0) {
      return absl::InvalidArgumentError(absl::StrCat("state batch [", b.first_offset, ", ", b.last_offset,
                                                     "] out of order, overlapping or before offset ", next));
    }
    next = b.last_offset + 1;
  }
  return absl::OkStatus();
}

SharePartition::SharePartition(SharePartitionOptions options, int64_t start_offset)
    : options_(options), start_offset_(start_offset), end_offset_(start_offset) {
  ABSL_CHECK_GE(start_offset, 0);
  ABSL_CHECK_GT(options_.max_in_flight_records, 0);
  ABSL_CHECK_GT(options_.delivery_count_limit, 0);
}

SharePartition::SharePartition(SharePartitionOptions options, const SharePartitionState& state)
    : SharePartition(options, state.start_offset) {
  absl::Status well_formed = CheckShareState(state);
  ABSL_CHECK(well_formed.ok()) << well_formed;
  for (const ShareStateBatch& b : state.batches) {
    // A hole between persisted runs was never delivered (Available, count 0).
    for (int64_t o = end_offset_; o < b.first_offset; ++o) records_[o] = InFlight{};
    for (int64_t o = b.first_offset; o <= b.last_offset; ++o) {
      InFlight r;
      r.state = b.state;
      r.delivery_count = b.delivery_count;
      // A lock does not outlive its leader; a record whose last delivery may have been its
      // limit-th is set aside as if released then.
      if (r.state == ShareRecordState::kAcquired || r.state == ShareRecordState::kAvailable) Release(r);
      records_[o] = r;
    }
    end_offset_ = b.last_offset + 1;
  }
  AdvanceStart();
}

std::vector<AcquiredRecords> SharePartition::Acquire(const std::string& member_id, int32_t max_records,
                                                     int64_t log_end_offset, int64_t now_ms) {
  std::vector<AcquiredRecords> out;
  int32_t left = std::max(max_records, 1);
  auto take = [&](int64_t offset, InFlight& r) {
    r.state = ShareRecordState::kAcquired;
    r.delivery_count++;
    r.member_id = member_id;
    r.lock_deadline_ms = now_ms + options_.record_lock_duration_ms;
    if (!out.empty() && out.back().last_offset + 1 == offset && out.back().delivery_count == r.delivery_count) {
      out.back().last_offset = offset;
    } else {
      out.push_back({offset, offset, r.delivery_count});
    }
    --left;
  };
  // Redeliveries first, oldest first.
  for (auto& [offset, r] : records_) {
    if (left == 0) break;
    if (r.state == ShareRecordState::kAvailable) take(offset, r);
  }
  // Then records never delivered, within the in-flight bound.
  int64_t bound = std::min(log_end_offset, start_offset_ + options_.max_in_flight_records);
  while (left > 0 && end_offset_ < bound) {
    take(end_offset_, records_[end_offset_]);
    ++end_offset_;
  }
  ABSL_CHECK_EQ(static_cast<int64_t>(records_.size()), end_offset_ - start_offset_);
  return out;
}

proto::kafka::ErrorCode SharePartition::Acknowledge(const std::string& member_id, int64_t first_offset, int64_t last_offset,
                                             const std::vector<AcknowledgeType>& types, int64_t now_ms) {
  const int64_t span = last_offset - first_offset + 1;
  if (first_offset < 0 || span <= 0 || types.empty() || (types.size() != 1 && static_cast<int64_t>(types.size()) != span)) {
    return proto::kafka::ErrorCode::kInvalidRequest;
  }
  for (AcknowledgeType t : types) {
    if (static_cast<int8_t>(t) < 0 || static_cast<int8_t>(t) > static_cast<int8_t>(AcknowledgeType::kRenew)) {
      return proto::kafka::ErrorCode::kInvalidRequest;
    }
  }
  // All or nothing: every offset must be this member's to acknowledge.
  if (first_offset < start_offset_ || last_offset >= end_offset_) return proto::kafka::ErrorCode::kInvalidRecordState;
  for (auto it = records_.find(first_offset); it != records_.end() && it->first <= last_offset; ++it) {
    if (it->second.state != ShareRecordState::kAcquired || it->second.member_id != member_id) {
      return proto::kafka::ErrorCode::kInvalidRecordState;
    }
  }
  for (auto it = records_.find(first_offset); it != records_.end() && it->first <= last_offset; ++it) {
    InFlight& r = it->second;
    switch (types.size() == 1 ? types[0] : types[it->first - first_offset]) {
      case AcknowledgeType::kAccept:
        r.state = ShareRecordState::kAcknowledged;
        break;
      case AcknowledgeType::kRelease:
        Release(r);
        break;
      case AcknowledgeType::kReject:
      case AcknowledgeType::kGap:
        r.state = ShareRecordState::kArchived;
        break;
      case AcknowledgeType::kRenew:
        r.lock_deadline_ms = now_ms + options_.record_lock_duration_ms;
        continue;
    }
    r.member_id.clear();
    r.lock_deadline_ms = 0;
  }
  AdvanceStart();
  return proto::kafka::ErrorCode::kNone;
}

void SharePartition::Release(InFlight& record) {
  record.state = record.delivery_count >= options_.delivery_count_limit ? ShareRecordState::kArchived
                                                                       : ShareRecordState::kAvailable;
  record.member_id.clear();
  record.lock_deadline_ms = 0;
}

int SharePartition::ExpireLocks(int64_t now_ms) {
  int n = 0;
  for (auto& [offset, r] : records_) {
    if (r.state == ShareRecordState::kAcquired && r.lock_deadline_ms <= now_ms) {
      Release(r);
      ++n;
    }
  }
  if (n > 0) AdvanceStart();
  return n;
}

int SharePartition::ReleaseMember(const std::string& member_id) {
  int n = 0;
  for (auto& [offset, r] : records_) {
    if (r.state == ShareRecordState::kAcquired && r.member_id == member_id) {
      Release(r);
      ++n;
    }
  }
  if (n > 0) AdvanceStart();
  return n;
}

std::optional<int64_t> SharePartition::NextLockDeadline() const {
  std::optional<int64_t> next;
  for (const auto& [offset, r] : records_) {
    if (r.state == ShareRecordState::kAcquired && (!next || r.lock_deadline_ms < *next)) next = r.lock_deadline_ms;
  }
  return next;
}

void SharePartition::AdvanceToLogStart(int64_t log_start_offset) {
  if (log_start_offset <= start_offset_) return;
  records_.erase(records_.begin(), records_.lower_bound(log_start_offset));
  start_offset_ = log_start_offset;
  end_offset_ = std::max(end_offset_, start_offset_);
  AdvanceStart();
}

void SharePartition::AdvanceStart() {
  while (!records_.empty() && records_.begin()->first == start_offset_ &&
         (records_.begin()->second.state == ShareRecordState::kAcknowledged ||
          records_.begin()->second.state == ShareRecordState::kArchived)) {
    records_.erase(records_.begin());
    ++start_offset_;
  }
  ABSL_CHECK_EQ(static_cast<int64_t>(records_.size()), end_offset_ - start_offset_);
}

std::optional<ShareRecordState> SharePartition::StateOf(int64_t offset) const {
  if (offset < start_offset_) return std::nullopt;
  auto it = records_.find(offset);
  if (it == records_.end()) return std::nullopt;
  return it->second.state;
}

int16_t SharePartition::DeliveryCountOf(int64_t offset) const {
  auto it = records_.find(offset);
  return it == records_.end() ? 0 : it->second.delivery_count;
}

SharePartitionState SharePartition::State() const {
  SharePartitionState state;
  state.start_offset = start_offset_;
  for (const auto& [offset, r] : records_) {
    ShareRecordState persisted = r.state == ShareRecordState::kAcquired ? ShareRecordState::kAvailable : r.state;
    if (!state.batches.empty() && state.batches.back().last_offset + 1 == offset &&
        state.batches.back().state == persisted && state.batches.back().delivery_count == r.delivery_count) {
      state.batches.back().last_offset = offset;
    } else {
      state.batches.push_back({offset, offset, persisted, r.delivery_count});
    }
  }
  return state;
}

}  // namespace strata::broker
