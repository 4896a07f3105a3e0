#pragma once
// The name a copy in the metadata (its topic id, partition and 16-byte segment id) has in
// the RemoteStorageManager (base64url ids). Thread-safe (a function).

#include "absl/strings/escaping.h"
#include "controller/metadata_image.h"
#include "controller/remote_log_segments.h"
#include "storage/remote_storage_manager.h"

namespace strata::broker {

inline storage::RemoteLogSegmentId RemoteIdOf(const controller::RemoteLogSegments::Segment& s) {
  return storage::RemoteLogSegmentId{controller::TopicIdToString(s.topic_id()), s.partition_id(),
                                     absl::WebSafeBase64Escape(s.segment_id())};
}

}  // namespace strata::broker
