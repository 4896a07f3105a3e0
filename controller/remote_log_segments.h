#pragma once
// RemoteLogSegments: the copies of one partition's segments in the remote tier, as the
// committed RemoteLogSegment records made them (KIP-405's remote log metadata, kept in
// the quorum so that every broker's image answers the same). Apply() admits a
// transition only when it follows the copy's state before it and comes from the
// partition's current leader in its current leader epoch (a deposed leader's record is
// refused, identically on every node); DELETE_SEGMENT_FINISHED removes the copy.
// Not thread-safe: the metadata image serialises access.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "metadata.pb.h"

namespace strata::controller {

class RemoteLogSegments {
 public:
  using Segment = metadata::v1::RemoteLogSegment;

  // name: the partition's name for errors ("orders-0").
  absl::Status Apply(const Segment& record, const metadata::v1::Partition& partition, const std::string& name);
  // Restores one copy as stored (MetadataImage::Load).
  void Load(Segment segment);

  // Every copy not yet DELETE_SEGMENT_FINISHED, by segment id.
  const std::map<std::string, Segment>& segments() const { return segments_; }
  bool empty() const { return segments_.empty(); }
  // The COPY_SEGMENT_FINISHED copy that holds offset in leader epoch leader_epoch (the
  // epoch in force at that offset within the segment; -1: any), or null.
  const Segment* SegmentFor(int64_t offset, int32_t leader_epoch) const;
  // The leader epoch in force at offset within the copy (-1: none listed).
  static int32_t EpochAt(const Segment& segment, int64_t offset);
  // The first offset the finished copies hold (none: nothing is readable remotely).
  std::optional<int64_t> LogStartOffset() const;
  // The last offset the finished copies hold (none: nothing copied yet).
  std::optional<int64_t> HighestCopiedOffset() const;

 private:
  std::map<std::string, Segment> segments_;
};

}  // namespace strata::controller
