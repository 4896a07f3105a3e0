#include "broker/replication/replica_fetcher.h"

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "broker/common/kafka_error.h"
#include "proto/kafka/api.h"
#include "base/status_macros.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/list_offsets.h"
#include "storage/bytes.h"
#include "storage/record_batch.h"

namespace strata::broker {

namespace kafka = proto::kafka;
using Clock = std::chrono::steady_clock;

namespace {
constexpr int16_t kFetchVersion = 12;        // by topic name, with diverging epochs
constexpr int16_t kListOffsetsVersion = 4;   // with the current leader epoch
constexpr int16_t kListOffsetsEarliestLocalVersion = 8;  // EARLIEST_LOCAL (KIP-405)
constexpr int16_t kListOffsetsPendingUploadVersion = 10;  // EARLIEST_PENDING_UPLOAD (KIP-1023)

}  // namespace

ReplicaFetcher::ReplicaFetcher(ReplicaFetcherOptions options, FollowerPartitions* partitions)
    : options_(std::move(options)), partitions_(partitions), session_(options_.fetch_sessions) {
  thread_ = std::thread([this] { Run(); });
}

ReplicaFetcher::~ReplicaFetcher() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    if (connection_) connection_->Shutdown();
  }
  cv_.SignalAll();
  thread_.join();
}

void ReplicaFetcher::AddPartition(const storage::TopicPartition& tp, int32_t leader_epoch) {
  {
    absl::MutexLock lock(&mu_);
    Target& t = targets_[tp];
    // Every metadata entry applied names every followed partition again: one already
    // followed in this epoch changes nothing, and must not wake the fetcher (a wake-up per
    // partition per entry was most of an entry's cost with thousands of partitions).
    if (t.leader_epoch == leader_epoch) return;
    t.delayed_until = Clock::time_point();  // a new epoch: at once
    t.lag = -1;
    t.stale = true;
    t.start_checked = false;
    ++targets_version_;
    if (fetch_in_flight_) added_in_flight_ = true;
    t.leader_epoch = leader_epoch;
  }
  cv_.SignalAll();
}

void ReplicaFetcher::CutShortForAdded() {
  absl::MutexLock lock(&mu_);
  if (!added_in_flight_ || !fetch_in_flight_ || !connection_ || restart_) return;
  restart_ = true;
  connection_->Shutdown();
}

void ReplicaFetcher::RemovePartition(const storage::TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  if (targets_.erase(tp) > 0) removed_.push_back(tp);  // the fetcher thread takes it out of the session
}

size_t ReplicaFetcher::partition_count() const {
  absl::MutexLock lock(&mu_);
  return targets_.size();
}

int64_t ReplicaFetcher::fetches() const {
  absl::MutexLock lock(&mu_);
  return fetches_;
}

std::vector<std::pair<storage::TopicPartition, int64_t>> ReplicaFetcher::Lags() const {
  std::vector<std::pair<storage::TopicPartition, int64_t>> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [tp, target] : targets_) {
    if (target.lag >= 0) out.emplace_back(tp, target.lag);
  }
  return out;
}

void ReplicaFetcher::Delay(const storage::TopicPartition& tp, const absl::Status& why,
                           std::chrono::milliseconds how_long) {
  spdlog::debug("broker {}: fetching {} from broker {} paused {} ms: {}", options_.broker_id, tp.DirName(),
                options_.leader_id, how_long.count(), why.ToString());
  absl::MutexLock lock(&mu_);
  auto it = targets_.find(tp);
  if (it != targets_.end()) it->second.delayed_until = Clock::now() + how_long;
}

void ReplicaFetcher::ThrottleFollower(const storage::TopicPartition& tp, const FollowerPartition& partition,
                                      size_t bytes) {
  ReplicationQuota* quota = options_.quota;
  if (quota == nullptr || bytes == 0 || !quota->IsThrottled(tp) || partition.in_isr()) return;
  const auto now = Clock::now();
  quota->Record(static_cast<int64_t>(bytes), now);
  if (!quota->Exceeded(now)) return;
  // Looked at again at least every second (the rate may be raised or removed meanwhile).
  Delay(tp, absl::ResourceExhaustedError("follower.replication.throttled.rate exceeded"),
        std::min<std::chrono::milliseconds>(std::max(quota->ThrottleTime(now), std::chrono::milliseconds(1)),
                                            std::chrono::seconds(1)));
}

