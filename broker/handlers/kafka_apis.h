#pragma once
// KafkaApis: the broker's Kafka request dispatch for one listener. A request goes to its
// API's entry in the registry (api_registry.h) when the registry serves its version;
// a request whose api key is not there, or whose version is outside the range served,
// gets no response: the connection closes, as Kafka does for requests it cannot parse
// (clients only send what ApiVersions advertised). ApiVersions itself answers every
// version (KIP-511). KafkaApis owns the fetch, produce and delete-records purgatories
// and wakes them when a partition's high watermark (or a replica's log start) moves.
// Thread-safe.

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "broker/network/api_response.h"
#include "broker/replication/purgatory.h"
#include "broker/handlers/request_context.h"
#include "proto/kafka/header.h"
#include "storage/file_names.h"

namespace strata::broker {

class KafkaApis {
 public:
  explicit KafkaApis(KafkaApisContext context);
  ~KafkaApis();  // answers the requests still waiting

  // Answers one request through respond (at once, or later for a request that waits).
  void Handle(const proto::kafka::RequestHeader& header, absl::string_view body, ApiResponder respond);
  // The same, waiting for the answer (tests).
  absl::StatusOr<std::optional<ApiResponse>> HandleAndWait(const proto::kafka::RequestHeader& header,
                                                             absl::string_view body);
  // A partition's high watermark or a replica's log start moved, or its leadership
  // changed: wakes the fetches, acks=all produces and DeleteRecords waiting on it.
  void OnHighWatermark(const storage::TopicPartition& tp);
  // acks=all produces waiting for the high watermark (tests, metrics).
  size_t produces_waiting() const { return produce_purgatory_->waiting(); }
  // Fetches waiting for fetch.min.bytes or their max wait (tests, metrics).
  size_t fetches_waiting() const { return fetch_purgatory_->waiting(); }

 private:
  const KafkaApisContext context_;
  std::unique_ptr<Purgatory> fetch_purgatory_;
  std::unique_ptr<Purgatory> produce_purgatory_;
  std::unique_ptr<Purgatory> delete_records_purgatory_;
  Purgatories purgatories_;
};

}  // namespace strata::broker
