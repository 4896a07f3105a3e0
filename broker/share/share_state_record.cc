#include "broker/share/share_state_record.h"

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "broker/group/group_record.h"
#include "proto/kafka/wire.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;

constexpr int16_t kSnapshotKeyType = 0;
constexpr int16_t kValueVersion = 0;
constexpr bool kClassic = false;  // int16 string lengths, int32 array counts

}  // namespace

std::string EncodeShareStateKey(const ShareStateKey& key) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kSnapshotKeyType);
  w.String(key.group_id, kClassic);
  w.Uuid(key.topic_id);
  w.Int32(key.partition);
  return out;
}

absl::StatusOr<ShareStateKey> DecodeShareStateKey(absl::string_view bytes) {
  kafka::Reader r(bytes);
  int16_t type = r.Int16("key type");
  if (r.ok() && type != kSnapshotKeyType) {
    return absl::DataLossError(absl::StrCat("__share_group_state key of unknown type ", type));
  }
  ShareStateKey key;
  key.group_id = r.String(kClassic, "group_id");
  key.topic_id = r.Uuid("topic_id");
  key.partition = r.Int32("partition");
  if (absl::Status s = RecordFullyRead(r, "__share_group_state key"); !s.ok()) return s;
  return key;
}

std::string ShareCoordinatorKey(const ShareStateKey& key) {
  return absl::StrCat(key.group_id, ":", absl::WebSafeBase64Escape(key.topic_id), ":", key.partition);
}

absl::StatusOr<ShareStateKey> ParseShareCoordinatorKey(absl::string_view text) {
  auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat("share coordinator key '", text, "' is not groupId:topicId:partition"));
  };
  const size_t last = text.rfind(':');
  if (last == absl::string_view::npos || last == 0) return invalid();
  const size_t middle = text.rfind(':', last - 1);
  if (middle == absl::string_view::npos || middle == 0) return invalid();
  ShareStateKey key;
  key.group_id = std::string(text.substr(0, middle));
  if (!absl::WebSafeBase64Unescape(text.substr(middle + 1, last - middle - 1), &key.topic_id) ||
      key.topic_id.size() != 16) {
    return invalid();
  }
  if (!absl::SimpleAtoi(text.substr(last + 1), &key.partition) || key.partition < 0) return invalid();
  return key;
}

int32_t ShareCoordinatorPartitionFor(absl::string_view coordinator_key, int32_t partitions) {
  // Kafka's Utils.abs(hashCode) % partitions (Integer.MIN_VALUE counts as 0).
  const int32_t h = JavaStringHashCode(coordinator_key);
  const int64_t abs = h == INT32_MIN ? 0 : (h < 0 ? -static_cast<int64_t>(h) : h);
  return static_cast<int32_t>(abs % partitions);
}

int32_t ShareStatePartitionFor(const ShareStateKey& key, int32_t partitions) {
  return ShareCoordinatorPartitionFor(ShareCoordinatorKey(key), partitions);
}

std::string EncodeShareSnapshotValue(const ShareSnapshotValue& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.Int32(v.snapshot_epoch);
  w.Int32(v.state_epoch);
  w.Int32(v.leader_epoch);
  w.Int64(v.state.start_offset);
  w.Int64(v.create_timestamp_ms);
  w.Int64(v.write_timestamp_ms);
  w.ArrayLength(static_cast<int32_t>(v.state.batches.size()), kClassic);
  for (const ShareStateBatch& b : v.state.batches) {
    w.Int64(b.first_offset);
    w.Int64(b.last_offset);
    w.Int8(static_cast<int8_t>(b.state));
    w.Int16(b.delivery_count);
  }
  return out;
}

absl::StatusOr<ShareSnapshotValue> DecodeShareSnapshotValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "share snapshot value"); !s.ok()) return s;
  ShareSnapshotValue v;
  v.snapshot_epoch = r.Int32("snapshot_epoch");
  v.state_epoch = r.Int32("state_epoch");
  v.leader_epoch = r.Int32("leader_epoch");
  v.state.start_offset = r.Int64("start_offset");
  v.create_timestamp_ms = r.Int64("create_timestamp");
  v.write_timestamp_ms = r.Int64("write_timestamp");
  int32_t n = r.ArrayLength(kClassic, "state_batches");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    ShareStateBatch b;
    b.first_offset = r.Int64("first_offset");
    b.last_offset = r.Int64("last_offset");
    int8_t state = r.Int8("delivery_state");
    b.delivery_count = r.Int16("delivery_count");
    if (!r.ok()) break;
    if (!IsShareRecordState(state)) return absl::DataLossError(absl::StrCat("share snapshot: delivery state ", state));
    b.state = static_cast<ShareRecordState>(state);
    v.state.batches.push_back(b);
  }
  if (absl::Status s = RecordFullyRead(r, "share snapshot value"); !s.ok()) return s;
  if (absl::Status s = CheckShareState(v.state); !s.ok()) {
    return absl::DataLossError(absl::StrCat("share snapshot: ", s.message()));
  }
  return v;
}

}  // namespace strata::broker