void ReplicaFetcher::Run() {
  while (true) {
    Round round;
    {
      absl::MutexLock lock(&mu_);
      round.version = targets_version_;
      auto now = Clock::now();
      // Now and then every position is read again (what moves without an answer: the
      // log start, by this broker's retention).
      const bool refresh_all = now >= next_full_refresh_;
      if (refresh_all) next_full_refresh_ = now + kFullRefreshInterval;
      Clock::time_point next_ready = Clock::time_point::max();
      for (auto& [tp, target] : targets_) {
        if (target.delayed_until > now) {
          next_ready = std::min(next_ready, target.delayed_until);
          if (target.in_session) {
            target.in_session = false;
            round.leave.push_back(tp);
          }
          continue;
        }
        ++round.ready;
        if (target.stale || !target.in_session || refresh_all) round.refresh.emplace_back(tp, target);
      }
      for (const storage::TopicPartition& tp : removed_) round.leave.push_back(tp);
      removed_.clear();
      if (stopping_) return;
      if (round.ready == 0) {
        for (const storage::TopicPartition& tp : round.leave) session_.Remove({tp.topic, tp.partition});
        if (next_ready == Clock::time_point::max()) {
          cv_.Wait(&mu_);
        } else {
          cv_.WaitWithTimeout(&mu_, absl::FromChrono(next_ready - Clock::now()));
        }
        continue;
      }
    }
    absl::Status status = FetchOnce(round);
    bool restarted = false;
    {
      absl::MutexLock lock(&mu_);
      fetch_in_flight_ = false;
      added_in_flight_ = false;  // the next round names them
      restarted = restart_;
      restart_ = false;
      if (restarted) connection_.reset();  // cut short for a new partition: reconnect now
    }
    if (restarted) session_.HandleError();  // its answer is lost: the next fetch is full
    if (status.ok() || restarted) continue;
    session_.HandleError();
    spdlog::warn("broker {}: fetching from broker {} ({}:{}) failed: {}; retrying in {} ms", options_.broker_id,
                 options_.leader_id, options_.host, options_.port, status.ToString(), options_.backoff.count());
    absl::MutexLock lock(&mu_);
    connection_.reset();
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(options_.backoff));
  }
}

void ReplicaFetcher::MarkStale(const storage::TopicPartition& tp) {
  absl::MutexLock lock(&mu_);
  auto it = targets_.find(tp);
  if (it != targets_.end()) it->second.stale = true;
}

absl::Status ReplicaFetcher::FetchOnce(const Round& round) {
  client::KafkaConnection* connection = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (round.version != targets_version_) {
      // A partition came: look again (the positions taken stay to refresh).
      for (const auto& [tp, target] : round.refresh) {
        auto it = targets_.find(tp);
        if (it != targets_.end()) it->second.stale = true;
      }
      for (const storage::TopicPartition& tp : round.leave) session_.Remove({tp.topic, tp.partition});
      return absl::OkStatus();
    }
    if (!connection_) {
      auto connected = client::KafkaConnection::Connect(options_.host, options_.port,
                                                        options_.max_wait + std::chrono::seconds(30), options_.security);
      if (!connected.ok()) {
        for (const auto& [tp, target] : round.refresh) {
          auto it = targets_.find(tp);
          if (it != targets_.end()) it->second.stale = true;
        }
        for (const storage::TopicPartition& tp : round.leave) session_.Remove({tp.topic, tp.partition});
        return connected.status();
      }
      connection_ = std::move(*connected);
      connection_->set_receive_poll(options_.idle_poll);
      if (stopping_) connection_->Shutdown();
    }
    connection = connection_.get();
    fetch_in_flight_ = true;
  }
  for (const storage::TopicPartition& tp : round.leave) session_.Remove({tp.topic, tp.partition});
  // The positions of the partitions that may have moved; the session holds the others'.
  RefreshPositions(round);
  if (session_.size() == 0) {
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(options_.backoff));
    return absl::OkStatus();
  }
  kafka::FetchRequest request;
  request.replica_id = options_.broker_id;
  request.max_wait_ms = static_cast<int32_t>(options_.max_wait.count());
  request.min_bytes = options_.min_bytes;
  request.max_bytes = options_.max_bytes;
  session_.Build(request);
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteFetchRequest(request, kFetchVersion, w);
  auto answer = connection->Call(static_cast<int16_t>(kafka::ApiKey::kFetch), kFetchVersion, body);
  if (!answer.ok()) return answer.status();
  kafka::Reader r(answer->body());
  auto response = kafka::ReadFetchResponse(r, kFetchVersion);
  if (!response.ok()) return response.status();
  if (absl::Status s = session_.HandleResponse(*response); !s.ok()) {
    auto code = static_cast<kafka::ErrorCode>(response->error_code);
    if (code == kafka::ErrorCode::kFetchSessionIdNotFound || code == kafka::ErrorCode::kInvalidFetchSessionEpoch) {
      // The leader dropped the session (evicted, restarted): a full fetch opens another,
      // at once.
      spdlog::info("broker {}: fetching from broker {}: {}; fetching in full", options_.broker_id, options_.leader_id,
                   s.message());
      return absl::OkStatus();
    }
    if (code == kafka::ErrorCode::kNone) return s;  // an answer the session cannot take: reconnect
    return KafkaError(code, "the leader refused the fetch");
  }
  {
    absl::MutexLock lock(&mu_);
    ++fetches_;
  }
  for (const auto& topic : response->responses) {
    for (const auto& p : topic.partitions) HandlePartitionAnswer({topic.topic, p.partition_index}, p);
  }
  return absl::OkStatus();
}

