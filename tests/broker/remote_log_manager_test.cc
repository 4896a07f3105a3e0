// The remote log manager on a real log, a real directory remote store (with faults
// injected) and a controller that applies the real transition rules
// (controller::RemoteLogSegments) behind a loopback gRPC server: what it copies and in
// which order, that a failed copy is never FINISHED and is cleaned up and retried,
// that a failed delete is retried, that a new leader cleans up after the previous one
// and resumes after its highest copy, and retention over both tiers.

#include "broker/tiered/remote_log_manager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "broker/common/kafka_error.h"
#include "broker/common/remote_segment_id.h"
#include "broker/replication/replica_manager.h"
#include "controller.grpc.pb.h"
#include "storage/directory_remote_storage.h"
#include "storage/errc.h"
#include "tests/support/batches.h"
#include "tests/support/loopback_grpc.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

using Segment = controller::RemoteLogSegments::Segment;
namespace pb = metadata::v1;

constexpr int32_t kBroker = 1;
const std::string kTopicId(16, 't');

// The controller's side: each update is applied to one partition's copies by the real
// rules, with the partition led by `leader` in `epoch`.
class TransitionsController final : public controller::v1::ControllerService::Service {
 public:
  grpc::Status RemoteLogSegmentUpdate(grpc::ServerContext*, const controller::v1::RemoteLogSegmentUpdateRequest* request,
                                      controller::v1::RemoteLogSegmentUpdateResponse* response) override {
    absl::MutexLock lock(&mu_);
    pb::Partition partition;
    partition.set_leader(leader_);
    partition.set_leader_epoch(epoch_);
    absl::Status s = segments_.Apply(request->segment(), partition, "orders-0");
    if (!s.ok()) {
      response->set_error_code(42);  // INVALID_REQUEST
      response->set_error_message(std::string(s.message()));
    } else if (lose_answer_to_ && *lose_answer_to_ == request->segment().state()) {
      lose_answer_to_.reset();
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "recorded, answer lost");
    }
    return grpc::Status::OK;
  }
  std::map<std::string, Segment> segments() {
    absl::MutexLock lock(&mu_);
    return segments_.segments();
  }
  void Load(Segment s) {
    absl::MutexLock lock(&mu_);
    segments_.Load(std::move(s));
  }
  void Lead(int32_t leader, int32_t epoch) {
    absl::MutexLock lock(&mu_);
    leader_ = leader;
    epoch_ = epoch;
  }
  // Records the next transition to state, then answers as if the network lost it.
  void LoseAnswerTo(Segment::State state) {
    absl::MutexLock lock(&mu_);
    lose_answer_to_ = state;
  }

 private:
  absl::Mutex mu_;
  controller::RemoteLogSegments segments_ ABSL_GUARDED_BY(mu_);
  int32_t leader_ ABSL_GUARDED_BY(mu_) = kBroker;
  int32_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  std::optional<Segment::State> lose_answer_to_ ABSL_GUARDED_BY(mu_);
};

// The directory store, with copies or deletes failing on demand.
class FaultyRemoteStorage final : public storage::RemoteStorageManager {
 public:
  explicit FaultyRemoteStorage(std::string root) : inner_(*storage::FileOps::Default(), std::move(root)) {}
  absl::Status CopyLogSegmentData(const storage::RemoteLogSegmentId& id, const storage::LogSegmentData& data) override {
    if (fail_copies > 0) {
      --fail_copies;
      // Half-written: the .log lands, the rest does not.
      storage::LogSegmentData part = data;
      (void)inner_.CopyLogSegmentData(id, part);
      return storage::MakeError(storage::Errc::kRemoteStorageError, "injected copy failure");
    }
    ++copies;
    return inner_.CopyLogSegmentData(id, data);
  }
  absl::StatusOr<std::string> FetchLogSegment(const storage::RemoteLogSegmentId& id, uint64_t start,
                                              uint64_t end) override {
    return inner_.FetchLogSegment(id, start, end);
  }
  absl::StatusOr<std::string> FetchIndex(const storage::RemoteLogSegmentId& id, storage::RemoteIndexType t) override {
    return inner_.FetchIndex(id, t);
  }
  absl::Status DeleteLogSegmentData(const storage::RemoteLogSegmentId& id) override {
    if (fail_deletes > 0) {
      --fail_deletes;
      return storage::MakeError(storage::Errc::kRemoteStorageError, "injected delete failure");
    }
    return inner_.DeleteLogSegmentData(id);
  }
  absl::Status ListObjects(const std::string& prefix,
                           const std::function<void(const storage::RemoteObject&)>& each) override {
    return inner_.ListObjects(prefix, each);
  }
  absl::Status DeleteObjects(const std::vector<std::string>& names) override { return inner_.DeleteObjects(names); }
  bool Holds(const Segment& s) {
    return inner_.FetchLogSegment(RemoteIdOf(s), 0, 1).ok();
  }
  std::atomic<int> fail_copies{0};
  std::atomic<int> fail_deletes{0};
  std::atomic<int> copies{0};

