#include "broker/handlers/fetch_handler.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/client_quota.h"
#include "broker/handlers/fetch_session.h"
#include "broker/common/kafka_error.h"
#include "broker/handlers/partition_lookup.h"
#include "broker/tiered/remote_log_reader.h"
#include "broker/replication/replica_manager.h"
#include "broker/handlers/replica_selector.h"
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
  // The copy after it when that is below the local log too: its first blocks are
  // prefetched for a consumer reading on.
  std::optional<controller::RemoteLogSegments::Segment> next;
  bool read_committed = false;
  std::shared_ptr<Partition> local;  // the partition here (its local log, for READ_COMMITTED)
};
// What a remote read returned: the records, and for READ_COMMITTED the aborted
// transactions among them.
struct RemoteFetched {
  RemoteLogReader::Records records;
  std::optional<std::vector<storage::AbortedTxn>> aborted;
};
// What the remote reads returned, by partition.
using RemoteData = std::map<std::pair<std::string, int32_t>, absl::StatusOr<RemoteFetched>>;

// What a Fetch asks for as a whole.
struct FetchParams {
  int16_t version = 0;
  int32_t replica_id = -1;
  bool follower = false;
  FetchIsolation isolation = FetchIsolation::kHighWatermark;
  int32_t max_bytes = 0;
  int32_t min_bytes = 0;
  std::string rack_id;
  // Authorization, decided once per request: a follower without ClusterAction, or a
  // consumer without Read on a topic, gets TOPIC_AUTHORIZATION_FAILED for those
  // partitions, before anything else is looked at (a follower's fetch state included).
  bool every_topic_denied = false;
  std::set<std::string> denied_topics;
  // consumer_byte_rate: a consumer's answers count against its client quota (null: no
  // quota manager; never for a follower).
  ClientQuotaManager* quotas = nullptr;
  QuotaClient client;

  FetchParams(const kafka::FetchRequest& request, int16_t v)
      : version(v),
        replica_id(request.replica_id),
        follower(request.replica_id >= 0),
        isolation(follower                         ? FetchIsolation::kLogEnd
                  : request.isolation_level == 1 ? FetchIsolation::kTxnCommitted
                                                 : FetchIsolation::kHighWatermark),
        max_bytes(request.max_bytes),
        min_bytes(request.min_bytes),
        rack_id(request.rack_id) {}
};

// The reads of every target of a fetch.
struct FetchResult {
  std::vector<FetchTargetRead> reads;  // one per target, in order
  std::vector<storage::FileSlice> slices;  // the reads' records_splice index them
  uint64_t bytes = 0;
  bool any_error = false;
  bool redirected = false;  // a partition was sent to its preferred read replica
  bool diverged = false;    // a follower must truncate first: it hears at once
  // Reads for the remote tier (when ReadAll ran without remote data): the request is
  // answered from a reader thread once they are done.
  std::vector<RemoteRead> remote_reads;
  // The record bytes read per partition, credited to its traffic when this result is
  // the answer (a delayed fetch may read several times before it answers).
  std::vector<std::pair<std::shared_ptr<Partition>, uint64_t>> sent;

  // Whether the fetch answers now rather than waiting for min_bytes.
  bool Enough(const FetchParams& params) const {
    return bytes >= static_cast<uint64_t>(std::max(params.min_bytes, 1)) || any_error || redirected || diverged;
  }
};