void ReplicaFetcher::RefreshPositions(const Round& round) {
  for (const auto& [tp, target] : round.refresh) {
    client::FetchSessionHandler::Key key{tp.topic, tp.partition};
    std::shared_ptr<FollowerPartition> partition = partitions_->GetFollowerPartition(tp);
    if (partition == nullptr) {
      session_.Remove(key);
      MarkStale(tp);  // looked for again next round
      continue;
    }
    if (!target.start_checked && options_.tier_state_machine != nullptr && partition->fetch_last_tiered_offset() &&
        partition->follower_log_position().log_end_offset == 0) {
      // KIP-1023: an empty follower starts at the leader's earliest pending upload.
      if (absl::Status s = StartAtLastTieredOffset(tp, target.leader_epoch); !s.ok()) {
        session_.Remove(key);
        Delay(tp, s, options_.backoff);
        continue;
      }
    }
    FollowerLogPosition position = partition->follower_log_position();
    kafka::FetchRequest::Partition p;
    p.partition = tp.partition;
    p.current_leader_epoch = target.leader_epoch;
    p.fetch_offset = position.log_end_offset;
    p.last_fetched_epoch = position.last_fetched_epoch;
    p.log_start_offset = position.log_start_offset;
    p.partition_max_bytes = options_.partition_max_bytes;
    session_.Set(key, p);
    absl::MutexLock lock(&mu_);
    auto it = targets_.find(tp);
    if (it != targets_.end() && it->second.leader_epoch == target.leader_epoch) {
      it->second.start_checked = true;
      it->second.in_session = true;
      it->second.stale = false;  // until its next answer
    }
  }
}

