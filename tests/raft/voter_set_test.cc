// VoterSet (KIP-853): the one-voter-at-a-time changes and their refusals, and the
// VotersRecord / KRaftVersionRecord / control key encodings, pinned by hand-written bytes
// as Kafka's schemas lay them out.

#include "raft/voter_set.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"

namespace strata::raft {
namespace {

std::string Dir(char c) { return std::string(16, c); }

Voter V(NodeId id, char dir, uint16_t port = 9093) {
  return Voter{.id = id, .directory_id = Dir(dir), .endpoints = {{"CONTROLLER", "127.0.0.1", port}}};
}

TEST(VoterSet, ChangesGoOneVoterAtATimeAndRefuseWhatBreaksTheQuorum) {
  auto set = VoterSet::Of({V(1, 'a'), V(2, 'b'), V(3, 'c')});
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->Majority(), 2u);
  EXPECT_TRUE(set->Contains(2));
  EXPECT_TRUE(set->Contains(2, Dir('b')));
  EXPECT_FALSE(set->Contains(2, Dir('x')));  // the same node formatted again is another voter

  auto four = set->Add(V(4, 'd'));
  ASSERT_TRUE(four.ok()) << four.status();
  EXPECT_EQ(four->Majority(), 3u);
  EXPECT_EQ(set->size(), 3u);  // the original is unchanged
  auto again = four->Add(V(4, 'e'));
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);

  EXPECT_EQ(four->Remove(1, Dir('x')).status().code(), absl::StatusCode::kNotFound);
  auto three = four->Remove(1, Dir('a'));
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_EQ(three->ids(), (std::vector<NodeId>{2, 3, 4}));

  auto one = VoterSet::Of({V(7, 'z')});
  ASSERT_TRUE(one.ok());
  auto none = one->Remove(7, Dir('z'));
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(absl::StrContains(none.status().message(), "last")) << none.status();

  Voter moved = V(2, 'b', 19093);
  auto updated = set->Update(moved);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->Find(2)->endpoints[0].port, 19093);
  EXPECT_EQ(set->Update(V(9, 'q')).status().code(), absl::StatusCode::kNotFound);
}

TEST(VoterSet, MalformedSetsAreRefusedNamingTheVoter) {
  EXPECT_FALSE(VoterSet::Of({}).ok());
  auto twice = VoterSet::Of({V(1, 'a'), V(1, 'b')});
  EXPECT_TRUE(absl::StrContains(twice.status().message(), "voter 1 named twice")) << twice.status();
  Voter short_dir = V(2, 'a');
  short_dir.directory_id = "abc";
  EXPECT_TRUE(absl::StrContains(VoterSet::Of({short_dir}).status().message(), "16 bytes"));
  Voter two_names = V(3, 'a');
  two_names.endpoints.push_back(two_names.endpoints[0]);
  EXPECT_TRUE(absl::StrContains(VoterSet::Of({two_names}).status().message(), "named twice"));
}

TEST(VoterSet, VotersRecordRoundTripsAndMatchesKafkasLayout) {
  auto set = VoterSet::Of({V(1, 'a'), V(2, 'b', 19093)});
  ASSERT_TRUE(set.ok());
  auto decoded = VoterSet::Decode(set->Encode());
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, *set);

  // One voter, by hand: version 0; compact array of 1 (2); id 5; uuid; compact array of
  // 1 endpoint (2): "C" (2 'C'), "h" (2 'h'), port 0x0102, no tags; kraft range 0..1, no
  // tags (the feature's), no tags (the voter's); no tags (the record's).
  std::string bytes = std::string("\x00\x00", 2) + "\x02" + std::string("\x00\x00\x00\x05", 4) + Dir('u') +
                      "\x02" + "\x02" "C" + "\x02" "h" + std::string("\x01\x02", 2) + std::string("\x00", 1) +
                      std::string("\x00\x00\x00\x01", 4) + std::string("\x00\x00\x00", 3);
  Voter five{.id = 5, .directory_id = Dir('u'), .endpoints = {{"C", "h", 0x0102}}};
  auto one = VoterSet::Of({five});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->Encode(), bytes);
  auto read = VoterSet::Decode(bytes);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, *one);

  EXPECT_FALSE(VoterSet::Decode(bytes.substr(0, bytes.size() - 1)).ok());  // cut short
  EXPECT_FALSE(VoterSet::Decode(bytes + "x").ok());                         // bytes after its end
  std::string version1 = bytes;
  version1[1] = 1;
  EXPECT_TRUE(absl::StrContains(VoterSet::Decode(version1).status().message(), "version 1"));
}

TEST(VoterSet, KraftVersionRecordAndControlKeys) {
  EXPECT_EQ(EncodeKraftVersion(1), std::string("\x00\x00\x00\x01\x00", 5));
  EXPECT_EQ(*DecodeKraftVersion(EncodeKraftVersion(1)), 1);
  EXPECT_FALSE(DecodeKraftVersion(EncodeKraftVersion(2)).ok());
  EXPECT_EQ(EncodeControlKey(kKraftVotersControlType), std::string("\x00\x00\x00\x06", 4));
  EXPECT_EQ(*DecodeControlKey(EncodeControlKey(kKraftVersionControlType)), kKraftVersionControlType);
  EXPECT_FALSE(DecodeControlKey(std::string("\x00\x01\x00\x06", 4)).ok());
}

}  // namespace
}  // namespace strata::raft
