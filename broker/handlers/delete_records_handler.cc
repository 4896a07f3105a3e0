#include "broker/handlers/delete_records_handler.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/kafka_error.h"
#include "broker/handlers/authorization.h"
#include "broker/handlers/partition_lookup.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "broker/replication/replica_manager.h"
#include "controller/metadata_store.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {

using Clock = std::chrono::steady_clock;

// A partition whose log start moved on its leader, waiting for its followers'.
struct Waiting {
  size_t topic = 0, partition = 0;  // indexes into the response
  storage::TopicPartition tp;
  int64_t required_offset = 0;  // -1: settled
  // Its replicas on live brokers when the request came (read then: the image's lock is
  // never taken under another, produce_handler.cc).
  std::vector<int32_t> live_replicas;
};

absl::StatusOr<std::optional<ApiResponse>> Encode(const kafka::DeleteRecordsResponse& response, int16_t version) {
  ApiResponse out;
  kafka::Writer w(&out.body);
  kafka::WriteDeleteRecordsResponse(response, version, w);
  CountErrors(response, out.errors);
  return std::optional<ApiResponse>(std::move(out));
}

class DelayedDeleteRecords final : public DelayedOperation {
 public:
  DelayedDeleteRecords(const KafkaApisContext& context, Clock::time_point deadline,
                       kafka::DeleteRecordsResponse response, int16_t version, std::vector<Waiting> waiting,
                       ApiResponder respond)
      : DelayedOperation(deadline),
        context_(context),
        response_(std::move(response)),
        version_(version),
        waiting_(std::move(waiting)),
        respond_(std::move(respond)) {}

  void TryComplete() override {
    {
      absl::MutexLock lock(&mu_);
      for (Waiting& w : waiting_) {
        if (w.required_offset < 0) continue;
        auto& p = response_.topics[w.topic].partitions[w.partition];
        std::shared_ptr<Partition> partition = context_.replicas.GetPartition(w.tp);
        absl::StatusOr<int64_t> low =
            partition == nullptr ? KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                                              absl::StrCat(w.tp.DirName(), " is no longer hosted here"))
                                 : partition->LowWatermark(w.live_replicas);
        if (!low.ok()) {
          p.error_code = KafkaErrorOf(low.status());
          w.required_offset = -1;
        } else if (*low >= w.required_offset) {
          p.low_watermark = *low;
          w.required_offset = -1;
        }
      }
      for (const Waiting& w : waiting_) {
        if (w.required_offset >= 0) return;
      }
    }
    ForceComplete();
  }

  void OnComplete() override {
    absl::MutexLock lock(&mu_);
    for (const Waiting& w : waiting_) {
      if (w.required_offset >= 0) {
        response_.topics[w.topic].partitions[w.partition].error_code =
            static_cast<int16_t>(kafka::ErrorCode::kRequestTimedOut);
      }
    }
    respond_(Encode(response_, version_));
  }

 private:
  const KafkaApisContext& context_;
  absl::Mutex mu_;
  kafka::DeleteRecordsResponse response_ ABSL_GUARDED_BY(mu_);
  const int16_t version_;
  std::vector<Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  ApiResponder respond_;
};

// The replicas of topic-partition on live brokers (registered, unfenced, not shutting
// down, their log dir online), as Kafka's low watermark counts them.
std::vector<int32_t> LiveReplicas(const KafkaApisContext& context, const std::string& topic, int32_t partition) {
  std::vector<int32_t> live;
  context.store.WithImage([&](const controller::MetadataImage& image) {
    const controller::TopicState* t = image.FindTopic(topic);
    if (t == nullptr) return;
    const metadata::v1::Partition* p = image.FindPartition(t->id, partition);
    if (p == nullptr) return;
    for (int i = 0; i < p->replicas_size(); ++i) {
      if (controller::ReplicaAvailable(image, *p, p->replicas(i), i)) live.push_back(p->replicas(i));
    }
  });
  return live;
}

}  // namespace

void HandleDeleteRecords(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  const int16_t version = request.header.api_version;
  kafka::Reader reader(request.body);
  auto decoded = kafka::ReadDeleteRecordsRequest(reader, version);
  if (!decoded.ok()) return respond(decoded.status());
  kafka::DeleteRecordsResponse response;
  std::vector<Waiting> waiting;
  for (const auto& topic : decoded->topics) {
    auto& out_topic = response.topics.emplace_back();
    out_topic.name = topic.name;
    const bool authorized = AuthorizedOnTopic(request, security::AclOperation::kDelete, topic.name);
    for (const auto& asked : topic.partitions) {
      auto& out = out_topic.partitions.emplace_back();
      out.partition_index = asked.partition_index;
      if (!authorized) {
        out.error_code = static_cast<int16_t>(kafka::ErrorCode::kTopicAuthorizationFailed);
        continue;
      }
      auto partition = LookupPartition(context, topic.name, asked.partition_index);
      absl::StatusOr<int64_t> moved = partition.ok() ? (*partition)->DeleteRecords(asked.offset) : partition.status();
      if (moved.ok()) {
        context.replicas.LogStartMoved((*partition)->topic_partition());
        // With remote storage, the remote tier's part goes through the quorum.
        absl::Status remote =
            context.replicas.MoveRemoteLogStart(**partition, *moved, ForwardDeadline(decoded->timeout_ms));
        if (!remote.ok()) moved = remote;
      }
      if (!moved.ok()) {
        out.error_code = KafkaErrorOf(moved.status());
        continue;
      }
      waiting.push_back({response.topics.size() - 1, out_topic.partitions.size() - 1,
                         (*partition)->topic_partition(), *moved,
                         LiveReplicas(context, topic.name, asked.partition_index)});
    }
  }
  if (waiting.empty()) return respond(Encode(response, version));
  std::vector<std::string> keys;
  for (const auto& w : waiting) keys.push_back(w.tp.DirName());
  auto op = std::make_shared<DelayedDeleteRecords>(context, Clock::now() + std::chrono::milliseconds(decoded->timeout_ms),
                                                   std::move(response), version, std::move(waiting),
                                                   std::move(respond));
  request.purgatories.delete_records.TryCompleteElseWatch(op, std::move(keys));
}

}  // namespace strata::broker
