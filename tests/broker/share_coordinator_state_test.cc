// broker/share/share_coordinator_state.h: the share coordinator's rules for the state
// APIs, fencing by leader and state epochs, and what each writes.

#include "broker/share/share_coordinator_state.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;
using S = ShareRecordState;

const ShareStateKey kKey{"queue-app", std::string(16, 't'), 0};

// Runs a rule's write as the coordinator would once it is committed.
ShareStateOutcome Commit(ShareStates& states, ShareStateOutcome out) {
  if (out.error == ErrorCode::kNone && out.write) ApplyShareStateWrite(states, *out.write);
  return out;
}

TEST(ShareCoordinatorState, InitializeWriteAndReadBackWithEpochsMovingOn) {
  ShareStates states;
  ShareStateOutcome never = ReadShareState(states, kKey, 0, 1);
  EXPECT_EQ(never.error, ErrorCode::kInvalidRequest) << "never initialized";
  EXPECT_FALSE(never.state.has_value());
  EXPECT_FALSE(ReadShareStateSummary(states, kKey, 0).state.has_value());
  EXPECT_FALSE(never.write.has_value());

  ASSERT_EQ(Commit(states, InitializeShareState(states, kKey, 1, 100, 10)).error, ErrorCode::kNone);
  EXPECT_EQ(states.at(kKey).state, (SharePartitionState{100, {}}));
  EXPECT_EQ(states.at(kKey).create_timestamp_ms, 10);

  SharePartitionState written{105, {{105, 107, S::kAvailable, 2}, {109, 109, S::kAcknowledged, 1}}};
  ASSERT_EQ(Commit(states, WriteShareState(states, kKey, 1, 3, written, 20)).error, ErrorCode::kNone);
  const ShareSnapshotValue& v = states.at(kKey);
  EXPECT_EQ(v.snapshot_epoch, 1);
  EXPECT_EQ(v.leader_epoch, 3);
  EXPECT_EQ(v.create_timestamp_ms, 10);
  EXPECT_EQ(v.write_timestamp_ms, 20);
  ShareStateOutcome read = ReadShareState(states, kKey, 3, 30);
  ASSERT_TRUE(read.state.has_value());
  EXPECT_EQ(read.state->state, written);
  EXPECT_FALSE(read.write.has_value()) << "the same leader epoch: nothing to record";
}

TEST(ShareCoordinatorState, ANewLeadersReadFencesTheOldLeadersWrites) {
  ShareStates states;
  Commit(states, InitializeShareState(states, kKey, 1, 0, 0));
  ASSERT_EQ(Commit(states, WriteShareState(states, kKey, 1, 4, {0, {{0, 9, S::kAvailable, 1}}}, 1)).error,
            ErrorCode::kNone);
  // The partition's leadership moves to epoch 5; the new leader reads first.
  ShareStateOutcome read = Commit(states, ReadShareState(states, kKey, 5, 2));
  ASSERT_TRUE(read.write.has_value()) << "a higher leader epoch is written before the read is answered";
  EXPECT_EQ(states.at(kKey).leader_epoch, 5);
  // The old leader's late acknowledgement cannot overwrite what the new one read.
  ShareStateOutcome late = WriteShareState(states, kKey, 1, 4, {10, {}}, 3);
  EXPECT_EQ(late.error, ErrorCode::kFencedLeaderEpoch);
  EXPECT_FALSE(late.write.has_value());
  EXPECT_EQ(ReadShareState(states, kKey, 4, 4).error, ErrorCode::kFencedLeaderEpoch);
  EXPECT_EQ(states.at(kKey).state.start_offset, 0);
}

TEST(ShareCoordinatorState, AResetFencesWritesOfTheOldStateAndDeleteTombstones) {
  ShareStates states;
  Commit(states, InitializeShareState(states, kKey, 1, 0, 0));
  EXPECT_EQ(InitializeShareState(states, kKey, 0, 50, 1).error, ErrorCode::kFencedStateEpoch) << "below";
  ASSERT_EQ(Commit(states, InitializeShareState(states, kKey, 2, 50, 1)).error, ErrorCode::kNone);  // an alter
  EXPECT_EQ(WriteShareState(states, kKey, 1, 0, {3, {}}, 2).error, ErrorCode::kFencedStateEpoch);
  EXPECT_EQ(WriteShareState(states, kKey, 2, 0, {60, {{59, 59, S::kArchived, 1}}}, 2).error,
            ErrorCode::kInvalidRequest)
      << "a batch below the start offset";
  ShareStateOutcome gone = Commit(states, DeleteShareState(states, kKey));
  ASSERT_TRUE(gone.write.has_value());
  EXPECT_FALSE(gone.write->value.has_value()) << "a tombstone";
  EXPECT_TRUE(states.empty());
  EXPECT_FALSE(DeleteShareState(states, kKey).write.has_value()) << "nothing to delete";
  // Replaying what was committed, in order, gives the same states (a load).
  ShareStates replayed;
  for (const ShareStateWrite& w : {*InitializeShareState(replayed, kKey, 1, 7, 0).write}) {
    ApplyShareStateWrite(replayed, w);
  }
  EXPECT_EQ(replayed.at(kKey).state.start_offset, 7);
}

}  // namespace
}  // namespace strata::broker