void ReplicaFetcher::HandlePartitionAnswer(const storage::TopicPartition& tp, const kafka::FetchResponse::Partition& p) {
  // The epoch it was asked in; the partition's position may move now.
  const kafka::FetchRequest::Partition* asked = session_.Find({tp.topic, tp.partition});
  if (asked == nullptr) return;
  const int32_t epoch = asked->current_leader_epoch;
  {
    // Removed, or moved to another epoch, while the fetch was out: its answer is stale.
    absl::MutexLock lock(&mu_);
    auto target = targets_.find(tp);
    if (target == targets_.end() || target->second.leader_epoch != epoch) return;
    target->second.stale = true;
  }
  std::shared_ptr<FollowerPartition> found = partitions_->GetFollowerPartition(tp);
  if (found == nullptr) return;
  FollowerPartition& partition = *found;
  auto code = static_cast<kafka::ErrorCode>(p.error_code);
  if (code == kafka::ErrorCode::kOffsetOutOfRange) {
    if (absl::Status s = HandleOutOfRange(tp, epoch, p.log_start_offset); !s.ok()) {
      Delay(tp, s, options_.backoff);
    }
    return;
  }
  if (code == kafka::ErrorCode::kOffsetMovedToTieredStorage) {
    if (absl::Status s = HandleMovedToTieredStorage(tp, epoch); !s.ok()) Delay(tp, s, options_.backoff);
    return;
  }
  if (code != kafka::ErrorCode::kNone) {
    bool leadership = code == kafka::ErrorCode::kNotLeaderOrFollower ||
                      code == kafka::ErrorCode::kUnknownLeaderEpoch ||
                      code == kafka::ErrorCode::kFencedLeaderEpoch ||
                      code == kafka::ErrorCode::kUnknownTopicOrPartition;
    Delay(tp, KafkaError(code, "the leader's answer"),
          leadership ? options_.leadership_backoff : options_.backoff);
    return;
  }
  if (p.diverging_epoch) {
    spdlog::info("broker {}: {} diverges from leader {} at epoch {} offset {}: truncating", options_.broker_id,
                 tp.DirName(), options_.leader_id, p.diverging_epoch->epoch, p.diverging_epoch->end_offset);
    if (absl::Status s =
            partition.TruncateToDivergence(epoch, p.diverging_epoch->epoch, p.diverging_epoch->end_offset);
        !s.ok()) {
      Delay(tp, s, options_.backoff);
    }
    return;
  }
  absl::string_view records = p.records ? storage::WholeBatches(*p.records) : absl::string_view();
  auto appended = partition.AppendRecordsToFollower(epoch, records, p.high_watermark, p.log_start_offset);
  if (!appended.ok()) Delay(tp, appended.status(), options_.backoff);
  if (appended.ok()) {
    if (appended->high_watermark_moved || appended->log_start_moved) partitions_->FollowerHighWatermarkMoved(tp);
    ThrottleFollower(tp, partition, records.size());
    int64_t lag = std::max<int64_t>(0, p.high_watermark - partition.follower_log_position().log_end_offset);
    absl::MutexLock lock(&mu_);
    auto target = targets_.find(tp);
    if (target != targets_.end() && target->second.leader_epoch == epoch) target->second.lag = lag;
  }
  if (!records.empty()) {
    spdlog::debug("broker {}: fetched {} bytes of {} from broker {} (its high watermark {})", options_.broker_id,
                  records.size(), tp.DirName(), options_.leader_id, p.high_watermark);
  }
}

absl::Status ReplicaFetcher::HandleOutOfRange(const storage::TopicPartition& tp, int32_t leader_epoch,
                                              int64_t leader_log_start) {
  std::shared_ptr<FollowerPartition> partition = partitions_->GetFollowerPartition(tp);
  if (partition == nullptr) return absl::OkStatus();
  int64_t log_end_offset = partition->follower_log_position().log_end_offset;
  if (leader_log_start >= 0 && log_end_offset < leader_log_start) {
    spdlog::info("broker {}: {} ends at {} below leader {}'s log start {}: restarting the log there",
                 options_.broker_id, tp.DirName(), log_end_offset, options_.leader_id, leader_log_start);
    return partition->RestartAtLeaderLogStart(leader_epoch, leader_log_start);
  }
  // Above the leader's log end: ask where it ends (a replica's ListOffsets answers the
  // log end) and cut there.
  STRATA_ASSIGN_OR_RETURN(int64_t leader_log_end,
                          LeaderOffset(tp, leader_epoch, kafka::kListOffsetsLatestTimestamp, kListOffsetsVersion));
  spdlog::info("broker {}: {} ends at {} above leader {}'s log end {}: truncating", options_.broker_id, tp.DirName(),
               partition->follower_log_position().log_end_offset, options_.leader_id, leader_log_end);
  return partition->TruncateToLeaderLogEnd(leader_epoch, leader_log_end);
}

