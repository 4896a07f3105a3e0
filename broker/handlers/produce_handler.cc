#include "broker/handlers/produce_handler.h"

#include "broker/handlers/authorization.h"


#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/auto_topic_creator.h"
#include "broker/common/kafka_error.h"
#include "broker/handlers/partition_lookup.h"
#include "broker/replication/replica_manager.h"
#include "proto/kafka/produce.h"
#include "storage/record_batch.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {

using Clock = std::chrono::steady_clock;

void SetError(kafka::ProduceResponse::Partition& p, const absl::Status& status) {
  p.error_code = KafkaErrorOf(status);
  p.error_message = std::string(status.message());
  p.base_offset = -1;
}

absl::StatusOr<std::optional<ApiResponse>> Encode(const kafka::ProduceResponse& response, int16_t version) {
  ApiResponse out;
  kafka::Writer w(&out.body);
  kafka::WriteProduceResponse(response, version, w);
  CountErrors(response, out.errors);
  return std::optional<ApiResponse>(std::move(out));
}

int32_t MinInsyncReplicas(const KafkaApisContext& context, const std::string& topic) {
  int32_t value = context.default_min_insync_replicas;
  if (auto text = TopicConfig(context, topic, "min.insync.replicas")) (void)absl::SimpleAtoi(*text, &value);
  return value;
}

// An acks=-1 produce waiting for the high watermark to pass what it appended.
class DelayedProduce final : public DelayedOperation {
 public:
  struct Waiting {
    size_t topic = 0, partition = 0;  // indexes into the response
    storage::TopicPartition tp;
    int64_t required_offset = 0;  // the high watermark that acknowledges the append
    // min.insync.replicas as it was when the records were appended. Read then, not at
    // each check: a check runs under mu_, and the metadata image's lock must never be
    // taken under another lock (a broker applies the image under it and that completes
    // produces: the two orders together are a lock cycle; controller/metadata_store.h).
    int32_t min_insync_replicas = 1;
    // Answered KAFKA_STORAGE_ERROR already; held until the image names another leader.
    bool awaiting_new_leader = false;
  };

  DelayedProduce(const KafkaApisContext& context, Clock::time_point deadline, kafka::ProduceResponse response,
                 int16_t version, std::vector<Waiting> waiting, ApiResponder respond)
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
        if (w.required_offset < 0) continue;  // settled
        auto& p = response_.responses[w.topic].partition_responses[w.partition];
        std::shared_ptr<Partition> partition = context_.replicas.GetPartition(w.tp);
        if (!w.awaiting_new_leader && partition != nullptr && partition->log()->offline()) {
          SetError(p, KafkaError(kafka::ErrorCode::kKafkaStorageError,
                                 absl::StrCat("the log dir of ", w.tp.DirName(), " failed before the ISR had the records")));
          w.awaiting_new_leader = true;
        }
        if (w.awaiting_new_leader) {
          // The client asks for metadata as soon as it reads the error: answered before the
          // image names the new leader, it would find this broker again and wait for its
          // next refresh (librdkafka: 1 s) to find the new one.
          if (context_.replicas.LeadershipLeft(w.tp)) w.required_offset = -1;
        } else if (partition == nullptr || !partition->is_leader()) {
          SetError(p, KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                                 absl::StrCat("leadership of ", w.tp.DirName(), " moved before the ISR had the records")));
          w.required_offset = -1;
        } else if (partition->high_watermark() < w.required_offset && context_.replicas.Stranded(*partition)) {
          SetError(p, KafkaError(kafka::ErrorCode::kNotLeaderOrFollower,
                                 absl::StrCat("this broker was cut off from the controller and the other in-sync "
                                              "replicas of ", w.tp.DirName(), " before they had the records")));
          w.required_offset = -1;
        } else if (partition->high_watermark() >= w.required_offset) {
          w.required_offset = -1;  // acknowledged by the whole ISR
          int32_t isr = static_cast<int32_t>(partition->state().isr.size());
          if (isr < w.min_insync_replicas) {
            SetError(p, KafkaError(kafka::ErrorCode::kNotEnoughReplicasAfterAppend,
                                   absl::StrCat(w.tp.DirName(), " ISR shrank to ", isr, " during the append")));
          }
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
      if (w.required_offset < 0 || w.awaiting_new_leader) continue;
      SetError(response_.responses[w.topic].partition_responses[w.partition],
               KafkaError(kafka::ErrorCode::kRequestTimedOut,
                          absl::StrCat("the ISR of ", w.tp.DirName(), " did not reach offset ", w.required_offset,
                                       " within the request's timeout")));
    }
    respond_(Encode(response_, version_));
  }

 private:
  const KafkaApisContext& context_;
  absl::Mutex mu_;
  kafka::ProduceResponse response_ ABSL_GUARDED_BY(mu_);
  const int16_t version_;
  std::vector<Waiting> waiting_ ABSL_GUARDED_BY(mu_);
  ApiResponder respond_;
};