// The answer of a result, shaped by the fetch's session: its bytes count as sent (bytes
// out, or replication bytes out to a follower).
std::optional<ApiResponse> Answer(FetchContext& fetch, const FetchParams& params, FetchResult result) {
  for (const auto& [partition, bytes] : result.sent) {
    PartitionTraffic& traffic = partition->traffic();
    (params.follower ? traffic.replication_bytes_out : traffic.bytes_out)
        .fetch_add(static_cast<int64_t>(bytes), std::memory_order_relaxed);
  }
  kafka::FetchResponse response = fetch.Answer(result.reads);
  ApiResponse out;
  if (params.quotas != nullptr) {
    out.throttle = params.quotas->Record(QuotaKind::kFetch, params.client, static_cast<int64_t>(result.bytes),
                                         std::chrono::steady_clock::now());
    response.throttle_time_ms = static_cast<int32_t>(out.throttle.count());
  }
  out.slices = std::move(result.slices);
  kafka::Writer w(&out.body, &out.splices);
  kafka::WriteFetchResponse(response, params.version, w);
  CountErrors(response, out.errors);
  return std::optional<ApiResponse>(std::move(out));
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

// The finished copy that holds offset and the one after it (nullopt: none, e.g. the local
// log follows), in one look at the broker's image.
std::optional<std::pair<controller::RemoteLogSegments::Segment, std::optional<controller::RemoteLogSegments::Segment>>>
RemoteSegmentAndNext(const KafkaApisContext& context, const std::string& topic_id, int32_t partition, int64_t offset) {
  return context.store.WithImage([&](const controller::MetadataImage& image) {
    std::optional<std::pair<controller::RemoteLogSegments::Segment,
                            std::optional<controller::RemoteLogSegments::Segment>>> out;
    const auto* segments = image.FindRemoteSegments(topic_id, partition);
    const auto* s = segments != nullptr ? segments->SegmentFor(offset, -1) : nullptr;
    if (s == nullptr) return out;
    out.emplace(*s, std::nullopt);
    if (const auto* next = segments->SegmentFor(s->end_offset() + 1, -1)) out->second = *next;
    return out;
  });
}

// The aborted transactions as a READ_COMMITTED fetch answers them (an empty list, not
// null, when there are none, as Kafka).
std::vector<kafka::FetchResponse::AbortedTransaction> AbortedTransactionsOf(
    const std::vector<storage::AbortedTxn>& aborted) {
  std::vector<kafka::FetchResponse::AbortedTransaction> out;
  for (const storage::AbortedTxn& t : aborted) out.push_back({t.producer_id, t.first_offset});
  return out;
}

// leader.replication.throttled.rate: whether this read counts against the leader's quota
// (a follower out of the ISR of a throttled partition); while the quota is exceeded it
// gets no records (its position still counts), as from Kafka's leader.
bool LeaderThrottle(const KafkaApisContext& context, const FetchParams& params, const Partition& partition,
                    uint64_t& max_bytes, bool& min_one_batch) {
  if (!params.follower || !context.replicas.LeaderThrottles(partition, params.replica_id)) return false;
  if (context.replicas.leader_quota().Exceeded(std::chrono::steady_clock::now())) {
    max_bytes = 0;
    min_one_batch = false;
  }
  return true;
}

// A partition's answer from the remote tier: its records are the chunk cache's block
// files, sent as they are (one slice per block).
void AnswerRemoteRecords(const RemoteFetched& fetched, const std::shared_ptr<Partition>& partition,
                         kafka::FetchResponse::Partition& rp, FetchTargetRead& read, FetchResult& result) {
  if (fetched.aborted) rp.aborted_transactions = AbortedTransactionsOf(*fetched.aborted);
  if (fetched.records.slices.empty()) {
    rp.records = std::string();
  } else {
    rp.records_splice = static_cast<int32_t>(result.slices.size());
    for (const storage::FileSlice& slice : fetched.records.slices) {
      rp.records_splice_sizes.push_back(slice.size);
      result.slices.push_back(slice);
    }
  }
  read.record_bytes = fetched.records.size;
  result.bytes += fetched.records.size;
  result.sent.emplace_back(partition, fetched.records.size);
}

// Reads one target into result (its read is result.reads.back()). max_bytes: what the
// fetch may still take; remote: as ReadAll's.
void ReadTarget(const KafkaApisContext& context, const FetchParams& params, const FetchTarget& target,
                uint64_t max_bytes, bool min_one_batch, const RemoteData* remote, FetchResult& result) {
  FetchTargetRead& read = result.reads.emplace_back();
  kafka::FetchResponse::Partition& rp = read.data;
  const kafka::FetchRequest::Partition& p = target.fetch;
  rp.partition_index = p.partition;
  auto fail = [&](const absl::Status& status) {
    rp.error_code = KafkaErrorOf(status);
    rp.high_watermark = rp.last_stable_offset = rp.log_start_offset = -1;
    rp.records = std::string();
    result.any_error = true;
  };
  // The watermarks of an answer without records.
  auto no_records = [&](const Partition& partition) {
    rp.high_watermark = partition.high_watermark();
    rp.last_stable_offset =
        params.isolation == FetchIsolation::kTxnCommitted ? partition.last_stable_offset() : rp.high_watermark;
    rp.log_start_offset = partition.log_start_offset();
    rp.records = std::string();
  };
  const FetchTargetName& name = *target.name;
  if (params.every_topic_denied || params.denied_topics.count(name.topic)) {
    return fail(KafkaError(kafka::ErrorCode::kTopicAuthorizationFailed,
                           absl::StrCat("not authorized to ", params.follower ? "replicate" : "read", " topic ",
                                        name.topic)));
  }
  if (target.unchanged_since) {
    // The partition its session read last, while it is still here: no lookup.
    if (std::shared_ptr<Partition> last = target.last_read.lock()) {
      const Partition::ReadMark mark = last->read_mark();
      if (*target.unchanged_since == mark) {
        // Nothing changed since this session's last read answered nothing: it would
        // answer nothing again. A follower's fetch still says where it is (ISR, high
        // watermark).
        read.skipped = true;
        if (params.follower) {
          context.replicas.UpdateFollowerFetchState(*last, params.replica_id, p.fetch_offset, mark.log_end_offset,
                                                    p.log_start_offset);
        }
        return;
      }
    }
  }
  if (!name.known_topic) return fail(KafkaError(kafka::ErrorCode::kUnknownTopicId, "no topic has this id"));
  auto partition = LookupPartition(context, name.topic, p.partition);
  if (!partition.ok()) return fail(partition.status());
  if (params.version >= 13 && (*partition)->topic_id() != name.topic_id) {
    // A topic re-created under the name a session resolved its id to.
    return fail(KafkaError(kafka::ErrorCode::kUnknownTopicId, "no topic has this id"));
  }
  read.partition = *partition;
  const Partition::ReadMark mark = (*partition)->read_mark();
  if (params.version < 10 && (*partition)->log()->config().compression_type == storage::Compression::kZstd) {
    // As Kafka: a client older than zstd (Fetch v10) cannot read a zstd topic.
    return fail(KafkaError(kafka::ErrorCode::kUnsupportedCompressionType,
                           absl::StrCat(name.topic, " has compression.type=zstd, which Fetch v", params.version,
                                        " cannot carry")));
  }
  std::optional<int32_t> epoch;
  if (params.version >= 9) epoch = p.current_leader_epoch;
  if (!params.follower && context.rack_aware_selector && params.version >= 11 && (*partition)->is_leader()) {
    int32_t preferred = PreferredReadReplica(context, (*partition)->state(), params.rack_id);
    if (preferred >= 0) {
      // KIP-392: no records; the consumer goes to the replica in its rack.
      rp.preferred_read_replica = preferred;
      no_records(**partition);
      result.redirected = true;
      return;
    }
  }
  if (params.follower && params.version >= 12) {
    // A follower whose log diverged from this leader's truncates before fetching on.
    auto checked = (*partition)->DivergingEpoch(epoch, p.last_fetched_epoch, p.fetch_offset);
    if (!checked.ok()) return fail(checked.status());
    if (auto diverging = *checked) {
      rp.diverging_epoch = kafka::FetchResponse::EpochEndOffset{diverging->first, diverging->second};
      no_records(**partition);
      result.diverged = true;
      return;
    }
  }
  max_bytes = std::min<uint64_t>(max_bytes, static_cast<uint64_t>(std::max(p.partition_max_bytes, 0)));
  const bool throttled = LeaderThrottle(context, params, **partition, max_bytes, min_one_batch);
  // Followers serve consumers only with the rack-aware selector (KIP-392).
  bool leader_only = params.follower || !context.rack_aware_selector;
  auto records =
      (*partition)->ReadRecords(p.fetch_offset, max_bytes, params.isolation, epoch, min_one_batch, leader_only);
  if (!records.ok() && !params.follower && context.remote_reader != nullptr &&
      KafkaErrorCodeOf(records.status()) == kafka::ErrorCode::kOffsetMovedToTieredStorage) {
    // A consumer below the local log start: the remote tier serves it.
    std::pair<std::string, int32_t> key{name.topic, p.partition};
    no_records(**partition);
    if (remote == nullptr) {
      // The remote fetch quota exceeded: no records for it this time (KIP-956).
      if (context.remote_reader->FetchQuotaExceeded()) return;
      auto segment = RemoteSegmentAndNext(context, (*partition)->state().topic_id, p.partition, p.fetch_offset);
      if (!segment) {
        return fail(KafkaError(kafka::ErrorCode::kOffsetOutOfRange,
                               absl::StrCat("no remote segment holds offset ", p.fetch_offset, " of ", name.topic,
                                            "-", p.partition)));
      }
      // The copy after it, when the consumer will read that remotely too (not from the local log).
      std::optional<controller::RemoteLogSegments::Segment> next = std::move(segment->second);
      if (next && next->start_offset() >= (*partition)->log()->log_start_offset()) next.reset();
      result.remote_reads.push_back(RemoteRead{key, p.fetch_offset, max_bytes, min_one_batch, segment->first,
                                               std::move(next), params.isolation == FetchIsolation::kTxnCommitted,
                                               *partition});
    } else if (auto it = remote->find(key); it != remote->end()) {
      if (!it->second.ok()) return fail(it->second.status());
      AnswerRemoteRecords(*it->second, *partition, rp, read, result);
    }
    return;
  }
  if (!records.ok()) return fail(records.status());
  if (params.follower) {
    // Its fetch offset is its log end: the high watermark may move, and the answer
    // carries the moved one.
    context.replicas.UpdateFollowerFetchState(**partition, params.replica_id, p.fetch_offset,
                                               records->log_end_offset, p.log_start_offset);
    records->high_watermark = (*partition)->high_watermark();
    records->last_stable_offset = records->high_watermark;
  }
  rp.high_watermark = records->high_watermark;
  rp.last_stable_offset = records->last_stable_offset;
  rp.log_start_offset = records->log_start_offset;
  // READ_COMMITTED: the consumer drops these producers' records from each first offset
  // until it meets their ABORT marker.
  if (records->aborted_txns) rp.aborted_transactions = AbortedTransactionsOf(*records->aborted_txns);
  const storage::FileSlice& slice = records->data.records;
  if (slice.empty()) {
    rp.records = std::string();
    // Nothing because there is nothing yet (not for want of bytes): settled until the
    // partition changes.
    int64_t readable_end = params.follower                                     ? mark.log_end_offset
                           : params.isolation == FetchIsolation::kTxnCommitted ? mark.last_stable_offset
                                                                               : mark.high_watermark;
    if (p.fetch_offset >= readable_end) read.settled = mark;
    return;
  }
  if (throttled) {
    context.replicas.leader_quota().Record(static_cast<int64_t>(slice.size), std::chrono::steady_clock::now());
  }
  rp.records_splice = static_cast<int32_t>(result.slices.size());
  rp.records_splice_sizes = {slice.size};
  result.slices.push_back(slice);
  read.record_bytes = slice.size;
  result.bytes += slice.size;
  result.sent.emplace_back(*partition, slice.size);
}

// Reads every target in order under the fetch's max_bytes. remote: null on the first
// pass; the remote reads' results on the pass after them (a partition that needs the
// remote tier but has no result then answers no records).
FetchResult ReadAll(const KafkaApisContext& context, const FetchParams& params, const std::vector<FetchTarget>& targets,
                    const RemoteData* remote = nullptr) {
  FetchResult result;
  result.reads.reserve(targets.size());
  uint64_t budget = static_cast<uint64_t>(std::max(params.max_bytes, 0));
  for (const FetchTarget& target : targets) {
    bool min_one_batch = result.bytes == 0;
    ReadTarget(context, params, target, budget, min_one_batch, remote, result);
    budget -= std::min<uint64_t>(budget, result.reads.back().record_bytes);
  }
  return result;
}

const RemoteData kNoRemoteData;

// READ_COMMITTED below the local log start: the aborted transactions among the records
// read (up to the last one's next offset), from the remote segment's aborted index, then
// the later remote segments' and the local log's, until an entry shows that no later one
// can overlap them (Kafka's search across the tiers).
absl::StatusOr<std::vector<storage::AbortedTxn>> RemoteAbortedTxns(const KafkaApisContext& context,
                                                                   const RemoteRead& r, absl::string_view records) {
  std::vector<storage::AbortedTxn> out;
  int64_t upper = r.fetch_offset;
  for (absl::string_view rest = storage::WholeBatches(records); rest.size() >= storage::batch_layout::kHeaderSize;) {
    storage::RecordBatchHeader h = storage::RecordBatchHeader::Parse(rest.data());
    upper = h.next_offset();
    rest.remove_prefix(static_cast<size_t>(h.size_in_bytes()));
  }
  if (upper <= r.fetch_offset) return out;
  std::optional<controller::RemoteLogSegments::Segment> segment = r.segment;
  const std::string topic_id = r.local->state().topic_id;
  while (segment) {
    STRATA_ASSIGN_OR_RETURN(bool complete,
                            context.remote_reader->CollectAbortedTxns(*segment, r.fetch_offset, upper, &out));
    if (complete) return out;
    segment = RemoteSegmentFor(context, topic_id, r.partition.second, segment->end_offset() + 1);
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<storage::AbortedTxn> local, r.local->log()->CollectAbortedTxns(r.fetch_offset, upper));
  for (const storage::AbortedTxn& t : local) {
    if (out.empty() || t.last_offset > out.back().last_offset) out.push_back(t);
  }
  return out;
}

// Runs the remote reads on a reader thread, then answers the request from there.
void AnswerFromRemoteTier(const KafkaApisContext& context, FetchParams params, FetchContext fetch,
                          std::vector<RemoteRead> reads, ApiResponder respond) {
  struct Pending {
    FetchParams params;
    FetchContext fetch;
    std::vector<RemoteRead> reads;
    ApiResponder respond;
  };
  auto shared = std::make_shared<Pending>(Pending{std::move(params), std::move(fetch), std::move(reads),
                                                  std::move(respond)});
  absl::Status submitted = context.remote_reader->Submit([&context, shared] {
    RemoteData data;
    for (const RemoteRead& r : shared->reads) {
      absl::StatusOr<RemoteFetched> fetched = [&]() -> absl::StatusOr<RemoteFetched> {
        RemoteFetched out;
        STRATA_ASSIGN_OR_RETURN(out.records,
                                context.remote_reader->Read(r.segment, r.fetch_offset, r.max_bytes, r.min_one_batch,
                                                            r.next ? &*r.next : nullptr));
        if (r.read_committed) {
          STRATA_ASSIGN_OR_RETURN(std::string bytes, out.records.ReadAll());
          STRATA_ASSIGN_OR_RETURN(out.aborted, RemoteAbortedTxns(context, r, bytes));
        }
        return out;
      }();
      if (!fetched.ok()) {
        spdlog::warn("broker {}: remote read of {}-{} at offset {} failed: {}", context.broker_id, r.partition.first,
                     r.partition.second, r.fetch_offset, fetched.status().ToString());
      }
      data.emplace(r.partition, std::move(fetched));
    }
    shared->respond(
        Answer(shared->fetch, shared->params, ReadAll(context, shared->params, shared->fetch.targets(), &data)));
  });
  if (!submitted.ok()) {
    // Too many remote reads wait: those partitions answer KAFKA_STORAGE_ERROR now.
    RemoteData data;
    for (const RemoteRead& r : shared->reads) {
      data.emplace(r.partition, KafkaError(kafka::ErrorCode::kKafkaStorageError,
                                           absl::StrCat("remote read not started: ", submitted.message())));
    }
    shared->respond(
        Answer(shared->fetch, shared->params, ReadAll(context, shared->params, shared->fetch.targets(), &data)));
  }
}

// A fetch waiting for min_bytes or max_wait_ms. It keeps, per target, the bytes its last
// read found, the partition it read and that partition's mark then. A fetch of an
// incremental session watches its session's key alone: a wake-up takes the partitions
// of the session that became dirty and re-reads those. Any other fetch watches its
// partitions' keys: a wake-up for a partition re-reads that partition, and the check
// after it starts watching re-reads only the partitions whose mark moved. It answers
// with one read of every target.
class DelayedFetch final : public DelayedOperation {
 public:
  DelayedFetch(const KafkaApisContext& context, Clock::time_point deadline, FetchParams params, FetchContext fetch,
               const FetchResult& first, ApiResponder respond)
      : DelayedOperation(deadline),
        context_(context),
        params_(std::move(params)),
        session_key_(fetch.watch_key()),
        respond_(std::move(respond)),
        fetch_(std::move(fetch)) {
    absl::MutexLock lock(&mu_);
    const auto& targets = fetch_.targets();
    if (session_key_.empty()) {
      indexes_.reserve(targets.size());
      for (size_t i = 0; i < targets.size(); ++i) indexes_[targets[i].name->watch_key].push_back(i);
    }
    last_.resize(targets.size());
    for (size_t i = 0; i < first.reads.size(); ++i) {
      const FetchTargetRead& read = first.reads[i];
      last_[i] = read.skipped ? LastRead{0, targets[i].unchanged_since, targets[i].last_read}
                              : LastRead{read.record_bytes, read.settled, read.partition};
    }
  }

  // The keys it waits on: its session's, or its partitions'.
  std::vector<std::string> keys() const {
    if (!session_key_.empty()) return {session_key_};
    std::vector<std::string> out;
    out.reserve(indexes_.size());
    for (const auto& [key, indexes] : indexes_) out.emplace_back(key);
    return out;
  }

  void TryComplete() override {
    if (!session_key_.empty()) return TakeChangedAndRead();
    std::vector<size_t> changed;
    {
      absl::MutexLock lock(&mu_);
      for (size_t i = 0; i < last_.size(); ++i) {
        std::shared_ptr<Partition> partition = last_[i].partition.lock();
        if (partition == nullptr || !last_[i].mark || !(partition->read_mark() == *last_[i].mark)) {
          changed.push_back(i);
        }
      }
    }
    Reread(changed);
  }

  void TryCompleteFor(const std::string& key) override {
    if (!session_key_.empty()) return TakeChangedAndRead();
    auto it = indexes_.find(key);
    if (it == indexes_.end()) return TryComplete();
    Reread({it->second.begin(), it->second.end()});
  }

  void OnComplete() override {
    // Enough came, or it expired (or the broker stops): answer with what there is now. A
    // partition that moved to the remote tier meanwhile answers no records; the
    // consumer's next fetch reads it there. No wake-up changes the targets any more
    // (it is complete), so the answer is of the targets read.
    std::vector<FetchTarget> targets;
    {
      absl::MutexLock lock(&mu_);
      fetch_.TakeChanged();
      targets = fetch_.targets();
    }
    FetchResult result = ReadAll(context_, params_, targets, &kNoRemoteData);
    std::optional<ApiResponse> answer;
    {
      absl::MutexLock lock(&mu_);
      answer = Answer(fetch_, params_, std::move(result));
    }
    respond_(std::move(answer));
  }

 private:
  // Incremental: reads the partitions of its session that changed since.
  void TakeChangedAndRead() {
    std::vector<size_t> changed;
    {
      absl::MutexLock lock(&mu_);
      if (completed()) return;
      changed = fetch_.TakeChanged();
      last_.resize(fetch_.targets().size());
    }
    Reread(changed);
  }

  // Reads the targets at indexes again (no lock held: a follower's read may move a high
  // watermark, which wakes this purgatory again) and completes when they make enough.
  void Reread(const std::vector<size_t>& indexes) {
    if (indexes.empty()) return;
    std::vector<FetchTarget> targets;
    {
      absl::MutexLock lock(&mu_);
      for (size_t i : indexes) targets.push_back(fetch_.targets()[i]);
    }
    FetchResult result;
    for (FetchTarget& target : targets) {
      target.unchanged_since.reset();
      ReadTarget(context_, params_, target, std::numeric_limits<uint64_t>::max(), true, &kNoRemoteData, result);
    }
    {
      absl::MutexLock lock(&mu_);
      for (size_t n = 0; n < indexes.size(); ++n) {
        const FetchTargetRead& read = result.reads[n];
        last_[indexes[n]] = LastRead{read.record_bytes, read.settled, read.partition};
      }
      result.bytes = 0;
      for (const LastRead& last : last_) result.bytes += last.bytes;
    }
    if (result.Enough(params_)) ForceComplete();
  }

  const KafkaApisContext& context_;
  const FetchParams params_;
  const std::string session_key_;  // an incremental session's watch key, else empty
  ApiResponder respond_;
  // Sessionless and full fetches: their targets by purgatory key (the keys point into
  // the targets' names, which fetch_ holds).
  absl::flat_hash_map<absl::string_view, absl::InlinedVector<size_t, 1>> indexes_;
  absl::Mutex mu_;
  FetchContext fetch_ ABSL_GUARDED_BY(mu_);  // an incremental one's targets grow as it waits
  // Per target, its last read: the record bytes it found, the partition's mark when it
  // found nothing more to come (settled), and the partition read.
  struct LastRead {
    uint64_t bytes = 0;
    std::optional<Partition::ReadMark> mark;
    std::weak_ptr<Partition> partition;
  };
  std::vector<LastRead> last_ ABSL_GUARDED_BY(mu_);
};

// Sessions off (no cache): every fetch is sessionless, and an incremental one is
// answered FETCH_SESSION_ID_NOT_FOUND.
FetchSessionCache& NoSessions() {
  static FetchSessionCache* none = new FetchSessionCache(FetchSessionCacheOptions{.max_slots = 0});
  return *none;
}

}  // namespace

