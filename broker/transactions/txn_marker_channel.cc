#include "broker/transactions/txn_marker_channel.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/check.h"
#include "base/logging.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/write_txn_markers.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {
constexpr int16_t kWriteTxnMarkersVersion = 1;
}  // namespace

TxnMarkerChannel::TxnMarkerChannel(TxnMarkerChannelOptions options) : options_(std::move(options)) {
  ABSL_CHECK(options_.leader_of != nullptr);
  thread_ = std::thread([this] { Run(); });
}

TxnMarkerChannel::~TxnMarkerChannel() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void TxnMarkerChannel::Send(Markers markers, std::function<void()> done) {
  if (markers.partitions.empty()) return done();
  absl::MutexLock lock(&mu_);
  entries_[next_id_++] = Entry{std::move(markers), std::move(done)};
  woken_ = true;
}

size_t TxnMarkerChannel::pending() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

void TxnMarkerChannel::Run() {
  bool left = false;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || woken_; };
      // Something left: retried after the backoff; else wait for a Send.
      mu_.AwaitWithTimeout(absl::Condition(&ready),
                           left ? absl::FromChrono(options_.retry_backoff) : absl::Seconds(1));
      if (stopping_) return;
      woken_ = false;
    }
    left = SendRound();
  }
}

client::KafkaConnection* TxnMarkerChannel::ConnectionTo(const MarkerDestination& d) {
  auto it = connections_.find(d.broker_id);
  if (it != connections_.end() && it->second->name() == absl::StrCat(d.host, ":", d.port)) return it->second.get();
  auto connected = client::KafkaConnection::Connect(d.host, d.port, options_.request_timeout, options_.security);
  if (!connected.ok()) {
    spdlog::warn("transaction markers: cannot reach broker {} at {}:{}: {}", d.broker_id, d.host, d.port,
                 connected.status().message());
    connections_.erase(d.broker_id);
    return nullptr;
  }
  return (connections_[d.broker_id] = *std::move(connected)).get();
}

bool TxnMarkerChannel::SendRound() {
  // What to send, by leader: (entry id, partitions) per marker.
  struct Planned {
    MarkerDestination destination;
    kafka::WriteTxnMarkersRequest request;
    std::vector<uint64_t> entry_ids;  // one per request marker
  };
  std::map<int32_t, Planned> plan;
  std::vector<std::function<void()>> finished;
  {
    absl::MutexLock lock(&mu_);
    for (auto it = entries_.begin(); it != entries_.end();) {
      Entry& e = it->second;
      std::map<int32_t, std::map<std::string, std::vector<int32_t>>> by_leader;
      for (auto p = e.markers.partitions.begin(); p != e.markers.partitions.end();) {
        MarkerDestination d = options_.leader_of(*p);
        if (!d.topic_exists) {
          p = e.markers.partitions.erase(p);  // deleted: nothing to write
          continue;
        }
        if (d.broker_id >= 0) {
          by_leader[d.broker_id][p->topic].push_back(p->partition);
          plan[d.broker_id].destination = d;
        }
        ++p;
      }
      if (e.markers.partitions.empty()) {
        finished.push_back(std::move(e.done));
        it = entries_.erase(it);
        continue;
      }
      for (auto& [leader, topics] : by_leader) {
        kafka::WriteTxnMarkersRequest::Marker m;
        m.producer_id = e.markers.producer_id;
        m.producer_epoch = e.markers.producer_epoch;
        m.transaction_result = e.markers.commit;
        m.coordinator_epoch = e.markers.coordinator_epoch;
        for (auto& [topic, partitions] : topics) m.topics.push_back({topic, std::move(partitions)});
        plan[leader].request.markers.push_back(std::move(m));
        plan[leader].entry_ids.push_back(it->first);
      }
      ++it;
    }
  }
  for (auto& done : finished) done();
  finished.clear();
  for (auto& [leader, planned] : plan) {
    if (planned.request.markers.empty()) continue;
    client::KafkaConnection* connection = ConnectionTo(planned.destination);
    if (connection == nullptr) continue;
    std::string body;
    kafka::Writer w(&body);
    kafka::WriteWriteTxnMarkersRequest(planned.request, kWriteTxnMarkersVersion, w);
    auto response = connection->Call(static_cast<int16_t>(kafka::ApiKey::kWriteTxnMarkers), kWriteTxnMarkersVersion,
                                     body);
    absl::StatusOr<kafka::WriteTxnMarkersResponse> decoded =
        response.ok() ? [&] {
          kafka::Reader r(response->body());
          return kafka::ReadWriteTxnMarkersResponse(r, kWriteTxnMarkersVersion);
        }()
                      : absl::StatusOr<kafka::WriteTxnMarkersResponse>(response.status());
    if (!decoded.ok() || decoded->markers.size() != planned.request.markers.size()) {
      spdlog::warn("transaction markers: WriteTxnMarkers to broker {}: {}", leader,
                   decoded.ok() ? "an answer of another shape" : decoded.status().message());
      connections_.erase(leader);
      continue;
    }
    absl::MutexLock lock(&mu_);
    for (size_t i = 0; i < decoded->markers.size(); ++i) {
      auto it = entries_.find(planned.entry_ids[i]);
      if (it == entries_.end()) continue;
      Entry& e = it->second;
      bool fenced = false;
      for (const auto& topic : decoded->markers[i].topics) {
        for (const auto& p : topic.partitions) {
          auto code = static_cast<kafka::ErrorCode>(p.error_code);
          if (code == kafka::ErrorCode::kTransactionCoordinatorFenced) fenced = true;
          if (code == kafka::ErrorCode::kNone || code == kafka::ErrorCode::kInvalidProducerEpoch) {
            e.markers.partitions.erase({topic.name, p.partition_index});
          } else {
            spdlog::debug("transaction markers: {}-{} for {}: {}", topic.name, p.partition_index,
                          e.markers.transactional_id, kafka::ErrorName(code));
          }
        }
      }
      if (fenced) {
        spdlog::info("transaction markers of {} fenced by a newer coordinator", e.markers.transactional_id);
        e.markers.partitions.clear();
      }
      if (e.markers.partitions.empty()) {
        finished.push_back(std::move(e.done));
        entries_.erase(it);
      }
    }
  }
  for (auto& done : finished) done();
  absl::MutexLock lock(&mu_);
  return !entries_.empty();
}

}  // namespace strata::broker