// zstd came with Produce v7 (KIP-110): an older request carrying it is refused as Kafka
// refuses it, since its client cannot have meant it.
bool HasZstdBatch(absl::string_view records) {
  storage::BatchSplitter splitter(records);
  while (true) {
    auto batch = splitter.Next();
    if (!batch.ok() || !batch->has_value()) return false;  // framing errors are the log's to report
    if (storage::RecordBatchHeader::Parse((*batch)->data()).compression() == storage::Compression::kZstd) return true;
  }
}

}  // namespace

void HandleProduce(const ApiRequest& api, ApiResponder respond) {
  const KafkaApisContext& context = api.broker;
  const kafka::RequestHeader& header = api.header;
  kafka::Reader reader(api.body);
  auto request = kafka::ReadProduceRequest(reader, header.api_version);
  if (!request.ok()) return respond(request.status());
  kafka::ProduceResponse response;
  std::vector<DelayedProduce::Waiting> waiting;
  absl::Status refused;  // for every partition when set
  if (header.api_version < kafka::kProduceMinServedVersion) {
    refused = KafkaError(kafka::ErrorCode::kUnsupportedVersion,
                         absl::StrCat("Produce v", header.api_version, " (message format v0/v1) is not supported; use v",
                                      kafka::kProduceMinServedVersion, "+"));
  } else if (request->transactional_id.has_value() &&
             !AuthorizedOnTransactionalId(api, security::AclOperation::kWrite, *request->transactional_id)) {
    // A transactional producer writes for its transactional id (Kafka checks it first).
    refused = KafkaError(kafka::ErrorCode::kTransactionalIdAuthorizationFailed,
                         absl::StrCat("not authorized to write for transactional id ", *request->transactional_id));
  } else if (request->acks != 0 && request->acks != 1 && request->acks != -1) {
    refused = KafkaError(kafka::ErrorCode::kInvalidRequiredAcks,
                         absl::StrCat("acks=", request->acks, " is not one of -1, 0, 1"));
  }
  bool any_error = false;
  for (auto& topic : request->topic_data) {
    kafka::ProduceResponse::Topic& rt = response.responses.emplace_back();
    rt.name = topic.name;
    // Write on the topic, checked before the topic's existence (TOPIC_AUTHORIZATION_FAILED
    // tells an unauthorized producer nothing of which topics exist), as Kafka.
    const bool authorized = !refused.ok() || AuthorizedOnTopic(api, security::AclOperation::kWrite, topic.name);
    for (auto& data : topic.partition_data) {
      kafka::ProduceResponse::Partition& rp = rt.partition_responses.emplace_back();
      rp.index = data.index;
      auto fail = [&](const absl::Status& status) {
        SetError(rp, status);
        any_error = true;
      };
      if (!refused.ok()) {
        fail(refused);
        continue;
      }
      if (!authorized) {
        fail(KafkaError(kafka::ErrorCode::kTopicAuthorizationFailed,
                        absl::StrCat("not authorized to write to topic ", topic.name)));
        continue;
      }
      storage::TopicPartition tp{topic.name, data.index};
      // A refusal of this handler's own that stores nothing (produce_refusals.h).
      auto refuse = [&](const absl::Status& status) {
        if (data.records.has_value()) context.replicas.ProduceRefused(tp, *data.records, status);
        fail(status);
      };
      auto partition = LookupPartition(context, topic.name, data.index);
      if (!partition.ok()) {
        if (context.auto_topic_creator != nullptr &&
            context.store.WithImage([&](const controller::MetadataImage& image) {
              return image.FindTopic(topic.name) == nullptr;
            }) &&
            (AuthorizedOnCluster(api, security::AclOperation::kCreate) ||
             AuthorizedOnTopic(api, security::AclOperation::kCreate, topic.name))) {
          // auto.create.topics.enable: the producer's retry finds it (UNKNOWN_TOPIC_OR_PARTITION is retriable).
          context.auto_topic_creator->Request(topic.name);
        }
        refuse(partition.status());
        continue;
      }
      if (!data.records.has_value() || data.records->empty()) {
        fail(KafkaError(kafka::ErrorCode::kInvalidRecord, "the partition's records are empty"));
        continue;
      }
      if (header.api_version < 7 && HasZstdBatch(*data.records)) {
        fail(KafkaError(kafka::ErrorCode::kUnsupportedCompressionType,
                        absl::StrCat("zstd batches need Produce v7 or later, not v", header.api_version)));
        continue;
      }
      int32_t min_isr = 1;
      if (request->acks == -1) {
        int32_t isr = static_cast<int32_t>((*partition)->state().isr.size());
        // As the ReplicaManager last applied it; the image's only for a partition that left.
        std::optional<ReplicaManager::HostedPartition> hosted = context.replicas.FindHosted(tp);
        min_isr = hosted ? hosted->min_insync_replicas : MinInsyncReplicas(context, topic.name);
        if (isr < min_isr) {
          refuse(KafkaError(kafka::ErrorCode::kNotEnoughReplicas,
                          absl::StrCat(topic.name, "-", data.index, " has ", isr, " in-sync replicas, below "
                                       "min.insync.replicas ", min_isr)));
          continue;
        }
      }
      auto info = context.replicas.AppendRecords(tp, *data.records);
      if (!info.ok()) {
        fail(info.status());
        if (request->acks != 0 && KafkaErrorCodeOf(info.status()) == kafka::ErrorCode::kKafkaStorageError &&
            !context.replicas.LeadershipLeft(tp)) {
          waiting.push_back({response.responses.size() - 1, rt.partition_responses.size() - 1, tp, 0, min_isr, true});
        }
        continue;
      }
      rp.base_offset = info->first_offset;
      rp.log_append_time_ms = info->log_append_time;
      rp.log_start_offset = (*partition)->log_start_offset();
      if (request->acks == -1) {
        waiting.push_back({response.responses.size() - 1, rt.partition_responses.size() - 1, tp,
                           info->last_offset + 1, min_isr});
      }
    }
  }
  if (request->acks == 0) {
    // No response; a failure closes the connection so the producer finds out.
    if (any_error) return respond(absl::FailedPreconditionError("an acks=0 produce failed; closing the connection"));
    return respond(std::optional<ApiResponse>());
  }
  if (waiting.empty()) return respond(Encode(response, header.api_version));
  std::vector<std::string> keys;
  for (const auto& w : waiting) keys.push_back(w.tp.DirName());
  auto op = std::make_shared<DelayedProduce>(context, Clock::now() + std::chrono::milliseconds(request->timeout_ms),
                                             std::move(response), header.api_version, std::move(waiting),
                                             std::move(respond));
  api.purgatories.produce.TryCompleteElseWatch(op, std::move(keys));
}

}  // namespace strata::broker