 private:
  storage::DirectoryRemoteStorage inner_;
};

class RemoteLogManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loopback_ = testing::StartLoopbackController(&controller_);
    ASSERT_NE(loopback_.server, nullptr);
    storage::LogOptions o;
    o.dir = tmp_.Sub("orders-0");
    o.config.segment_bytes = 4096;
    o.config.remote_storage_enable = true;
    o.config.retention_ms = -1;
    o.clock = &clock_;
    auto log = storage::Log::Open(o);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = std::move(*log);
    partition_ = std::make_shared<Partition>(storage::TopicPartition{"orders", 0}, kBroker, log_.get());
    Lead(0);
    MakeManager(nullptr);
  }
  void MakeManager(RateQuota* copy_quota) {
    RemoteLogManagerOptions m;
    m.broker_id = kBroker;
    m.remote_storage = &remote_;
    m.controller = loopback_.client.get();
    m.broker_epoch = [] { return int64_t{7}; };
    m.remote_segments = [this](const std::string&, int32_t) { return controller_.segments(); };
    m.partitions = [this] { return std::vector<std::shared_ptr<Partition>>{partition_}; };
    m.retry_backoff = std::chrono::milliseconds(100);
    m.retry_backoff_max = std::chrono::milliseconds(400);
    m.controller_timeout = std::chrono::milliseconds(2000);
    m.clock = &clock_;
    m.copy_quota = copy_quota;
    manager_ = std::make_unique<RemoteLogManager>(std::move(m));
  }
  void Lead(int32_t epoch) {
    PartitionState s;
    s.topic_id = kTopicId;
    s.leader = kBroker;
    s.leader_epoch = epoch;
    s.partition_epoch = epoch;
    s.replicas = {kBroker};
    s.isr = {kBroker};
    ASSERT_TRUE(partition_->Update(s, clock_.NowMs()).ok());
    controller_.Lead(kBroker, epoch);
  }
  // Appends until the log has rolled `segments` times; the high watermark follows (ISR: this broker).
  void AppendRolling(int segments, int64_t timestamp = 1000) {
    while (log_->segment_count() < segments + 1) {
      std::string batch = testing::MakeBatch(10, "v", timestamp, 100);
      ASSERT_TRUE(partition_->AppendRecordsToLeader(batch).ok());
    }
  }
  std::vector<Segment> Finished() {
    std::vector<Segment> out;
    for (const auto& [id, s] : controller_.segments()) {
      if (s.state() == Segment::COPY_SEGMENT_FINISHED) out.push_back(s);
    }
    std::sort(out.begin(), out.end(), [](const Segment& a, const Segment& b) { return a.start_offset() < b.start_offset(); });
    return out;
  }
  // The partition as ReplicaManager::ApplyImage leaves it after the controller's records
  // (log_start_bound: the partition's log start as DeleteRecords moved it).
  void ApplyImage(int64_t log_start_bound = 0) {
    controller::RemoteLogSegments segments;
    for (const auto& [id, s] : controller_.segments()) segments.Load(s);
    RemoteTierState remote = RemoteTierOf(&segments, true, log_start_bound);
    partition_->UpdateRemoteTier(remote);
    log_->set_highest_offset_in_remote_storage(remote.highest_copied_offset);
  }

  testing::TempDir tmp_;
  storage::ManualClock clock_;
  TransitionsController controller_;
  testing::LoopbackController loopback_;
  FaultyRemoteStorage remote_{tmp_.Sub("remote")};
  std::unique_ptr<storage::Log> log_;
  std::shared_ptr<Partition> partition_;
  std::unique_ptr<RemoteLogManager> manager_;
};

