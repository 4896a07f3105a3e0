// The records of __consumer_offsets (group_record.h): keys and values round-trip, a
// layout pinned by hand, unknown key types and versions refused, and the partition of a
// group as Kafka computes it (Java's String.hashCode over UTF-16).

#include "broker/group/group_record.h"

#include <gtest/gtest.h>

namespace strata::broker {
namespace {

TEST(GroupRecord, KeysAndValuesRoundTrip) {
  for (const GroupRecordKey& key :
       {GroupRecordKey(OffsetKey{"g", "orders", 7}), GroupRecordKey(GroupKey{"g"}),
        GroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kGroupMetadata, "g", ""}),
        GroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kMemberMetadata, "g", "m-1"}),
        GroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kTargetMetadata, "g", ""}),
        GroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kTargetMember, "g", "m-1"}),
        GroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kCurrentAssignment, "g", "m-1"})}) {
    auto back = DecodeGroupRecordKey(EncodeGroupRecordKey(key));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, key);
  }
  OffsetValue o{.offset = 42, .leader_epoch = 3, .metadata = "m", .commit_timestamp_ms = 1000, .expire_timestamp_ms = -1};
  auto ob = DecodeOffsetValue(EncodeOffsetValue(o));
  ASSERT_TRUE(ob.ok());
  EXPECT_EQ(*ob, o);
  GroupValue g;
  g.protocol_type = "consumer";
  g.generation_id = 5;
  g.protocol_name = "range";
  g.leader_id = "m-1";
  g.state_timestamp_ms = 77;
  g.members.push_back({"m-1", std::string("i-1"), "client", "/127.0.0.1", 30000, 10000, "sub", "assign"});
  g.members.push_back({"m-2", std::nullopt, "client", "", 30000, 10000, "", ""});
  auto gb = DecodeGroupValue(EncodeGroupValue(g));
  ASSERT_TRUE(gb.ok()) << gb.status();
  EXPECT_EQ(*gb, g);
}

TEST(GroupRecord, TheOffsetKeyLayoutIsPinned) {
  EXPECT_EQ(EncodeGroupRecordKey(OffsetKey{"g", "t", 1}),
            std::string("\x00\x01" "\x00\x01" "g" "\x00\x01" "t" "\x00\x00\x00\x01", 12));
  EXPECT_EQ(EncodeGroupRecordKey(GroupKey{"g"}), std::string("\x00\x02\x00\x01g", 5));
  EXPECT_EQ(EncodeGroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kMemberMetadata, "g", "m"}),
            std::string("\x00\x04" "\x00\x01" "g" "\x00\x01" "m", 8));
  EXPECT_EQ(EncodeGroupRecordKey(ConsumerGroupKey{ConsumerRecordType::kTargetMetadata, "g", ""}),
            std::string("\x00\x05\x00\x01g", 5));
}

TEST(GroupRecord, UnknownKeyTypesVersionsAndTrailingBytesAreRefused) {
  EXPECT_FALSE(DecodeGroupRecordKey(std::string("\x00\x09\x00\x01g", 5)).ok());
  EXPECT_FALSE(DecodeGroupRecordKey(EncodeGroupRecordKey(GroupKey{"g"}) + "x").ok());
  std::string v = EncodeOffsetValue(OffsetValue{});
  v[1] = 1;  // version 1
  EXPECT_FALSE(DecodeOffsetValue(v).ok());
  std::string g = EncodeGroupValue(GroupValue{});
  EXPECT_FALSE(DecodeGroupValue(g.substr(0, g.size() - 1)).ok());
}

TEST(GroupRecord, AGroupLandsWhereKafkaPutsIt) {
  // Java: "hello".hashCode() == 99162322, "polygenelubricants".hashCode() == Integer.MIN_VALUE
  // (Kafka's Utils.abs makes it 0), "\u00e9" is 233, U+1F600 is a surrogate pair.
  EXPECT_EQ(OffsetsPartitionFor("hello", 1 << 30), 99162322);
  EXPECT_EQ(OffsetsPartitionFor("hello", 50), 99162322 % 50);
  EXPECT_EQ(OffsetsPartitionFor("polygenelubricants", 50), 0);
  EXPECT_EQ(OffsetsPartitionFor("\xc3\xa9", 1 << 30), 233);
  EXPECT_EQ(OffsetsPartitionFor("\xf0\x9f\x98\x80", 1 << 30), 0xD83D * 31 + 0xDE00);
  EXPECT_EQ(OffsetsPartitionFor("", 50), 0);
}

}  // namespace
}  // namespace strata::broker
