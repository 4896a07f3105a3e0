#include "broker/handlers/list_offsets_handler.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "broker/common/kafka_error.h"
#include "base/status_macros.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/partition_lookup.h"
#include "broker/tiered/remote_log_reader.h"
#include "broker/replication/replica_manager.h"
#include "controller/metadata_image.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {

// The version that first carries each special timestamp.
int16_t VersionFor(int64_t timestamp) {
  switch (timestamp) {
    case kafka::kListOffsetsMaxTimestamp: return 7;
    case kafka::kListOffsetsEarliestLocalTimestamp: return 8;
    case kafka::kListOffsetsLatestTieredTimestamp: return 9;
    case kafka::kListOffsetsEarliestPendingUploadTimestamp: return 10;
    default: return 0;
  }
}

// The remote tier's copies below the local log start, oldest first, when a timestamp
// lookup must search them (empty: the local log answers).
std::vector<controller::RemoteLogSegments::Segment> RemoteCopiesToSearch(const KafkaApisContext& context,
                                                                        const Partition& partition,
                                                                        int64_t timestamp) {
  std::vector<controller::RemoteLogSegments::Segment> out;
  if (timestamp < 0 || context.remote_reader == nullptr) return out;
  RemoteTierState remote = partition.remote_tier();
  int64_t local_start = partition.log()->log_start_offset();
  if (!remote.enabled || remote.log_start_offset < 0 || remote.log_start_offset >= local_start) return out;
  context.store.WithImage([&](const controller::MetadataImage& image) {
    const auto* segments = image.FindRemoteSegments(partition.state().topic_id, partition.topic_partition().partition);
    if (segments == nullptr) return;
    for (const auto& [id, s] : segments->segments()) {
      if (s.state() == controller::RemoteLogSegments::Segment::COPY_SEGMENT_FINISHED && s.start_offset() < local_start) {
        out.push_back(s);
      }
    }
  });
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start_offset() < b.start_offset(); });
  return out;
}

// Whether some partition's lookup needs the remote tier (then the request is answered
// on a reader thread).
bool NeedsRemoteTier(const KafkaApisContext& context, const kafka::ListOffsetsRequest& request) {
  if (context.remote_reader == nullptr) return false;
  for (const auto& topic : request.topics) {
    for (const auto& p : topic.partitions) {
      if (p.timestamp < 0) continue;
      auto partition = LookupPartition(context, topic.name, p.partition_index);
      if (partition.ok() && !RemoteCopiesToSearch(context, **partition, p.timestamp).empty()) return true;
    }
  }
  return false;
}

// What a timestamp search covers, read before it and again before it answers: the
// same log (no truncation or rebuild between), the same log start across both tiers,
// the same local log start. Anything else moved the range under the search.
struct SearchRange {
  int64_t truncations = 0;
  int64_t log_start = 0;
  int64_t local_start = 0;
  bool operator==(const SearchRange&) const = default;
};

SearchRange RangeOf(const Partition& partition) {
  SearchRange r;
  r.truncations = partition.log()->truncation_count();  // first: a truncation after it shows
  r.log_start = partition.log_start_offset();
  r.local_start = partition.log()->log_start_offset();
  return r;
}

std::atomic<int64_t> deferred_for_hole{0};
std::atomic<int64_t> deferred_for_moved_range{0};
std::function<void()>* search_hook = nullptr;  // tests only