TEST_F(RemoteLogManagerTest, RolledSegmentsBelowTheHighWatermarkAreCopiedInOffsetOrder) {
  AppendRolling(3);
  std::vector<int64_t> bases = log_->segment_base_offsets();
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), bases.size() - 1) << "every rolled segment, never the active one";
  for (size_t i = 0; i < finished.size(); ++i) {
    EXPECT_EQ(finished[i].start_offset(), bases[i]);
    EXPECT_EQ(finished[i].end_offset(), bases[i + 1] - 1);
    EXPECT_EQ(finished[i].broker_id(), kBroker);
    EXPECT_EQ(finished[i].segment_leader_epochs().at(0), bases[i]);
    EXPECT_TRUE(remote_.Holds(finished[i]));
  }
  EXPECT_EQ(manager_->stats().copies, static_cast<int64_t>(finished.size()));
  // Nothing new: a second pass copies nothing again.
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_EQ(Finished().size(), finished.size());
  EXPECT_EQ(remote_.copies.load(), static_cast<int>(finished.size()));
}

// KIP-956: with a copy quota, copies wait while the copied bytes' rate is above it; all
// of them still complete. Without one they never wait.
TEST_F(RemoteLogManagerTest, CopiesWaitForTheCopyQuotaAndStillComplete) {
  AppendRolling(3);
  RateQuota quota(RateQuota::Options{2, std::chrono::milliseconds(100)});
  quota.SetRate(20 << 10);  // 20 KiB/s against ~12 KiB of segments over a 100 ms span
  MakeManager(&quota);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_EQ(Finished().size(), log_->segment_base_offsets().size() - 1);
  EXPECT_GT(manager_->stats().copy_throttle_ms, 0);
  quota.SetRate(std::nullopt);
  AppendRolling(5);
  const int64_t waited = manager_->stats().copy_throttle_ms;
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_EQ(Finished().size(), log_->segment_base_offsets().size() - 1);
  EXPECT_EQ(manager_->stats().copy_throttle_ms, waited) << "no quota: no wait";
}

// KIP-1241: remote.copy.lag.bytes holds back the newest rolled segments until that many
// bytes of the local log follow them; what it holds back is not copy lag. Copies stay
// contiguous and the held-back segments are copied once enough follows them.
TEST_F(RemoteLogManagerTest, ASizeCopyLagHoldsBackTheNewestSegmentsUntilEnoughFollowsThem) {
  constexpr int64_t kLag = 3 * 4096;
  storage::LogConfig config = log_->config();
  config.remote_copy_lag_bytes = kLag;
  // 0 (the default) would make every segment due; -1 is local retention's time, unlimited here.
  config.remote_copy_lag_ms = -1;
  log_->UpdateConfig(config);
  AppendRolling(5);
  std::vector<int64_t> bases = log_->segment_base_offsets();
  size_t due = 0;  // the rolled segments with kLag bytes after them, oldest first
  while (due + 1 < bases.size() && log_->SizeOfSegmentsAbove(bases[due + 1] - 1) >= kLag) ++due;
  ASSERT_GT(due, 0u);
  ASSERT_LT(due, bases.size() - 1) << "the newest rolled segments are held back";
  EXPECT_EQ(manager_->copy_lag().segments, static_cast<int64_t>(due)) << "only what is due is lag";
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), due);
  for (size_t i = 0; i < due; ++i) EXPECT_EQ(finished[i].start_offset(), bases[i]);
  ApplyImage();
  EXPECT_EQ(manager_->copy_lag().segments, 0) << "held back is not lag";
  AppendRolling(static_cast<int>(bases.size()) + 4);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  finished = Finished();
  ASSERT_GT(finished.size(), bases.size() - 1) << "the held-back segments, once enough follows them";
  for (size_t i = 1; i < finished.size(); ++i) EXPECT_EQ(finished[i].start_offset(), finished[i - 1].end_offset() + 1);
}

