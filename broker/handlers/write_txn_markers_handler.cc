#include "broker/handlers/write_txn_markers_handler.h"

#include <chrono>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/kafka_error.h"
#include "broker/group/group_coordinator.h"
#include "broker/group/group_record.h"
#include "broker/handlers/authorization.h"
#include "broker/replication/partition.h"
#include "broker/replication/replica_manager.h"
#include "proto/kafka/write_txn_markers.h"
#include "storage/control_record.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

namespace {

constexpr std::chrono::milliseconds kMarkerTimeout{30000};

// A partition whose marker was appended and waits for the ISR.
struct WaitingMarker {
  size_t marker = 0, topic = 0, partition = 0;  // where its answer goes
  storage::TopicPartition tp;
  int64_t required_offset = -1;  // -1: settled
  int64_t producer_id = -1;
  bool commit = false;
};

class DelayedTxnMarkers final : public DelayedOperation {
 public:
  DelayedTxnMarkers(const KafkaApisContext& context, kafka::WriteTxnMarkersResponse response, int16_t version,
                    std::vector<WaitingMarker> waiting, ApiResponder respond)
      : DelayedOperation(std::chrono::steady_clock::now() + kMarkerTimeout),
        context_(context),
        response_(std::move(response)),
        version_(version),
        waiting_(std::move(waiting)),
        respond_(std::move(respond)) {}

  void TryComplete() override {
    {
      absl::MutexLock lock(&mu_);
      for (WaitingMarker& w : waiting_) {
        if (w.required_offset < 0) continue;
        std::shared_ptr<Partition> partition = context_.replicas.GetPartition(w.tp);
        if (partition == nullptr || !partition->is_leader()) {
          Set(w, ErrorCode::kNotLeaderOrFollower);
        } else if (partition->high_watermark() >= w.required_offset) {
          w.required_offset = -1;
          committed_.push_back(w);
        }
      }
      for (const WaitingMarker& w : waiting_) {
        if (w.required_offset >= 0) return;
      }
    }
    ForceComplete();
  }

  void OnComplete() override {
    std::vector<WaitingMarker> committed;
    {
      absl::MutexLock lock(&mu_);
      for (WaitingMarker& w : waiting_) {
        if (w.required_offset >= 0) Set(w, ErrorCode::kRequestTimedOut);
      }
      committed.swap(committed_);
    }
    // The group coordinator sees the marker only once the ISR has it: offsets it makes
    // visible survive a failover.
    for (const WaitingMarker& w : committed) {
      if (w.tp.topic == kOffsetsTopic && context_.group_coordinator != nullptr) {
        context_.group_coordinator->OnTransactionCompleted(w.tp.partition, w.producer_id, w.commit);
      }
    }
    ApiResponse out;
    kafka::Writer writer(&out.body);
    absl::MutexLock lock(&mu_);
    kafka::WriteWriteTxnMarkersResponse(response_, version_, writer);
    CountErrors(response_, out.errors);
    respond_(std::optional<ApiResponse>(std::move(out)));
  }

 private:
  void Set(WaitingMarker& w, ErrorCode e) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    response_.markers[w.marker].topics[w.topic].partitions[w.partition].error_code = static_cast<int16_t>(e);
    w.required_offset = -1;
  }

  const KafkaApisContext& context_;
  absl::Mutex mu_;
  kafka::WriteTxnMarkersResponse response_ ABSL_GUARDED_BY(mu_);
  const int16_t version_;
  std::vector<WaitingMarker> waiting_ ABSL_GUARDED_BY(mu_);
  std::vector<WaitingMarker> committed_ ABSL_GUARDED_BY(mu_);
  ApiResponder respond_;
};

}  // namespace

void HandleWriteTxnMarkers(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  const int16_t version = request.header.api_version;
  kafka::Reader reader(request.body);
  auto r = kafka::ReadWriteTxnMarkersRequest(reader, version);
  if (!r.ok()) return respond(r.status());
  const bool authorized = AuthorizedOnCluster(request, security::AclOperation::kClusterAction);
  kafka::WriteTxnMarkersResponse response;
  std::vector<WaitingMarker> waiting;
  const int64_t now =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  for (size_t m = 0; m < r->markers.size(); ++m) {
    const auto& marker = r->markers[m];
    auto& rm = response.markers.emplace_back();
    rm.producer_id = marker.producer_id;
    for (size_t t = 0; t < marker.topics.size(); ++t) {
      auto& rt = rm.topics.emplace_back();
      rt.name = marker.topics[t].name;
      for (size_t p = 0; p < marker.topics[t].partition_indexes.size(); ++p) {
        const int32_t index = marker.topics[t].partition_indexes[p];
        auto& rp = rt.partitions.emplace_back();
        rp.partition_index = index;
        if (!authorized) {
          rp.error_code = static_cast<int16_t>(ErrorCode::kClusterAuthorizationFailed);
          continue;
        }
        storage::TopicPartition tp{rt.name, index};
        std::string batch = storage::BuildEndTxnMarkerBatch(
            marker.producer_id, marker.producer_epoch,
            storage::EndTxnMarker{marker.transaction_result ? storage::ControlRecordType::kCommit
                                                            : storage::ControlRecordType::kAbort,
                                  marker.coordinator_epoch},
            now);
        auto info = context.replicas.AppendRecords(tp, batch, storage::AppendOrigin::kCoordinator);
        if (!info.ok()) {
          rp.error_code = KafkaErrorOf(info.status());
          continue;
        }
        waiting.push_back({m, t, p, tp, info->last_offset + 1, marker.producer_id, marker.transaction_result});
      }
    }
  }
  std::vector<std::string> keys;
  for (const WaitingMarker& w : waiting) keys.push_back(w.tp.DirName());
  auto op = std::make_shared<DelayedTxnMarkers>(context, std::move(response), version, std::move(waiting),
                                                std::move(respond));
  request.purgatories.produce.TryCompleteElseWatch(op, std::move(keys));
}

}  // namespace strata::broker
