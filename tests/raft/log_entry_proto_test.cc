// Entries on the wire keep their type (raft/log_entry_proto.h).
#include "raft/log_entry_proto.h"

#include <gtest/gtest.h>

namespace strata::raft {
namespace {

TEST(LogEntryProto, EveryEntryTypeSurvivesTheWire) {
  for (EntryType type : {EntryType::kData, EntryType::kKraftVersion, EntryType::kVoters}) {
    Entry entry{3, 17, std::string("\x00\x01 bytes", 8), type};
    v1::LogEntry wire;
    EntryToProto(entry, &wire);
    ASSERT_TRUE(PlausibleEntryType(wire.type()));
    EXPECT_EQ(EntryFromProto(wire), entry) << EntryTypeName(type);
  }
}

TEST(LogEntryProto, ATypeThisBuildDoesNotKnowIsImplausible) {
  v1::LogEntry wire;
  wire.ParseFromString(std::string("\x20\x03", 2));  // field 4 (type) = 3
  EXPECT_EQ(wire.type(), 3);
  EXPECT_FALSE(PlausibleEntryType(wire.type()));
  EXPECT_FALSE(PlausibleEntryType(-1));
}

}  // namespace
}  // namespace strata::raft
