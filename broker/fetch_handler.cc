#include "broker/fetch_handler.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "broker/kafka_error.h"
#include "broker/partition_lookup.h"
#include "broker/remote_log_reader.h"
#include "broker/replica_manager.h"
#include "broker/replica_selector.h"
#include "proto/kafka/fetch.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {

using Clock = std::chrono::steady_clock;

// A consumer's read below the local log start, for the remote tier.
struct RemoteRead {
  std::pair<std::string, int32_t> partition;
  int64_t fetch_offset = 0;
  uint64_t max_bytes = 0;
  bool min_one_batch = false;
  controller::RemoteLogSegments::Segment segment;
};
// What the remote reads returned, by partition.
using RemoteData = std::map<std::pair<std::string, int32_t>, absl::StatusOr<std::string>>;

// One read of every partition the request names.
struct FetchResult {
  KafkaResponse response;
  uint64_t bytes = 0;
  bool any_error = false;
  bool redirected = false;  // a partition was sent to its preferred read replica
  bool diverged = false;    // a follower must truncate first: it hears at once
  // Reads for the remote tier (when ReadAll ran without remote data): the request is
  // answered from a reader thread once they are done.
  std::vector<RemoteRead> remote_reads;
  // The record bytes read per partition, credited to its traffic when this result is
  // the answer (a delayed fetch may read several times before it answers).
  bool follower = false;
  std::vector<std::pair<std::shared_ptr<Partition>, uint64_t>> sent;
};

// The answer of a result: its bytes count as sent (bytes out, or replication bytes out
// to a follower).
std::optional<KafkaResponse> Answer(FetchResult result) {
  for (const auto& [partition, bytes] : result.sent) {
    PartitionTraffic& traffic = partition->traffic();
    (result.follower ? traffic.replication_bytes_out : traffic.bytes_out)
        .fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  }
  return std::optional<KafkaResponse>(std::move(result.response));
}

// The finished copy that holds offset, from the broker's image.
std::optional<controller::RemoteLogSegments::Segment> RemoteSegmentFor(const KafkaApisContext& context,
                                                                       const std::string& topic_id,
                                                                       int32_t partition, int64_t offset) {
  return context.store.WithImage([&](const controller::MetadataImage& image) {
    std::optional<controller::RemoteLogSegments::Segment> out;
    if (const auto* segments = image.FindRemoteSegments(topic_id, partition)) {
      if (const auto* s = segments->SegmentFor(offset, -1)) out = *s;
    }
    return out;
  });
}

