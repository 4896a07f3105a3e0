#pragma once
// KafkaApis: the broker's Kafka request dispatch, one handler per API chosen by api key
// (handlers in their own files: metadata_handler.h, ...). Implemented so far:
// ApiVersions v0-v3 (KIP-511 for newer versions) and Metadata v0-v12; the other APIs
// arrive with issue 5 and are advertised only once implemented. A request whose api
// key is unknown, or that ApiVersions does not advertise (an API not implemented yet,
// or a version outside its range), gets no response: the connection closes, as Kafka
// does for requests it cannot parse (clients only send what ApiVersions advertised).
// Thread-safe.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "broker/controller_client.h"
#include "controller/metadata_store.h"
#include "proto/kafka/header.h"

namespace strata::broker {

struct KafkaApisContext {
  int32_t broker_id = 0;
  std::string cluster_id;
  std::string listener_name = "PLAINTEXT";  // whose endpoints Metadata returns
  // The broker's metadata image; nullptr answers Metadata with no brokers and topics.
  const controller::MetadataStore* store = nullptr;
  // The way to the active controller, for the admin APIs (forwarded to its AdminService)
  // and producer-id blocks; nullptr answers those requests with COORDINATOR_NOT_AVAILABLE
  // / NOT_CONTROLLER per API (tests, fuzzing).
  ControllerClient* controller = nullptr;
};

class KafkaApis {
 public:
  explicit KafkaApis(KafkaApisContext context) : context_(std::move(context)) {}
  absl::StatusOr<std::optional<std::string>> Handle(const proto::kafka::RequestHeader& header,
                                                    absl::string_view body) const;

 private:
  const KafkaApisContext context_;
};

}  // namespace strata::broker