// KIP-1241: remote.copy.lag.ms copies a rolled segment once its newest record is that old.
TEST_F(RemoteLogManagerTest, ATimeCopyLagCopiesASegmentOnceItsNewestRecordIsThatOld) {
  storage::LogConfig config = log_->config();
  config.remote_copy_lag_ms = 10'000;
  log_->UpdateConfig(config);
  AppendRolling(3, /*timestamp=*/clock_.NowMs());
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_TRUE(Finished().empty()) << "written just now";
  int64_t newest = -1;  // the rolled segments' newest record (a batch's records are a ms apart)
  for (const storage::RolledSegment& r : log_->RolledSegmentsAfter(-1, log_->last_stable_offset())) {
    newest = std::max(newest, r.max_timestamp);
  }
  ASSERT_GE(newest, clock_.NowMs());
  clock_.Advance(newest + 9'999 - clock_.NowMs());
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_LT(Finished().size(), log_->segment_base_offsets().size() - 1) << "the newest is not that old yet";
  clock_.Advance(1);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_EQ(Finished().size(), log_->segment_base_offsets().size() - 1);
}

TEST_F(RemoteLogManagerTest, ASegmentAboveTheHighWatermarkIsNotCopied) {
  PartitionState s = partition_->state();
  s.isr = {kBroker, 2};
  s.replicas = {kBroker, 2};
  ASSERT_TRUE(partition_->Update(s, clock_.NowMs()).ok());
  AppendRolling(2);
  EXPECT_EQ(log_->high_watermark(), 0) << "broker 2 has not fetched";
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_TRUE(controller_.segments().empty());
}

TEST_F(RemoteLogManagerTest, AFailedCopyIsNeverFinishedAndIsCleanedUpAndRetried) {
  AppendRolling(1);
  remote_.fail_copies = 1;
  absl::Status failed = manager_->RunTask(*partition_);
  EXPECT_EQ(storage::ErrcOf(failed), storage::Errc::kRemoteStorageError) << failed;
  auto after_failure = controller_.segments();
  ASSERT_EQ(after_failure.size(), 1u);
  EXPECT_EQ(after_failure.begin()->second.state(), Segment::COPY_SEGMENT_STARTED);
  EXPECT_EQ(manager_->stats().copy_errors, 1);
  Segment abandoned = after_failure.begin()->second;

  // Backing off: nothing happens before the backoff passes.
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_EQ(controller_.segments().size(), 1u);
  clock_.Advance(150);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  auto segments = controller_.segments();
  EXPECT_EQ(segments.count(abandoned.segment_id()), 0u) << "the half-written copy is deleted";
  EXPECT_FALSE(remote_.Holds(abandoned));
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].start_offset(), 0);
  EXPECT_EQ(segments.size(), 1u) << "registered once";
}

TEST_F(RemoteLogManagerTest, AFinishedWhoseAnswerIsLostIsConfirmedAndNotCopiedAgain) {
  AppendRolling(1);
  controller_.LoseAnswerTo(Segment::COPY_SEGMENT_FINISHED);
  EXPECT_FALSE(manager_->RunTask(*partition_).ok()) << "the answer never came";
  ASSERT_EQ(Finished().size(), 1u) << "the controller recorded it";
  clock_.Advance(1000);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_EQ(Finished().size(), 1u);
  EXPECT_EQ(controller_.segments().size(), 1u) << "kept, not deleted as half-done";
  EXPECT_EQ(remote_.copies.load(), 1) << "not copied again";
}

