#pragma once
// TxnMarkerChannel: the TxnMarkerSender over the network. One thread sends the markers
// of every transaction being completed: each round groups the partitions still without
// their marker by leader (as the metadata image names it), sends each leader one
// WriteTxnMarkers request over the inter-broker listener (this broker included, through
// its own listener) and drops what was written. A partition is retried every
// retry_backoff until its leader writes the marker, its topic is deleted, or the marker
// is fenced (TRANSACTION_COORDINATOR_FENCED: a newer coordinator took the id over;
// INVALID_PRODUCER_EPOCH: a newer marker of the producer is there). Kafka's
// TransactionMarkerChannelManager does the same.
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/transactions/transaction_coordinator.h"
#include "client/client_security.h"
#include "client/kafka_connection.h"

namespace strata::broker {

// Where a partition's marker goes: its leader's inter-broker endpoint.
struct MarkerDestination {
  bool topic_exists = true;  // false: deleted, nothing to write
  int32_t broker_id = -1;    // -1: no leader now
  std::string host;
  int port = 0;
};

struct TxnMarkerChannelOptions {
  std::function<MarkerDestination(const storage::TopicPartition&)> leader_of;  // required
  client::ClientSecurity security;  // the inter-broker listener's
  std::chrono::milliseconds request_timeout{30000};
  std::chrono::milliseconds retry_backoff{100};
};

class TxnMarkerChannel final : public TxnMarkerSender {
 public:
  explicit TxnMarkerChannel(TxnMarkerChannelOptions options);
  ~TxnMarkerChannel() override;  // stops the thread; what is unsent stays unsent

  void Send(Markers markers, std::function<void()> done) override;
  // Transactions whose markers are not all written.
  size_t pending() const;

 private:
  struct Entry {
    Markers markers;  // partitions: those still without their marker
    std::function<void()> done;
  };
  void Run();
  // One round: a request to each leader; returns whether anything is left.
  bool SendRound();
  client::KafkaConnection* ConnectionTo(const MarkerDestination& d);

  const TxnMarkerChannelOptions options_;
  mutable absl::Mutex mu_;
  std::map<uint64_t, Entry> entries_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // The sender thread's own.
  std::map<int32_t, std::unique_ptr<client::KafkaConnection>> connections_;
  std::thread thread_;
};

}  // namespace strata::broker