// One search over both tiers (seed KC-761): the remote copies below the local log start,
// oldest first, then the local log; the first offset whose timestamp is at or after the
// target over the whole range. The remote tier is searched only where it is contiguous
// from the log start; when its copies end before the local log starts (a hole this
// replica cannot search) and they hold no match, the lookup is deferred rather than
// answered with a local offset that would skip the hole's records. local is the local
// log's answer (which also checked the epoch and the leadership).
absl::StatusOr<OffsetAndEpoch> SearchBothTiers(const KafkaApisContext& context, const Partition& partition,
                                               int64_t timestamp, const SearchRange& before,
                                               const OffsetAndEpoch& local) {
  int64_t contiguous_end = before.log_start;  // the searchable prefix is [log start, contiguous_end)
  std::optional<OffsetAndEpoch> remote;
  for (const auto& s : RemoteCopiesToSearch(context, partition, timestamp)) {
    if (s.start_offset() > contiguous_end) break;  // a gap between copies: nothing past it is searchable
    contiguous_end = std::max(contiguous_end, s.end_offset() + 1);
    if (remote || s.max_timestamp_ms() < timestamp || s.end_offset() < before.log_start) continue;
    STRATA_ASSIGN_OR_RETURN(auto found, context.remote_reader->FindOffsetByTimestamp(
                                            s, timestamp, std::max(before.log_start, s.start_offset())));
    if (!found) continue;
    OffsetAndEpoch result;
    result.offset = found->offset;
    result.timestamp = found->timestamp;
    result.leader_epoch = controller::RemoteLogSegments::EpochAt(s, found->offset);
    remote = result;
  }
  if (search_hook != nullptr) (*search_hook)();
  // The same partition (not one deleted and recreated meanwhile), over the same range.
  bool same_partition = context.replicas.GetPartition(partition.topic_partition()).get() == &partition;
  if (!same_partition || !(RangeOf(partition) == before)) {
    ++deferred_for_moved_range;
    return KafkaError(kafka::ErrorCode::kOffsetNotAvailable,
                      "the partition's searchable range moved during the lookup (truncation, rebuild or log start)");
  }
  if (remote) return *remote;
  bool hole = before.log_start < before.local_start && contiguous_end < before.local_start;
  if (hole) {
    ++deferred_for_hole;
    return KafkaError(kafka::ErrorCode::kOffsetNotAvailable,
                      absl::StrCat("offsets [", contiguous_end, ", ", before.local_start, ") of ",
                                   partition.topic_partition().DirName(),
                                   " are in neither tier here: a match there cannot be ruled out"));
  }
  return local;
}

}  // namespace

kafka::ListOffsetsResponse AnswerListOffsets(const KafkaApisContext& context, const kafka::ListOffsetsRequest& request,
                                             int16_t version) {
  kafka::ListOffsetsResponse response;
  FetchIsolation isolation = request.replica_id >= 0     ? FetchIsolation::kLogEnd
                             : request.isolation_level == 1 ? FetchIsolation::kTxnCommitted
                                                            : FetchIsolation::kHighWatermark;
  std::set<std::pair<std::string, int32_t>> seen;
  for (const auto& topic : request.topics) {
    kafka::ListOffsetsResponse::Topic& rt = response.topics.emplace_back();
    rt.name = topic.name;
    for (const auto& p : topic.partitions) {
      kafka::ListOffsetsResponse::Partition& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      auto fail = [&](const absl::Status& status) {
        rp.error_code = KafkaErrorOf(status);
        rp.offset = -1;
        rp.timestamp = -1;
        rp.leader_epoch = -1;
      };
      if (!seen.insert({topic.name, p.partition_index}).second) {
        fail(KafkaError(kafka::ErrorCode::kInvalidRequest, "the partition is named twice"));
        continue;
      }
      if (version < VersionFor(p.timestamp)) {
        fail(KafkaError(kafka::ErrorCode::kUnsupportedVersion,
                        absl::StrCat("timestamp ", p.timestamp, " needs ListOffsets v", VersionFor(p.timestamp))));
        continue;
      }
      auto partition = LookupPartition(context, topic.name, p.partition_index);
      if (!partition.ok()) {
        fail(partition.status());
        continue;
      }
      std::optional<int32_t> epoch;
      if (version >= 4) epoch = p.current_leader_epoch;
      SearchRange before = RangeOf(**partition);
      auto found = (*partition)->FetchOffsetForTimestamp(p.timestamp, isolation, epoch);
      if (found.ok() && p.timestamp >= 0) {
        // On a reader thread when the remote tier is involved (HandleListOffsets).
        OffsetAndEpoch local = *found;
        found = SearchBothTiers(context, **partition, p.timestamp, before, local);
      }
      // OFFSET_NOT_AVAILABLE came with v5; older clients retry LEADER_NOT_AVAILABLE.
      if (!found.ok() && KafkaErrorCodeOf(found.status()) == kafka::ErrorCode::kOffsetNotAvailable && version < 5) {
        found = KafkaError(kafka::ErrorCode::kLeaderNotAvailable, found.status().message());
      }
      if (!found.ok()) {
        fail(found.status());
        continue;
      }
      rp.offset = found->offset;
      rp.timestamp = found->timestamp;
      rp.leader_epoch = found->leader_epoch;
    }
  }
  return response;
}

