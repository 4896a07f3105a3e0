#pragma once
// The broker's Kafka request dispatch: one handler per API, chosen by api key. So far
// ApiVersions (v0-v3, KIP-511 for newer versions); the other APIs arrive with issue 5
// and are advertised only once implemented. A request whose api key is unknown, or that
// ApiVersions does not advertise (an API not implemented yet, or a version outside its
// range), gets no response: the connection closes, as Kafka does for requests it
// cannot parse. (Clients only send what ApiVersions advertised.)
// Thread-safe (stateless so far).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/kafka/header.h"

namespace strata::broker {

absl::StatusOr<std::optional<std::string>> HandleKafkaRequest(const proto::kafka::RequestHeader& header,
                                                              absl::string_view body);

}  // namespace strata::broker