absl::Status ReplicaFetcher::HandleMovedToTieredStorage(const storage::TopicPartition& tp, int32_t leader_epoch) {
  std::shared_ptr<FollowerPartition> partition = partitions_->GetFollowerPartition(tp);
  if (partition == nullptr) return absl::OkStatus();
  bool last_tiered = options_.tier_state_machine != nullptr && partition->fetch_last_tiered_offset();
  STRATA_ASSIGN_OR_RETURN(int64_t fetch_start,
                          last_tiered ? LeaderOffset(tp, leader_epoch, kafka::kListOffsetsEarliestPendingUploadTimestamp,
                                                     kListOffsetsPendingUploadVersion)
                                      : LeaderOffset(tp, leader_epoch, kafka::kListOffsetsEarliestLocalTimestamp,
                                                     kListOffsetsEarliestLocalVersion));
  return RestartInRemoteTier(tp, *partition, leader_epoch, fetch_start);
}

absl::Status ReplicaFetcher::StartAtLastTieredOffset(const storage::TopicPartition& tp, int32_t leader_epoch) {
  std::shared_ptr<FollowerPartition> partition = partitions_->GetFollowerPartition(tp);
  if (partition == nullptr) return absl::OkStatus();
  STRATA_ASSIGN_OR_RETURN(int64_t fetch_start,
                          LeaderOffset(tp, leader_epoch, kafka::kListOffsetsEarliestPendingUploadTimestamp,
                                       kListOffsetsPendingUploadVersion));
  if (fetch_start <= partition->follower_log_position().log_end_offset) return absl::OkStatus();
  return RestartInRemoteTier(tp, *partition, leader_epoch, fetch_start);
}

absl::Status ReplicaFetcher::RestartInRemoteTier(const storage::TopicPartition& tp, FollowerPartition& partition,
                                                 int32_t leader_epoch, int64_t fetch_start) {
  int64_t log_end = partition.follower_log_position().log_end_offset;
  if (options_.tier_state_machine == nullptr) {
    spdlog::info("broker {}: {} ends at {}, in leader {}'s remote tier: restarting the log at its local log start {}",
                 options_.broker_id, tp.DirName(), log_end, options_.leader_id, fetch_start);
    return partition.RestartAtLeaderLogStart(leader_epoch, fetch_start);
  }
  STRATA_ASSIGN_OR_RETURN(int64_t leader_log_start, LeaderOffset(tp, leader_epoch,
                                                                 kafka::kListOffsetsEarliestTimestamp,
                                                                 kListOffsetsEarliestLocalVersion));
  STRATA_ASSIGN_OR_RETURN(RemoteAuxState aux,
                          options_.tier_state_machine->Build(tp.DirName(), partition.topic_id(), tp.partition,
                                                             fetch_start, leader_log_start));
  spdlog::info("broker {}: {} ends at {}, below what leader {} holds locally: restarting the log at {} with {} "
               "leader epochs and {} bytes of producer state {}",
               options_.broker_id, tp.DirName(), log_end, options_.leader_id, fetch_start, aux.epochs.size(),
               aux.producer_snapshot.size(),
               aux.from_remote ? "from the remote tier" : "(the remote range is empty: no remote lookup)");
  return partition.RestartFromRemoteTier(leader_epoch, fetch_start, aux.epochs, aux.producer_snapshot);
}

absl::StatusOr<int64_t> ReplicaFetcher::LeaderOffset(const storage::TopicPartition& tp, int32_t leader_epoch,
                                                     int64_t timestamp, int16_t version) {
  client::KafkaConnection* connection = nullptr;
  {
    absl::MutexLock lock(&mu_);
    connection = connection_.get();
  }
  if (connection == nullptr) return absl::UnavailableError("no connection");
  kafka::ListOffsetsRequest request;
  request.replica_id = options_.broker_id;
  request.topics.push_back({tp.topic, {{tp.partition, leader_epoch, timestamp}}});
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteListOffsetsRequest(request, version, w);
  auto answer = connection->Call(static_cast<int16_t>(kafka::ApiKey::kListOffsets), version, body);
  if (!answer.ok()) return answer.status();
  kafka::Reader r(answer->body());
  auto response = kafka::ReadListOffsetsResponse(r, version);
  if (!response.ok()) return response.status();
  const auto& p = response->topics.at(0).partitions.at(0);
  if (p.error_code != 0) return KafkaError(static_cast<kafka::ErrorCode>(p.error_code), "ListOffsets");
  return p.offset;
}

}  // namespace strata::broker