ListOffsetsDeferrals DeferredListOffsets() {
  return ListOffsetsDeferrals{deferred_for_hole.load(), deferred_for_moved_range.load()};
}

void SetListOffsetsSearchHookForTesting(std::function<void()> hook) {
  static std::function<void()> held;
  held = std::move(hook);
  search_hook = held ? &held : nullptr;
}

namespace {

// The topics the principal may not describe leave the request; their partitions are
// answered TOPIC_AUTHORIZATION_FAILED after the rest (without a look at them).
std::vector<kafka::ListOffsetsRequest::Topic> TakeUnauthorized(const ApiRequest& request,
                                                               kafka::ListOffsetsRequest& decoded) {
  std::vector<kafka::ListOffsetsRequest::Topic> denied;
  if (request.broker.authorizer == nullptr) return denied;
  std::vector<kafka::ListOffsetsRequest::Topic> allowed;
  for (auto& topic : decoded.topics) {
    (AuthorizedOnTopic(request, security::AclOperation::kDescribe, topic.name) ? allowed : denied)
        .push_back(std::move(topic));
  }
  decoded.topics = std::move(allowed);
  return denied;
}

void AnswerDenied(const std::vector<kafka::ListOffsetsRequest::Topic>& denied, kafka::ListOffsetsResponse& answer) {
  for (const auto& topic : denied) {
    kafka::ListOffsetsResponse::Topic& rt = answer.topics.emplace_back();
    rt.name = topic.name;
    for (const auto& p : topic.partitions) {
      kafka::ListOffsetsResponse::Partition& rp = rt.partitions.emplace_back();
      rp.partition_index = p.partition_index;
      rp.error_code = static_cast<int16_t>(kafka::ErrorCode::kTopicAuthorizationFailed);
      rp.offset = rp.timestamp = -1;
      rp.leader_epoch = -1;
    }
  }
}

void Respond(const kafka::ListOffsetsResponse& answer, int16_t version, const ApiResponder& respond) {
  ApiResponse response;
  kafka::Writer writer(&response.body);
  kafka::WriteListOffsetsResponse(answer, version, writer);
  CountErrors(answer, response.errors);
  respond(std::optional<ApiResponse>(std::move(response)));
}

}  // namespace

void HandleListOffsets(const ApiRequest& request, ApiResponder respond) {
  kafka::Reader reader(request.body);
  const int16_t version = request.header.api_version;
  auto decoded = kafka::ReadListOffsetsRequest(reader, version);
  if (!decoded.ok()) return respond(decoded.status());
  std::vector<kafka::ListOffsetsRequest::Topic> denied = TakeUnauthorized(request, *decoded);
  const KafkaApisContext& context = request.broker;
  if (NeedsRemoteTier(context, *decoded)) {
    // A timestamp below the local log start: searched on a reader thread.
    struct Work {
      kafka::ListOffsetsRequest request;
      std::vector<kafka::ListOffsetsRequest::Topic> denied;
      ApiResponder respond;
    };
    auto work = std::make_shared<Work>(Work{*std::move(decoded), std::move(denied), respond});
    absl::Status submitted = context.remote_reader->Submit([&context, version, work] {
      kafka::ListOffsetsResponse answer = AnswerListOffsets(context, work->request, version);
      AnswerDenied(work->denied, answer);
      Respond(answer, version, work->respond);
    });
    if (submitted.ok()) return;
    // Too many remote reads wait: answered here, the remote tier's part failing.
    decoded = std::move(work->request);
    denied = std::move(work->denied);
  }
  kafka::ListOffsetsResponse answer = AnswerListOffsets(context, *decoded, version);
  AnswerDenied(denied, answer);
  Respond(answer, version, respond);
}

}  // namespace strata::broker
