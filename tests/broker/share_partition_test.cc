// broker/share/share_partition.h: acquisition, acknowledgement, locks, delivery counts and
// the persisted state of one share partition.

#include "broker/share/share_partition.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace strata::broker {
namespace {

using proto::kafka::ErrorCode;
using A = AcknowledgeType;
using S = ShareRecordState;

SharePartitionOptions Options(int32_t limit = 5, int32_t max_in_flight = 2000) {
  SharePartitionOptions o;
  o.record_lock_duration_ms = 30000;
  o.delivery_count_limit = limit;
  o.max_in_flight_records = max_in_flight;
  return o;
}

TEST(SharePartition, ConsumersAcquireDisjointRecordsAndAcceptedOnesMoveTheStart) {
  SharePartition p(Options(), 100);
  // Three consumers share one partition of 30 records: each gets its own.
  EXPECT_EQ(p.Acquire("a", 10, 130, 0), (std::vector<AcquiredRecords>{{100, 109, 1}}));
  EXPECT_EQ(p.Acquire("b", 10, 130, 0), (std::vector<AcquiredRecords>{{110, 119, 1}}));
  EXPECT_EQ(p.Acquire("c", 10, 130, 0), (std::vector<AcquiredRecords>{{120, 129, 1}}));
  EXPECT_TRUE(p.Acquire("a", 10, 130, 0).empty()) << "nothing left below the log's end";
  EXPECT_EQ(p.end_offset(), 130);
  // b's records are accepted before a's: the start waits for the oldest.
  EXPECT_EQ(p.Acknowledge("b", 110, 119, {A::kAccept}, 1), ErrorCode::kNone);
  EXPECT_EQ(p.start_offset(), 100);
  EXPECT_EQ(p.Acknowledge("a", 100, 109, {A::kAccept}, 1), ErrorCode::kNone);
  EXPECT_EQ(p.start_offset(), 120);
  EXPECT_EQ(p.in_flight(), 10u);
}

TEST(SharePartition, OnlyTheMemberHoldingARecordAcknowledgesItAndAFailedRequestChangesNothing) {
  SharePartition p(Options(), 0);
  p.Acquire("a", 5, 10, 0);
  p.Acquire("b", 5, 10, 0);
  EXPECT_EQ(p.Acknowledge("b", 0, 4, {A::kAccept}, 1), ErrorCode::kInvalidRecordState);
  // 4..5 spans a's and b's: all or nothing.
  EXPECT_EQ(p.Acknowledge("a", 4, 5, {A::kAccept}, 1), ErrorCode::kInvalidRecordState);
  EXPECT_EQ(p.StateOf(4), S::kAcquired);
  EXPECT_EQ(p.Acknowledge("a", 0, 4, {A::kAccept}, 1), ErrorCode::kNone);
  EXPECT_EQ(p.Acknowledge("a", 0, 4, {A::kAccept}, 1), ErrorCode::kInvalidRecordState) << "twice";
  EXPECT_EQ(p.Acknowledge("b", 5, 20, {A::kAccept}, 1), ErrorCode::kInvalidRecordState) << "past the end";
  // Malformed: a type list of the wrong length, an unknown type, an empty range.
  EXPECT_EQ(p.Acknowledge("b", 5, 6, {A::kAccept, A::kAccept, A::kAccept}, 1), ErrorCode::kInvalidRequest);
  EXPECT_EQ(p.Acknowledge("b", 5, 5, {static_cast<A>(9)}, 1), ErrorCode::kInvalidRequest);
  EXPECT_EQ(p.Acknowledge("b", 6, 5, {A::kAccept}, 1), ErrorCode::kInvalidRequest);
  EXPECT_EQ(p.StateOf(5), S::kAcquired);
}

TEST(SharePartition, ReleasedRecordsAreRedeliveredFirstWithTheirCount) {
  SharePartition p(Options(), 0);
  p.Acquire("a", 10, 20, 0);
  // One type per offset: accept 0-1, release 2-3, reject 4, gap 5, accept the rest.
  std::vector<A> types = {A::kAccept, A::kAccept, A::kRelease, A::kRelease, A::kReject,
                          A::kGap,    A::kAccept, A::kAccept,  A::kAccept,  A::kAccept};
  ASSERT_EQ(p.Acknowledge("a", 0, 9, types, 1), ErrorCode::kNone);
  EXPECT_EQ(p.start_offset(), 2);
  EXPECT_EQ(p.StateOf(2), S::kAvailable);
  EXPECT_EQ(p.StateOf(4), S::kArchived);
  EXPECT_EQ(p.StateOf(5), S::kArchived);
  // The released pair comes back (second delivery) before any new record.
  EXPECT_EQ(p.Acquire("b", 4, 20, 2), (std::vector<AcquiredRecords>{{2, 3, 2}, {10, 11, 1}}));
  ASSERT_EQ(p.Acknowledge("b", 2, 3, {A::kAccept}, 3), ErrorCode::kNone);
  EXPECT_EQ(p.start_offset(), 10) << "2-3 accepted, 4-5 archived, 6-9 accepted";
}

TEST(SharePartition, AnExpiredLockRedeliversAndTheLimitArchivesAPoisonRecord) {
  SharePartition p(Options(/*limit=*/3), 0);
  EXPECT_EQ(p.Acquire("a", 1, 2, 0), (std::vector<AcquiredRecords>{{0, 0, 1}}));
  EXPECT_EQ(p.NextLockDeadline(), 30000);
  EXPECT_EQ(p.ExpireLocks(29999), 0);
  EXPECT_EQ(p.ExpireLocks(30000), 1);
  EXPECT_EQ(p.StateOf(0), S::kAvailable);
  EXPECT_FALSE(p.NextLockDeadline().has_value());
  // A member's acknowledgement after its lock ran out is refused: the record is not its.
  EXPECT_EQ(p.Acknowledge("a", 0, 0, {A::kAccept}, 30001), ErrorCode::kInvalidRecordState);
  EXPECT_EQ(p.Acquire("b", 1, 2, 30001), (std::vector<AcquiredRecords>{{0, 0, 2}}));
  ASSERT_EQ(p.Acknowledge("b", 0, 0, {A::kRelease}, 30002), ErrorCode::kNone);
  EXPECT_EQ(p.Acquire("c", 1, 2, 30003), (std::vector<AcquiredRecords>{{0, 0, 3}}));
  // The third delivery was the limit: released again, it is archived, and 1 comes next.
  EXPECT_EQ(p.ExpireLocks(60003), 1);
  EXPECT_EQ(p.start_offset(), 1);
  EXPECT_EQ(p.Acquire("c", 1, 2, 60004), (std::vector<AcquiredRecords>{{1, 1, 1}}));
}

TEST(SharePartition, RenewKeepsTheLockAndALeavingMemberReleasesWhatItHeld) {
  SharePartition p(Options(), 0);
  p.Acquire("a", 4, 10, 0);
  p.Acquire("b", 2, 10, 0);
  ASSERT_EQ(p.Acknowledge("a", 0, 1, {A::kRenew}, 20000), ErrorCode::kNone);
  EXPECT_EQ(p.ExpireLocks(30000), 4) << "a's 2-3 and b's 4-5; 0-1 were renewed";
  EXPECT_EQ(p.StateOf(0), S::kAcquired);
  EXPECT_EQ(p.NextLockDeadline(), 50000);
  EXPECT_EQ(p.ReleaseMember("a"), 2);
  EXPECT_EQ(p.StateOf(0), S::kAvailable);
  EXPECT_EQ(p.DeliveryCountOf(0), 1);
  EXPECT_EQ(p.ReleaseMember("a"), 0);
}

TEST(SharePartition, TheInFlightWindowIsBounded) {
  SharePartition p(Options(5, /*max_in_flight=*/10), 0);
  EXPECT_EQ(p.Acquire("a", 100, 1000, 0), (std::vector<AcquiredRecords>{{0, 9, 1}}));
  EXPECT_TRUE(p.Acquire("b", 100, 1000, 0).empty());
  ASSERT_EQ(p.Acknowledge("a", 0, 3, {A::kAccept}, 1), ErrorCode::kNone);
  EXPECT_EQ(p.Acquire("b", 100, 1000, 1), (std::vector<AcquiredRecords>{{10, 13, 1}}));
}

TEST(SharePartition, TheLogStartMovingPastTheStartDropsWhatIsGone) {
  SharePartition p(Options(), 0);
  p.Acquire("a", 10, 10, 0);
  p.AdvanceToLogStart(6);
  EXPECT_EQ(p.start_offset(), 6);
  EXPECT_EQ(p.in_flight(), 4u);
  EXPECT_EQ(p.Acknowledge("a", 2, 3, {A::kAccept}, 1), ErrorCode::kInvalidRecordState);
  p.AdvanceToLogStart(50);
  EXPECT_EQ(p.start_offset(), 50);
  EXPECT_EQ(p.end_offset(), 50);
  EXPECT_EQ(p.Acquire("a", 2, 60, 2), (std::vector<AcquiredRecords>{{50, 51, 1}}));
}

TEST(SharePartition, TheStateRoundTripsWithLocksDroppedAndTheLimitApplied) {
  SharePartition p(Options(/*limit=*/2), 0);
  p.Acquire("a", 8, 8, 0);
  std::vector<A> types = {A::kAccept, A::kRelease, A::kAccept, A::kReject,
                          A::kRelease, A::kRelease, A::kAccept, A::kAccept};
  ASSERT_EQ(p.Acknowledge("a", 0, 7, types, 1), ErrorCode::kNone);
  p.Acquire("b", 1, 8, 2);  // offset 1, second delivery: the limit, and still Acquired
  SharePartitionState state = p.State();
  EXPECT_EQ(state, (SharePartitionState{1,
                                        {{1, 1, S::kAvailable, 2},
                                         {2, 2, S::kAcknowledged, 1},
                                         {3, 3, S::kArchived, 1},
                                         {4, 5, S::kAvailable, 1},
                                         {6, 7, S::kAcknowledged, 1}}}));
  // Loaded by the next leader: b's lock is gone, and its record had reached the limit.
  SharePartition loaded(Options(/*limit=*/2), state);
  EXPECT_EQ(loaded.start_offset(), 4);
  EXPECT_EQ(loaded.end_offset(), 8);
  EXPECT_EQ(loaded.Acquire("c", 10, 8, 3), (std::vector<AcquiredRecords>{{4, 5, 2}}));
  // A hole between persisted runs was never delivered.
  SharePartition holed(Options(), SharePartitionState{10, {{12, 12, S::kAcknowledged, 1}}});
  EXPECT_EQ(holed.Acquire("d", 5, 15, 0), (std::vector<AcquiredRecords>{{10, 11, 1}, {13, 14, 1}}));
}

}  // namespace
}  // namespace strata::broker
