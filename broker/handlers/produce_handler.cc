#include "broker/handlers/produce_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/handlers/client_quota.h"


#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/auto_topic_creator.h"
#include "broker/common/kafka_error.h"
#include "broker/handlers/partition_lookup.h"
#include "broker/replication/replica_manager.h"
#include "broker/transactions/add_partitions_to_txn_manager.h"
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
  out.throttle = std::chrono::milliseconds(response.throttle_time_ms);  // set by the client's quota only
  kafka::Writer w(&out.body);
  kafka::WriteProduceResponse(response, version, w);
  CountErrors(response, out.errors);
  return std::optional<ApiResponse>(std::move(out));
}

int32_t MinInsyncReplicas(const KafkaApisContext& context, const std::string& topic) {
  int32_t value = context.default_min_insync_replicas;
  if (auto text = DynamicTopicConfig(context, topic, "min.insync.replicas")) (void)absl::SimpleAtoi(*text, &value);
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

// One Produce request across its appends: those of partitions whose batch opens a
// transaction wait for the coordinator's verification (KIP-890 part 1), the rest are
// appended at once; the answer goes once every partition has its outcome.
struct ProduceCall {
  ProduceCall(const KafkaApisContext& context, Purgatories& purgatories, int16_t version, ApiResponder respond)
      : context(context), purgatories(purgatories), version(version), respond(std::move(respond)) {}
  const KafkaApisContext& context;
  Purgatories& purgatories;
  const int16_t version;
  ApiResponder respond;
  kafka::ProduceRequest request;
  absl::Mutex mu;  // verifications answer on other threads
  kafka::ProduceResponse response ABSL_GUARDED_BY(mu);
  std::vector<DelayedProduce::Waiting> waiting ABSL_GUARDED_BY(mu);
  bool any_error ABSL_GUARDED_BY(mu) = false;
  int verifications_left ABSL_GUARDED_BY(mu) = 0;
};

// A partition whose batch waits for the coordinator's word.
struct ToVerify {
  size_t topic = 0, partition = 0;  // indexes into the request and the response
  storage::TopicPartition tp;
  std::shared_ptr<Partition> partition_ptr;
  int32_t min_isr = 1;
  uint64_t guard = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

void Fail(ProduceCall& call, kafka::ProduceResponse::Partition& p, const absl::Status& status)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(call.mu) {
  SetError(p, status);
  call.any_error = true;
}

// Appends records to tp and records the outcome in the response at (t, i).
void Append(ProduceCall& call, size_t t, size_t i, const storage::TopicPartition& tp, const Partition& partition,
            std::string& records, int32_t min_isr, const storage::TxnVerification& verification)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(call.mu) {
  kafka::ProduceResponse::Partition& rp = call.response.responses[t].partition_responses[i];
  auto info = call.context.replicas.AppendRecords(tp, records, storage::AppendOrigin::kClient, verification);
  if (!info.ok()) {
    Fail(call, rp, info.status());
    if (call.request.acks != 0 && KafkaErrorCodeOf(info.status()) == kafka::ErrorCode::kKafkaStorageError &&
        !call.context.replicas.LeadershipLeft(tp)) {
      call.waiting.push_back({t, i, tp, 0, min_isr, true});
    }
    return;
  }
  rp.base_offset = info->first_offset;
  rp.log_append_time_ms = info->log_append_time;
  rp.log_start_offset = partition.log_start_offset();
  if (call.request.acks == -1) call.waiting.push_back({t, i, tp, info->last_offset + 1, min_isr});
}

// Every partition has its outcome: answer now, or once the ISR has the records.
void Finish(const std::shared_ptr<ProduceCall>& call) {
  kafka::ProduceResponse response;
  std::vector<DelayedProduce::Waiting> waiting;
  bool any_error;
  {
    absl::MutexLock lock(&call->mu);
    response = std::move(call->response);
    waiting = std::move(call->waiting);
    any_error = call->any_error;
  }
  if (call->request.acks == 0) {
    // No response; a failure closes the connection so the producer finds out.
    if (any_error) return call->respond(absl::FailedPreconditionError("an acks=0 produce failed; closing the connection"));
    if (response.throttle_time_ms > 0) {  // over a quota: nothing more is read for that long
      ApiResponse muted;
      muted.throttle = std::chrono::milliseconds(response.throttle_time_ms);
      muted.silent = true;
      return call->respond(std::optional<ApiResponse>(std::move(muted)));
    }
    return call->respond(std::optional<ApiResponse>());
  }
  if (waiting.empty()) return call->respond(Encode(response, call->version));
  std::vector<std::string> keys;
  for (const auto& w : waiting) keys.push_back(w.tp.DirName());
  auto op = std::make_shared<DelayedProduce>(call->context,
                                             Clock::now() + std::chrono::milliseconds(call->request.timeout_ms),
                                             std::move(response), call->version, std::move(waiting),
                                             std::move(call->respond));
  call->purgatories.produce.TryCompleteElseWatch(op, std::move(keys));
}

// What a producer is told when the coordinator did not verify (or add) a partition
// (Kafka's mapping: the coordinator's passing errors become NOT_ENOUGH_REPLICAS, which
// every producer retries without a metadata refresh).
absl::Status VerificationError(const storage::TopicPartition& tp, kafka::ErrorCode e) {
  switch (e) {
    case kafka::ErrorCode::kInvalidTxnState:
      return KafkaError(e, absl::StrCat(tp.DirName(), " is not in the producer's ongoing transaction"));
    case kafka::ErrorCode::kConcurrentTransactions:
    case kafka::ErrorCode::kNetworkException:
    case kafka::ErrorCode::kCoordinatorLoadInProgress:
    case kafka::ErrorCode::kCoordinatorNotAvailable:
    case kafka::ErrorCode::kNotCoordinator:
      return KafkaError(kafka::ErrorCode::kNotEnoughReplicas,
                        absl::StrCat("could not verify that ", tp.DirName(),
                                     " is in the producer's transaction: ", kafka::ErrorName(e)));
    default:
      return KafkaError(e, absl::StrCat("verifying that ", tp.DirName(), " is in the producer's transaction"));
  }
}

// Asks the coordinator about every partition in to_verify (one question per producer
// id and epoch), appends those verified, then finishes the call.
void VerifyThenAppend(const std::shared_ptr<ProduceCall>& call, std::vector<ToVerify> to_verify) {
  std::map<std::pair<int64_t, int16_t>, std::vector<ToVerify>> by_producer;
  for (ToVerify& v : to_verify) by_producer[{v.producer_id, v.producer_epoch}].push_back(std::move(v));
  {
    absl::MutexLock lock(&call->mu);
    call->verifications_left = static_cast<int>(by_producer.size());
  }
  for (auto& [producer, group] : by_producer) {
    std::set<storage::TopicPartition> partitions;
    for (const ToVerify& v : group) partitions.insert(v.tp);
    // Produce v12 is KIP-890 part 2's: the leader adds the partition (the producer sent no
    // AddPartitionsToTxn); before it, part 1's verification.
    const TxnPartitionOperation operation = call->version >= kafka::kProduceImplicitAddVersion
                                                ? TxnPartitionOperation::kAdd
                                                : TxnPartitionOperation::kVerify;
    call->context.txn_verifier->Verify(
        *call->request.transactional_id, producer.first, producer.second, std::move(partitions), operation,
        [call, group = std::move(group)](TxnVerifier::Unverified unverified) {
          bool last;
          {
            absl::MutexLock lock(&call->mu);
            for (const ToVerify& v : group) {
              std::string& records = *call->request.topic_data[v.topic].partition_data[v.partition].records;
              auto refused = unverified.find(v.tp);
              if (refused != unverified.end()) {
                absl::Status status = VerificationError(v.tp, refused->second);
                call->context.replicas.ProduceRefused(v.tp, records, status);
                Fail(*call, call->response.responses[v.topic].partition_responses[v.partition], status);
              } else {
                Append(*call, v.topic, v.partition, v.tp, *v.partition_ptr, records, v.min_isr,
                       {.required = true, .guard = v.guard});
              }
              call->context.replicas.EndTxnVerification(v.tp, v.producer_id);
            }
            last = --call->verifications_left == 0;
          }
          if (last) Finish(call);
        });
  }
}

// The first batch's producer when it is transactional (a data batch): it may open a
// transaction, which the coordinator verifies first.
std::optional<std::pair<int64_t, int16_t>> TransactionalProducer(absl::string_view records) {
  storage::BatchSplitter splitter(records);
  auto batch = splitter.Next();
  if (!batch.ok() || !batch->has_value()) return std::nullopt;  // framing errors are the log's to report
  const storage::RecordBatchHeader h = storage::RecordBatchHeader::Parse((*batch)->data());
  if (!h.is_transactional() || h.is_control() || !h.has_producer_id()) return std::nullopt;
  return std::make_pair(h.producer_id, h.producer_epoch);
}

// Why the whole request is refused (every partition answers it), or OK.
absl::Status RefusedRequest(const ApiRequest& api, const kafka::ProduceRequest& request) {
  const int16_t version = api.header.api_version;
  if (version < kafka::kProduceMinServedVersion) {
    return KafkaError(kafka::ErrorCode::kUnsupportedVersion,
                      absl::StrCat("Produce v", version, " (message format v0/v1) is not supported; use v",
                                   kafka::kProduceMinServedVersion, "+"));
  }
  if (request.transactional_id.has_value() &&
      !AuthorizedOnTransactionalId(api, security::AclOperation::kWrite, *request.transactional_id)) {
    // A transactional producer writes for its transactional id (Kafka checks it first).
    return KafkaError(kafka::ErrorCode::kTransactionalIdAuthorizationFailed,
                      absl::StrCat("not authorized to write for transactional id ", *request.transactional_id));
  }
  if (request.acks != 0 && request.acks != 1 && request.acks != -1) {
    return KafkaError(kafka::ErrorCode::kInvalidRequiredAcks,
                      absl::StrCat("acks=", request.acks, " is not one of -1, 0, 1"));
  }
  return absl::OkStatus();
}

// One partition of the request: its checks, then its append now or after verification
// (added to to_verify).
void ProducePartition(const ApiRequest& api, ProduceCall& call, size_t t, size_t i, const absl::Status& refused,
                      bool authorized, std::vector<ToVerify>& to_verify) ABSL_EXCLUSIVE_LOCKS_REQUIRED(call.mu) {
  const KafkaApisContext& context = call.context;
  const std::string& topic = call.request.topic_data[t].name;
  kafka::ProduceRequest::Partition& data = call.request.topic_data[t].partition_data[i];
  kafka::ProduceResponse::Partition& rp = call.response.responses[t].partition_responses[i];
  auto fail = [&](const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(call.mu) { Fail(call, rp, status); };
  if (!refused.ok()) return fail(refused);
  if (!authorized) {
    return fail(KafkaError(kafka::ErrorCode::kTopicAuthorizationFailed,
                           absl::StrCat("not authorized to write to topic ", topic)));
  }
  storage::TopicPartition tp{topic, data.index};
  // A refusal of this handler's own that stores nothing (produce_refusals.h).
  auto refuse = [&](const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(call.mu) {
    if (data.records.has_value()) context.replicas.ProduceRefused(tp, *data.records, status);
    fail(status);
  };
  auto partition = LookupPartition(context, topic, data.index);
  if (!partition.ok()) {
    if (context.auto_topic_creator != nullptr &&
        context.store.WithImage(
            [&](const controller::MetadataImage& image) { return image.FindTopic(topic) == nullptr; }) &&
        (AuthorizedOnCluster(api, security::AclOperation::kCreate) ||
         AuthorizedOnTopic(api, security::AclOperation::kCreate, topic))) {
      // auto.create.topics.enable: the producer's retry finds it (UNKNOWN_TOPIC_OR_PARTITION is retriable).
      context.auto_topic_creator->Request(topic);
    }
    return refuse(partition.status());
  }
  if (!data.records.has_value() || data.records->empty()) {
    return fail(KafkaError(kafka::ErrorCode::kInvalidRecord, "the partition's records are empty"));
  }
  if (call.version < 7 && HasZstdBatch(*data.records)) {
    return fail(KafkaError(kafka::ErrorCode::kUnsupportedCompressionType,
                           absl::StrCat("zstd batches need Produce v7 or later, not v", call.version)));
  }
  int32_t min_isr = 1;
  if (call.request.acks == -1) {
    int32_t isr = static_cast<int32_t>((*partition)->state().isr.size());
    // As the ReplicaManager last applied it; the image's only for a partition that left.
    std::optional<ReplicaManager::HostedPartition> hosted = context.replicas.FindHosted(tp);
    min_isr = hosted ? hosted->min_insync_replicas : MinInsyncReplicas(context, topic);
    if (isr < min_isr) {
      return refuse(KafkaError(kafka::ErrorCode::kNotEnoughReplicas,
                               absl::StrCat(topic, "-", data.index, " has ", isr,
                                            " in-sync replicas, below min.insync.replicas ", min_isr)));
    }
  }
  storage::TxnVerification verification;
  const bool ask_coordinator = call.version >= kafka::kProduceImplicitAddVersion || context.txn_partition_verification;
  if (context.txn_verifier != nullptr && ask_coordinator && call.request.transactional_id.has_value()) {
    if (auto producer = TransactionalProducer(*data.records)) {
      auto guard = context.replicas.StartTxnVerification(tp, producer->first, producer->second,
                                                         call.version >= kafka::kProduceImplicitAddVersion);
      if (!guard.ok()) return fail(guard.status());
      verification = {.required = true, .guard = *guard};
      if (*guard != 0) {
        // The batch would open the producer's transaction here, or follows one being
        // verified (and must be appended after it): the coordinator first.
        to_verify.push_back({t, i, tp, *partition, min_isr, *guard, producer->first, producer->second});
        return;
      }
    }
  }
  Append(call, t, i, tp, **partition, *data.records, min_isr, verification);
}

}  // namespace

void HandleProduce(const ApiRequest& api, ApiResponder respond) {
  kafka::Reader reader(api.body);
  auto request = kafka::ReadProduceRequest(reader, api.header.api_version);
  if (!request.ok()) return respond(request.status());
  auto call = std::make_shared<ProduceCall>(api.broker, api.purgatories, api.header.api_version, std::move(respond));
  call->request = *std::move(request);
  // producer_byte_rate: the request's bytes count as it comes (Kafka counts them when it
  // answers; the same bytes, the same throttle).
  const std::chrono::milliseconds throttle =
      RecordClientBytes(api.broker, api.header, QuotaKind::kProduce, static_cast<int64_t>(api.body.size()));
  const absl::Status refused = RefusedRequest(api, call->request);
  std::vector<ToVerify> to_verify;
  {
    absl::MutexLock lock(&call->mu);
    // request_percentage too (the longer): Produce's throttle_time_ms is not where
    // KafkaApis could put it in the encoded answer.
    call->response.throttle_time_ms =
        static_cast<int32_t>(std::max(throttle, api.request_quota ? api.request_quota->throttle : throttle).count());
    for (size_t t = 0; t < call->request.topic_data.size(); ++t) {
      const kafka::ProduceRequest::Topic& topic = call->request.topic_data[t];
      kafka::ProduceResponse::Topic& rt = call->response.responses.emplace_back();
      rt.name = topic.name;
      for (const auto& data : topic.partition_data) rt.partition_responses.emplace_back().index = data.index;
      // Write on the topic, checked before the topic's existence (TOPIC_AUTHORIZATION_FAILED
      // tells an unauthorized producer nothing of which topics exist), as Kafka.
      const bool authorized = !refused.ok() || AuthorizedOnTopic(api, security::AclOperation::kWrite, topic.name);
      for (size_t i = 0; i < topic.partition_data.size(); ++i) {
        ProducePartition(api, *call, t, i, refused, authorized, to_verify);
      }
    }
  }
  if (to_verify.empty()) return Finish(call);
  VerifyThenAppend(call, std::move(to_verify));
}

}  // namespace strata::broker
