// broker/share/share_state_record.h: __share_group_state's keys and snapshots round-trip,
// their bytes are the documented layout, and damaged ones are refused by name.

#include "broker/share/share_state_record.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/kafka/wire.h"

namespace strata::broker {
namespace {

using S = ShareRecordState;

ShareSnapshotValue Sample() {
  ShareSnapshotValue v;
  v.snapshot_epoch = 7;
  v.state_epoch = 2;
  v.leader_epoch = 5;
  v.create_timestamp_ms = 1000;
  v.write_timestamp_ms = 2000;
  v.state = {100, {{100, 104, S::kAvailable, 2}, {105, 105, S::kAcknowledged, 1}, {107, 109, S::kArchived, 5}}};
  return v;
}

TEST(ShareStateRecord, KeysAndSnapshotsRoundTripInTheDocumentedLayout) {
  ShareStateKey key{"queue-app", std::string(16, 't'), 3};
  std::string key_bytes = EncodeShareStateKey(key);
  std::string want_key;
  proto::kafka::Writer k(&want_key);
  k.Int16(0);
  k.String("queue-app", false);
  k.Uuid(std::string(16, 't'));
  k.Int32(3);
  EXPECT_EQ(key_bytes, want_key);
  auto decoded_key = DecodeShareStateKey(key_bytes);
  ASSERT_TRUE(decoded_key.ok()) << decoded_key.status();
  EXPECT_EQ(*decoded_key, key);

  ShareSnapshotValue v = Sample();
  std::string bytes = EncodeShareSnapshotValue(v);
  EXPECT_EQ(bytes.size(), 2 + 3 * 4 + 3 * 8 + 4 + 3 * (8 + 8 + 1 + 2));
  auto decoded = DecodeShareSnapshotValue(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, v);
  // A share partition's own state survives the trip (what a new leader loads).
  SharePartitionOptions o;
  SharePartition p(o, 40);
  p.Acquire("a", 5, 50, 0);
  ASSERT_EQ(p.Acknowledge("a", 40, 41, {AcknowledgeType::kRelease}, 1), proto::kafka::ErrorCode::kNone);
  ShareSnapshotValue from_partition;
  from_partition.state = p.State();
  auto back = DecodeShareSnapshotValue(EncodeShareSnapshotValue(from_partition));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->state, p.State());
}

TEST(ShareStateRecord, DamagedRecordsAreRefusedByName) {
  std::string bytes = EncodeShareSnapshotValue(Sample());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    EXPECT_FALSE(DecodeShareSnapshotValue(bytes.substr(0, cut)).ok()) << "truncated at " << cut;
  }
  EXPECT_FALSE(DecodeShareSnapshotValue(bytes + "x").ok());
  std::string other_version = bytes;
  other_version[1] = 1;
  EXPECT_NE(DecodeShareSnapshotValue(other_version).status().message().find("version 1"), std::string::npos);
  ShareSnapshotValue overlapping = Sample();
  overlapping.state.batches[1].first_offset = 104;
  EXPECT_NE(DecodeShareSnapshotValue(EncodeShareSnapshotValue(overlapping)).status().message().find("overlapping"),
            std::string::npos);
  ShareSnapshotValue before_start = Sample();
  before_start.state.start_offset = 101;
  EXPECT_FALSE(DecodeShareSnapshotValue(EncodeShareSnapshotValue(before_start)).ok());
  ShareSnapshotValue bad_state = Sample();
  bad_state.state.batches[0].state = static_cast<S>(3);
  EXPECT_NE(DecodeShareSnapshotValue(EncodeShareSnapshotValue(bad_state)).status().message().find("delivery state 3"),
            std::string::npos);
  std::string key = EncodeShareStateKey({"g", std::string(16, 't'), 0});
  key[1] = 1;  // an update key (Kafka's ShareUpdate): Strata writes none
  EXPECT_NE(DecodeShareStateKey(key).status().message().find("unknown type 1"), std::string::npos);
}

}  // namespace
}  // namespace strata::broker