// remote: null on the first pass; the reads' results on the pass after them (a
// partition that needs the remote tier but has no result then answers no records).
FetchResult ReadAll(const KafkaApisContext& context, const kafka::FetchRequest& request, int16_t version,
                    const RemoteData* remote = nullptr) {
  FetchResult result;
  kafka::FetchResponse response;
  bool follower = request.replica_id >= 0;
  result.follower = follower;
  FetchIsolation isolation = follower ? FetchIsolation::kLogEnd
                             : request.isolation_level == 1 ? FetchIsolation::kTxnCommitted
                                                            : FetchIsolation::kHighWatermark;
  uint64_t budget = static_cast<uint64_t>(std::max(request.max_bytes, 0));
  for (const auto& topic : request.topics) {
    kafka::FetchResponse::Topic& rt = response.responses.emplace_back();
    rt.topic = topic.topic;
    rt.topic_id = topic.topic_id;
    std::optional<std::string> name = topic.topic;
    if (version >= 13) name = TopicNameForId(context, topic.topic_id);
    for (const auto& p : topic.partitions) {
      kafka::FetchResponse::Partition& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition;
      auto fail = [&](const absl::Status& status) {
        rp.error_code = KafkaErrorOf(status);
        rp.high_watermark = rp.last_stable_offset = rp.log_start_offset = -1;
        rp.records = std::string();
        result.any_error = true;
      };
      if (!name) {
        fail(KafkaError(kafka::ErrorCode::kUnknownTopicId, "no topic has this id"));
        continue;
      }
      auto partition = LookupPartition(context, *name, p.partition);
      if (!partition.ok()) {
        fail(partition.status());
        continue;
      }
      if (version < 10 && (*partition)->log() != nullptr &&
          (*partition)->log()->config().compression_type == storage::Compression::kZstd) {
        // As Kafka: a client older than zstd (Fetch v10) cannot read a zstd topic.
        fail(KafkaError(kafka::ErrorCode::kUnsupportedCompressionType,
                        absl::StrCat(*name, " has compression.type=zstd, which Fetch v", version, " cannot carry")));
        continue;
      }
      std::optional<int32_t> epoch;
      if (version >= 9) epoch = p.current_leader_epoch;
      if (!follower && context.rack_aware_selector && version >= 11 && (*partition)->is_leader()) {
        int32_t preferred = PreferredReadReplica(context, (*partition)->state(), request.rack_id);
        if (preferred >= 0) {
          // KIP-392: no records; the consumer goes to the replica in its rack.
          rp.preferred_read_replica = preferred;
          rp.high_watermark = (*partition)->high_watermark();
          rp.last_stable_offset = rp.high_watermark;
          rp.log_start_offset = (*partition)->log_start_offset();
          rp.records = std::string();
          result.redirected = true;
          continue;
        }
      }
      if (follower && version >= 12) {
        // A follower whose log diverged from this leader's truncates before fetching on.
        auto checked = (*partition)->DivergingEpoch(epoch, p.last_fetched_epoch, p.fetch_offset);
        if (!checked.ok()) {
          fail(checked.status());
          continue;
        }
        if (auto diverging = *checked) {
          rp.diverging_epoch = kafka::FetchResponse::EpochEndOffset{diverging->first, diverging->second};
          rp.high_watermark = (*partition)->high_watermark();
          rp.last_stable_offset = rp.high_watermark;
          rp.log_start_offset = (*partition)->log_start_offset();
          rp.records = std::string();
          result.diverged = true;
          continue;
        }
      }
      uint64_t max_bytes = std::min<uint64_t>(budget, static_cast<uint64_t>(std::max(p.partition_max_bytes, 0)));
      bool min_one_batch = result.bytes == 0;
      // Followers serve consumers only with the rack-aware selector (KIP-392).
      bool leader_only = follower || !context.rack_aware_selector;
      auto read = (*partition)->ReadRecords(p.fetch_offset, max_bytes, isolation, epoch, min_one_batch, leader_only);
      if (!read.ok() && !follower && context.remote_reader != nullptr &&
          KafkaErrorCodeOf(read.status()) == kafka::ErrorCode::kOffsetMovedToTieredStorage) {
        // A consumer below the local log start: the remote tier serves it.
        std::pair<std::string, int32_t> key{*name, p.partition};
        rp.high_watermark = (*partition)->high_watermark();
        rp.last_stable_offset = rp.high_watermark;
        rp.log_start_offset = (*partition)->log_start_offset();
        rp.records = std::string();
        if (remote == nullptr) {
          auto segment = RemoteSegmentFor(context, (*partition)->state().topic_id, p.partition, p.fetch_offset);
          if (!segment) {
            fail(KafkaError(kafka::ErrorCode::kOffsetOutOfRange,
                            absl::StrCat("no remote segment holds offset ", p.fetch_offset, " of ", *name, "-",
                                         p.partition)));
            continue;
          }
          result.remote_reads.push_back(RemoteRead{key, p.fetch_offset, max_bytes, min_one_batch, *segment});
        } else if (auto it = remote->find(key); it != remote->end()) {
          if (!it->second.ok()) {
            fail(it->second.status());
            continue;
          }
          rp.records = *it->second;
          result.bytes += it->second->size();
          result.sent.emplace_back(*partition, it->second->size());
          budget -= std::min<uint64_t>(budget, it->second->size());
        }
        continue;
      }
      if (!read.ok()) {
        fail(read.status());
        continue;
      }
      if (follower) {
        // Its fetch offset is its log end: the high watermark may move, and the answer
        // carries the moved one.
        context.replicas.UpdateFollowerFetchState(**partition, request.replica_id, p.fetch_offset,
                                                   read->log_end_offset);
        read->high_watermark = (*partition)->high_watermark();
        read->last_stable_offset = read->high_watermark;
      }
      rp.high_watermark = read->high_watermark;
      rp.last_stable_offset = read->last_stable_offset;
      rp.log_start_offset = read->log_start_offset;
      const storage::FileSlice& slice = read->data.records;
      if (slice.empty()) {
        rp.records = std::string();
        continue;
      }
      rp.records_splice = static_cast<int32_t>(result.response.slices.size());
      rp.records_splice_size = slice.size;
      result.response.slices.push_back(slice);
      result.bytes += slice.size;
      result.sent.emplace_back(*partition, slice.size);
      budget -= std::min(budget, slice.size);
    }
  }
  kafka::Writer w(&result.response.body, &result.response.splices);
  kafka::WriteFetchResponse(response, version, w);
  CountErrors(response, result.response.errors);
  return result;
}

const RemoteData kNoRemoteData;

