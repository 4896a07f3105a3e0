#include "broker/group/offsets_topic_log.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "broker/common/kafka_error.h"
#include "storage/control_record.h"
#include "storage/record_batch.h"

namespace strata::broker {

namespace {
constexpr uint64_t kReadBytes = 1 << 20;
}  // namespace

void OffsetsTopicLog::Append(int32_t partition, int32_t leader_epoch, std::vector<GroupLogRecord> records,
                             std::function<void(ErrorCode)> done) {
  storage::RecordBatchBuilder builder;
  const int64_t now = clock_->NowMs();
  for (const GroupLogRecord& r : records) {
    builder.Add(r.key, r.value ? std::optional<absl::string_view>(*r.value) : std::nullopt, now);
  }
  AppendBatch(partition, leader_epoch, builder.Build(), std::move(done));
}

void OffsetsTopicLog::AppendTransactional(int32_t partition, int32_t leader_epoch, int64_t producer_id,
                                          int16_t producer_epoch, std::vector<GroupLogRecord> records,
                                          std::function<void(ErrorCode)> done) {
  storage::RecordBatchBuilder builder;
  builder.set_producer(producer_id, producer_epoch, storage::kNoSequence).set_transactional(true);
  const int64_t now = clock_->NowMs();
  for (const GroupLogRecord& r : records) {
    builder.Add(r.key, r.value ? std::optional<absl::string_view>(*r.value) : std::nullopt, now);
  }
  AppendBatch(partition, leader_epoch, builder.Build(), std::move(done));
}

void OffsetsTopicLog::AppendBatch(int32_t partition, int32_t leader_epoch, std::string batch,
                                  std::function<void(ErrorCode)> done) {
  const storage::TopicPartition tp{topic_, partition};
  std::shared_ptr<Partition> part = replicas_.GetPartition(tp);
  if (part == nullptr || !part->is_leader() || part->leader_epoch() != leader_epoch) {
    return done(ErrorCode::kNotCoordinator);
  }
  const int64_t now = clock_->NowMs();
  absl::StatusOr<storage::LogAppendInfo> info = replicas_.AppendRecords(tp, batch, storage::AppendOrigin::kCoordinator);
  if (!info.ok()) return done(KafkaErrorCodeOf(info.status()));
  {
    absl::MutexLock lock(&mu_);
    waiting_[partition].push_back({info->last_offset + 1, leader_epoch, now + commit_timeout_ms_, std::move(done)});
  }
  CompleteReady(partition);
}

void OffsetsTopicLog::CompleteReady(int32_t partition) {
  std::shared_ptr<Partition> part = replicas_.GetPartition({topic_, partition});
  const bool leader = part != nullptr && part->is_leader();
  const int32_t epoch = leader ? part->leader_epoch() : -1;
  const int64_t hw = leader ? part->high_watermark() : -1;
  const int64_t now = clock_->NowMs();
  std::vector<std::pair<std::function<void(ErrorCode)>, ErrorCode>> ready;
  {
    absl::MutexLock lock(&mu_);
    auto it = waiting_.find(partition);
    if (it == waiting_.end()) return;
    std::deque<Waiting>& q = it->second;
    while (!q.empty()) {
      Waiting& w = q.front();
      ErrorCode e;
      if (!leader || epoch != w.leader_epoch) {
        e = ErrorCode::kNotCoordinator;
      } else if (w.end_offset <= hw) {
        e = ErrorCode::kNone;
      } else if (now >= w.deadline_ms) {
        e = ErrorCode::kRequestTimedOut;
      } else {
        break;  // the ones behind it end later still
      }
      ready.emplace_back(std::move(w.done), e);
      q.pop_front();
    }
    if (q.empty()) waiting_.erase(it);
  }
  for (auto& [done, e] : ready) done(e);
}

void OffsetsTopicLog::OnHighWatermark(const storage::TopicPartition& tp) {
  if (tp.topic == topic_) CompleteReady(tp.partition);
}

void OffsetsTopicLog::Poll() {
  std::vector<int32_t> partitions;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [p, q] : waiting_) partitions.push_back(p);
  }
  for (int32_t p : partitions) CompleteReady(p);
}

absl::Status OffsetsTopicLog::Read(int32_t partition, int32_t leader_epoch,
                                   const std::function<absl::Status(GroupLogRecord)>& each) {
  const storage::TopicPartition tp{topic_, partition};
  std::shared_ptr<Partition> part = replicas_.GetPartition(tp);
  if (part == nullptr || part->leader_epoch() != leader_epoch) {
    return KafkaError(ErrorCode::kNotCoordinator, absl::StrCat("no longer leads ", tp.DirName(), " in leader epoch ",
                                                               leader_epoch));
  }
  storage::Log* log = part->log();
  const int64_t end = log->log_end_offset();
  int64_t offset = log->log_start_offset();
  std::string bytes;
  while (offset < end) {
    STRATA_ASSIGN_OR_RETURN(storage::FetchDataInfo data, log->Read(offset, kReadBytes, end, /*min_one_batch=*/true));
    STRATA_RETURN_IF_ERROR(data.records.ReadInto(bytes));
    size_t pos = 0;
    const int64_t before = offset;
    while (bytes.size() - pos >= storage::batch_layout::kHeaderSize) {
      storage::RecordBatchHeader h = storage::RecordBatchHeader::Parse(bytes.data() + pos);
      if (h.size_in_bytes() > static_cast<int64_t>(bytes.size() - pos)) break;  // cut by kReadBytes
      absl::string_view batch(bytes.data() + pos, h.size_in_bytes());
      if (h.is_control()) {
        STRATA_ASSIGN_OR_RETURN(storage::EndTxnMarker marker, storage::ReadControlBatch(batch));
        if (marker.type != storage::ControlRecordType::kUnknown) {
          GroupLogRecord r;
          r.producer_id = h.producer_id;
          r.marker_commit = marker.type == storage::ControlRecordType::kCommit;
          STRATA_RETURN_IF_ERROR(each(std::move(r)));
        }
      } else {
        STRATA_ASSIGN_OR_RETURN(std::vector<storage::Record> records, storage::DecodeRecords(batch));
        for (storage::Record& r : records) {
          if (!r.key) continue;  // not a coordinator record
          GroupLogRecord out{std::move(*r.key), std::move(r.value)};
          if (h.is_transactional()) out.producer_id = h.producer_id;
          STRATA_RETURN_IF_ERROR(each(std::move(out)));
        }
      }
      offset = h.next_offset();
      pos += h.size_in_bytes();
    }
    if (offset == before) {
      return absl::DataLossError(absl::StrCat(tp.DirName(), ": no whole batch at offset ", offset));
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::broker