TEST_F(RemoteLogManagerTest, AFailedDeleteIsRetried) {
  AppendRolling(3);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  ASSERT_EQ(Finished().size(), 3u);
  ApplyImage();
  storage::LogConfig config = log_->config();
  config.retention_bytes = 1;  // the whole log: every remote copy goes
  log_->UpdateConfig(config);
  remote_.fail_deletes = 1;
  EXPECT_FALSE(manager_->RunTask(*partition_).ok());
  int started = 0;
  for (const auto& [id, s] : controller_.segments()) started += s.state() == Segment::DELETE_SEGMENT_STARTED;
  EXPECT_EQ(started, 1);
  EXPECT_EQ(manager_->stats().delete_errors, 1);
  clock_.Advance(1000);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  EXPECT_TRUE(Finished().empty());
  EXPECT_TRUE(controller_.segments().empty()) << "every delete finished";
  EXPECT_EQ(manager_->stats().deletes, 3);
}

TEST_F(RemoteLogManagerTest, ANewLeaderDeletesWhatThePreviousLeftStartedAndResumesAfterItsHighestCopy) {
  AppendRolling(3);
  std::vector<int64_t> bases = log_->segment_base_offsets();
  // The previous leader (broker 2, epoch 0) finished the first segment and left the
  // second STARTED.
  auto previous = [&](int i, Segment::State state) {
    Segment s;
    s.set_topic_id(kTopicId);
    s.set_partition_id(0);
    s.set_segment_id(std::string(15, 'a') + static_cast<char>('0' + i));
    s.set_state(state);
    s.set_start_offset(bases[i]);
    s.set_end_offset(bases[i + 1] - 1);
    (*s.mutable_segment_leader_epochs())[0] = bases[i];
    s.set_broker_id(2);
    s.set_leader_epoch(0);
    return s;
  };
  controller_.Load(previous(0, Segment::COPY_SEGMENT_FINISHED));
  controller_.Load(previous(1, Segment::COPY_SEGMENT_STARTED));
  Lead(1);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  auto segments = controller_.segments();
  EXPECT_EQ(segments.count(previous(1, Segment::COPY_SEGMENT_STARTED).segment_id()), 0u);
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), 3u);
  EXPECT_EQ(finished[0].broker_id(), 2) << "kept";
  for (size_t i = 1; i < finished.size(); ++i) {
    EXPECT_EQ(finished[i].start_offset(), bases[i]) << "resumed after offset " << bases[1] - 1;
    EXPECT_EQ(finished[i].broker_id(), kBroker);
    EXPECT_EQ(finished[i].leader_epoch(), 1);
  }
  EXPECT_EQ(remote_.copies.load(), 2);
}

TEST_F(RemoteLogManagerTest, ADeposedLeadersCopyIsRefusedAndNeverFinished) {
  AppendRolling(1);
  controller_.Lead(2, 1);  // the controller moved the leadership; this broker has not heard
  EXPECT_FALSE(manager_->RunTask(*partition_).ok());
  EXPECT_TRUE(controller_.segments().empty());
  EXPECT_EQ(remote_.copies.load(), 0);
}

TEST_F(RemoteLogManagerTest, LocalRetentionDeletesOnlyCopiedSegments) {
  storage::LogConfig config = log_->config();
  config.local_retention_bytes = 1;  // keep nothing local that the remote tier holds
  log_->UpdateConfig(config);
  AppendRolling(3);
  auto deleted = log_->DeleteOldSegments();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 0) << "nothing is copied yet";
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  ApplyImage();
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), 3u);
  deleted = log_->DeleteOldSegments();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 3);
  EXPECT_EQ(log_->log_start_offset(), finished.back().end_offset() + 1);
  EXPECT_EQ(partition_->log_start_offset(), 0) << "the remote tier still starts at 0";
  // Reads below the local start are the remote tier's.
  auto read = partition_->ReadRecords(0, 1 << 20, FetchIsolation::kHighWatermark, std::nullopt, true);
  EXPECT_EQ(KafkaErrorCodeOf(read.status()), proto::kafka::ErrorCode::kOffsetMovedToTieredStorage) << read.status();
}