// Runs the remote reads on a reader thread, then answers the request from there.
void AnswerFromRemoteTier(const KafkaApisContext& context, kafka::FetchRequest request, int16_t version,
                          std::vector<RemoteRead> reads, KafkaResponder respond) {
  auto shared = std::make_shared<std::tuple<kafka::FetchRequest, std::vector<RemoteRead>, KafkaResponder>>(
      std::move(request), std::move(reads), std::move(respond));
  absl::Status submitted = context.remote_reader->Submit([&context, version, shared] {
    auto& [request, reads, respond] = *shared;
    RemoteData data;
    for (const RemoteRead& r : reads) {
      auto read = context.remote_reader->Read(r.segment, r.fetch_offset, r.max_bytes, r.min_one_batch);
      if (!read.ok()) {
        spdlog::warn("broker {}: remote read of {}-{} at offset {} failed: {}", context.broker_id, r.partition.first,
                     r.partition.second, r.fetch_offset, read.status().ToString());
      }
      data.emplace(r.partition, std::move(read));
    }
    respond(Answer(ReadAll(context, request, version, &data)));
  });
  if (!submitted.ok()) {
    // Too many remote reads wait: those partitions answer KAFKA_STORAGE_ERROR now.
    auto& [request, reads, respond] = *shared;
    RemoteData data;
    for (const RemoteRead& r : reads) {
      data.emplace(r.partition, KafkaError(kafka::ErrorCode::kKafkaStorageError,
                                           absl::StrCat("remote read not started: ", submitted.message())));
    }
    respond(Answer(ReadAll(context, request, version, &data)));
  }
}

// A fetch waiting for min_bytes or max_wait_ms.
class DelayedFetch final : public DelayedOperation {
 public:
  DelayedFetch(const KafkaApisContext& context, Clock::time_point deadline, kafka::FetchRequest request,
               int16_t version, KafkaResponder respond)
      : DelayedOperation(deadline),
        context_(context),
        request_(std::move(request)),
        version_(version),
        respond_(std::move(respond)) {}

  void TryComplete() override {
    // A partition that moved to the remote tier meanwhile answers no records now; the
    // consumer's next fetch reads it there.
    FetchResult result = ReadAll(context_, request_, version_, &kNoRemoteData);
    if (result.bytes < static_cast<uint64_t>(std::max(request_.min_bytes, 1)) && !result.any_error &&
        !result.redirected && !result.diverged) {
      return;
    }
    {
      absl::MutexLock lock(&mu_);
      ready_ = std::move(result);
    }
    ForceComplete();
  }

  void OnComplete() override {
    std::optional<FetchResult> result;
    {
      absl::MutexLock lock(&mu_);
      result = std::move(ready_);
    }
    // Expired (or the broker stops): answer with whatever there is now.
    if (!result) result = ReadAll(context_, request_, version_, &kNoRemoteData);
    respond_(Answer(std::move(*result)));
  }

 private:
  const KafkaApisContext& context_;
  const kafka::FetchRequest request_;
  const int16_t version_;
  KafkaResponder respond_;
  absl::Mutex mu_;
  std::optional<FetchResult> ready_ ABSL_GUARDED_BY(mu_);
};

}  // namespace

void HandleFetch(const ApiRequest& api, KafkaResponder respond) {
  const KafkaApisContext& context = api.broker;
  const kafka::RequestHeader& header = api.header;
  kafka::Reader reader(api.body);
  auto request = kafka::ReadFetchRequest(reader, header.api_version);
  if (!request.ok()) return respond(request.status());
  if (header.api_version >= 7 && request->session_id != 0) {
    kafka::FetchResponse response;
    response.error_code = static_cast<int16_t>(kafka::ErrorCode::kFetchSessionIdNotFound);
    KafkaResponse out;
    kafka::Writer w(&out.body);
    kafka::WriteFetchResponse(response, header.api_version, w);
    CountErrors(response, out.errors);
    return respond(std::optional<KafkaResponse>(std::move(out)));
  }
  FetchResult result = ReadAll(context, *request, header.api_version);
  if (!result.remote_reads.empty()) {
    return AnswerFromRemoteTier(context, *std::move(request), header.api_version, std::move(result.remote_reads),
                                std::move(respond));
  }
  bool enough = result.bytes >= static_cast<uint64_t>(std::max(request->min_bytes, 1)) || result.any_error ||
                result.redirected || result.diverged;
  if (enough || request->max_wait_ms <= 0 || request->topics.empty()) {
    return respond(Answer(std::move(result)));
  }
  std::vector<std::string> keys;
  for (const auto& topic : request->topics) {
    std::optional<std::string> name = topic.topic;
    if (header.api_version >= 13) name = TopicNameForId(context, topic.topic_id);
    if (!name) continue;
    for (const auto& p : topic.partitions) keys.push_back(storage::TopicPartition{*name, p.partition}.DirName());
  }
  auto deadline = Clock::now() + std::chrono::milliseconds(request->max_wait_ms);
  auto op = std::make_shared<DelayedFetch>(context, deadline, std::move(*request), header.api_version,
                                           std::move(respond));
  api.purgatories.fetch.TryCompleteElseWatch(op, keys);
}

}  // namespace strata::broker