void HandleFetch(const ApiRequest& api, ApiResponder respond) {
  const KafkaApisContext& context = api.broker;
  const int16_t version = api.header.api_version;
  kafka::Reader reader(api.body);
  auto request = kafka::ReadFetchRequest(reader, version);
  if (!request.ok()) return respond(request.status());
  if (version < 7) {
    // Before sessions: whatever the fields hold, a full sessionless fetch.
    request->session_id = 0;
    request->session_epoch = kFinalFetchSessionEpoch;
    request->forgotten_topics_data.clear();
  }
  FetchSessionCache& sessions = context.fetch_sessions != nullptr ? *context.fetch_sessions : NoSessions();
  FetchContext fetch = sessions.NewContext(*request, version, api.header.connection_id, [&](const std::string& topic_id) {
    return TopicNameForId(context, topic_id);
  });
  FetchParams params(*request, version);
  // A follower's fetch is the brokers' replication: never under a client's request quota.
  if (params.follower && api.request_quota != nullptr) api.request_quota->exempt.store(true);
  if (context.authorizer != nullptr) {
    if (params.follower) {
      params.every_topic_denied = !AuthorizedOnCluster(api, security::AclOperation::kClusterAction);
    } else {
      std::set<std::string> checked;
      for (const FetchTarget& t : fetch.targets()) {
        if (checked.insert(t.topic()).second && !AuthorizedOnTopic(api, security::AclOperation::kRead, t.topic())) {
          params.denied_topics.insert(t.topic());
        }
      }
    }
  }
  if (!params.follower && context.client_quotas != nullptr && context.client_quotas->active()) {
    params.quotas = context.client_quotas;
    params.client = QuotaClientOf(api.header);
    // No answer larger than the quota allows over the window (Kafka's).
    if (auto most = params.quotas->MaxBytesInWindow(QuotaKind::kFetch, params.client)) {
      params.max_bytes = static_cast<int32_t>(std::min<int64_t>(params.max_bytes, std::max<int64_t>(*most, 1)));
    }
  }
  if (fetch.kind() == FetchContext::Kind::kError) {
    return respond(Answer(fetch, params, FetchResult{}));
  }
  FetchResult result = ReadAll(context, params, fetch.targets());
  if (!result.remote_reads.empty()) {
    std::vector<RemoteRead> remote_reads = std::move(result.remote_reads);
    return AnswerFromRemoteTier(context, std::move(params), std::move(fetch), std::move(remote_reads),
                                std::move(respond));
  }
  // A fetch with nothing to read answers at once, but for an incremental one: its
  // session's partitions may change while it waits.
  bool nothing_to_wait_for = fetch.targets().empty() && fetch.kind() != FetchContext::Kind::kIncremental;
  if (result.Enough(params) || request->max_wait_ms <= 0 || nothing_to_wait_for) {
    return respond(Answer(fetch, params, std::move(result)));
  }
  auto deadline = Clock::now() + std::chrono::milliseconds(request->max_wait_ms);
  auto op = std::make_shared<DelayedFetch>(context, deadline, std::move(params), std::move(fetch), result,
                                           std::move(respond));
  api.purgatories.fetch.TryCompleteElseWatch(op, op->keys());
}

}  // namespace strata::broker
