#include "controller/remote_log_segments.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace strata::controller {
namespace {

using Segment = RemoteLogSegments::Segment;

absl::Status Invalid(absl::string_view what) { return absl::FailedPreconditionError(what); }

const char* StateName(Segment::State s) {
  switch (s) {
    case Segment::COPY_SEGMENT_STARTED: return "COPY_SEGMENT_STARTED";
    case Segment::COPY_SEGMENT_FINISHED: return "COPY_SEGMENT_FINISHED";
    case Segment::DELETE_SEGMENT_STARTED: return "DELETE_SEGMENT_STARTED";
    case Segment::DELETE_SEGMENT_FINISHED: return "DELETE_SEGMENT_FINISHED";
    default: return "an unknown state";
  }
}

// The state a copy must be in for `to` to follow.
bool Follows(Segment::State from, Segment::State to) {
  switch (to) {
    case Segment::COPY_SEGMENT_FINISHED: return from == Segment::COPY_SEGMENT_STARTED;
    case Segment::DELETE_SEGMENT_STARTED:
      return from == Segment::COPY_SEGMENT_STARTED || from == Segment::COPY_SEGMENT_FINISHED;
    case Segment::DELETE_SEGMENT_FINISHED: return from == Segment::DELETE_SEGMENT_STARTED;
    default: return false;
  }
}

}  // namespace

int32_t RemoteLogSegments::EpochAt(const Segment& s, int64_t offset) {
  int32_t epoch = -1;
  int64_t best = INT64_MIN;
  for (const auto& [e, start] : s.segment_leader_epochs()) {
    if (start <= offset && start >= best) {
      best = start;
      epoch = e;
    }
  }
  return epoch;
}

absl::Status RemoteLogSegments::Apply(const Segment& record, const metadata::v1::Partition& partition,
                                      const std::string& name) {
  std::string copy = absl::StrCat(name, " remote segment ", absl::WebSafeBase64Escape(record.segment_id()));
  if (record.segment_id().size() != 16) return Invalid(absl::StrCat(name, ": a remote segment id is 16 bytes"));
  if (record.broker_id() != partition.leader() || record.leader_epoch() != partition.leader_epoch()) {
    return Invalid(absl::StrCat(copy, ": ", StateName(record.state()), " from broker ", record.broker_id(),
                                " in leader epoch ", record.leader_epoch(), ", but broker ", partition.leader(),
                                " leads in epoch ", partition.leader_epoch()));
  }
  auto it = segments_.find(record.segment_id());
  if (record.state() == Segment::COPY_SEGMENT_STARTED) {
    if (it != segments_.end()) return Invalid(absl::StrCat(copy, " exists (", StateName(it->second.state()), ")"));
    if (record.start_offset() < 0 || record.end_offset() < record.start_offset()) {
      return Invalid(absl::StrCat(copy, ": offsets ", record.start_offset(), " to ", record.end_offset()));
    }
    for (const auto& [epoch, start] : record.segment_leader_epochs()) {
      if (epoch < 0 || start < record.start_offset() || start > record.end_offset()) {
        return Invalid(absl::StrCat(copy, ": epoch ", epoch, " starts at ", start, ", outside the segment"));
      }
    }
    segments_[record.segment_id()] = record;
    return absl::OkStatus();
  }
  if (it == segments_.end()) return Invalid(absl::StrCat(copy, ": ", StateName(record.state()), " of no known copy"));
  if (!Follows(it->second.state(), record.state())) {
    return Invalid(absl::StrCat(copy, ": ", StateName(record.state()), " cannot follow ",
                                StateName(it->second.state())));
  }
  if (record.state() == Segment::DELETE_SEGMENT_FINISHED) {
    segments_.erase(it);
    return absl::OkStatus();
  }
  it->second.set_state(record.state());
  it->second.set_broker_id(record.broker_id());
  it->second.set_leader_epoch(record.leader_epoch());
  return absl::OkStatus();
}

void RemoteLogSegments::Load(Segment segment) {
  std::string id = segment.segment_id();
  segments_[id] = std::move(segment);
}

const Segment* RemoteLogSegments::SegmentFor(int64_t offset, int32_t leader_epoch) const {
  for (const auto& [id, s] : segments_) {
    if (s.state() != Segment::COPY_SEGMENT_FINISHED) continue;
    if (offset < s.start_offset() || offset > s.end_offset()) continue;
    if (leader_epoch >= 0 && EpochAt(s, offset) != leader_epoch) continue;
    return &s;
  }
  return nullptr;
}

std::optional<int64_t> RemoteLogSegments::LogStartOffset() const {
  std::optional<int64_t> start;
  for (const auto& [id, s] : segments_) {
    if (s.state() == Segment::COPY_SEGMENT_FINISHED) start = std::min(start.value_or(INT64_MAX), s.start_offset());
  }
  return start;
}

std::optional<int64_t> RemoteLogSegments::HighestCopiedOffset() const {
  std::optional<int64_t> end;
  for (const auto& [id, s] : segments_) {
    if (s.state() == Segment::COPY_SEGMENT_FINISHED) end = std::max(end.value_or(INT64_MIN), s.end_offset());
  }
  return end;
}

}  // namespace strata::controller