TEST_F(RemoteLogManagerTest, RetentionMsDeletesRemoteCopiesAndMovesTheLogStart) {
  AppendRolling(2, /*timestamp=*/clock_.NowMs() - 10'000);
  AppendRolling(3, /*timestamp=*/clock_.NowMs());
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), 3u);
  ApplyImage();
  storage::LogConfig config = log_->config();
  config.retention_ms = 5000;
  log_->UpdateConfig(config);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  std::vector<Segment> left = Finished();
  ASSERT_EQ(left.size(), 1u) << "the two old copies went";
  EXPECT_EQ(left[0].start_offset(), finished[2].start_offset());
  ApplyImage();
  EXPECT_EQ(partition_->log_start_offset(), 0) << "the local log still holds offset 0";
  config.local_retention_ms = 5000;
  log_->UpdateConfig(config);
  ASSERT_TRUE(log_->DeleteOldSegments().ok());
  EXPECT_EQ(partition_->log_start_offset(), finished[2].start_offset());
}

// DeleteRecords moved the partition's log start into the second of three copies (the
// quorum's Partition.log_start_offset): the tier serves from there, nothing below it,
// and the next pass deletes the first copy, which ends below it, retention or not.
TEST_F(RemoteLogManagerTest, ACopyBelowTheLogStartDeleteRecordsMovedIsDeletedAndTheNextServesFromIt) {
  storage::LogConfig config = log_->config();
  config.local_retention_bytes = 1;  // keep nothing local that the remote tier holds
  log_->UpdateConfig(config);
  AppendRolling(3);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  ApplyImage();
  ASSERT_TRUE(log_->DeleteOldSegments().ok());
  std::vector<Segment> finished = Finished();
  ASSERT_EQ(finished.size(), 3u);
  const int64_t bound = finished[1].start_offset() + 1;
  ApplyImage(bound);
  EXPECT_EQ(partition_->log_start_offset(), bound) << "the tier serves from inside the second copy";
  auto below = partition_->ReadRecords(bound - 1, 1 << 20, FetchIsolation::kHighWatermark, std::nullopt, true);
  EXPECT_EQ(KafkaErrorCodeOf(below.status()), proto::kafka::ErrorCode::kOffsetOutOfRange) << below.status();
  auto at = partition_->ReadRecords(bound, 1 << 20, FetchIsolation::kHighWatermark, std::nullopt, true);
  EXPECT_EQ(KafkaErrorCodeOf(at.status()), proto::kafka::ErrorCode::kOffsetMovedToTieredStorage) << at.status();
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  std::vector<Segment> left = Finished();
  ASSERT_EQ(left.size(), 2u) << "the copy that ends below the log start went";
  EXPECT_EQ(left[0].start_offset(), finished[1].start_offset());
  EXPECT_EQ(manager_->stats().deletes, 1);
  ApplyImage(bound);
  EXPECT_EQ(partition_->log_start_offset(), bound);
}

TEST_F(RemoteLogManagerTest, ASegmentPastRetentionMsLeavesTheLocalLogAfterItsCopyWasDeletedFirst) {
  AppendRolling(3, /*timestamp=*/clock_.NowMs() - 10'000);
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  ASSERT_EQ(Finished().size(), 3u);
  ApplyImage();
  storage::LogConfig config = log_->config();
  config.retention_ms = 5000;
  log_->UpdateConfig(config);
  // The remote tier's retention runs first: every copy goes, and with them the image's
  // highest copied offset (-1 now): the old local segments are no longer "copied".
  ASSERT_TRUE(manager_->RunTask(*partition_).ok());
  ASSERT_TRUE(controller_.segments().empty());
  ApplyImage();
  ASSERT_EQ(log_->highest_offset_in_remote_storage(), -1);
  std::vector<int64_t> bases = log_->segment_base_offsets();
  auto deleted = log_->DeleteOldSegments();
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 3) << "retention.ms bounds the whole log, copied or not";
  EXPECT_EQ(log_->log_start_offset(), bases[3]);
}

}  // namespace
}  // namespace strata::broker
