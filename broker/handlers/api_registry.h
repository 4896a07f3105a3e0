#pragma once
// The registry of the Kafka APIs this broker serves: one entry per API (api key, the
// version range served, the handler). It is the only list: ApiVersions advertises exactly
// these ranges and KafkaApis dispatches exactly these, so what is advertised can never
// differ from what is served. A new API is one handler file and one line here.
// Thread-safe (a constant table).

#include <cstdint>
#include <vector>

#include "broker/handlers/request_context.h"
#include "proto/kafka/api.h"

namespace strata::broker {

struct ApiEntry {
  proto::kafka::ApiKey key;
  int16_t min_version;
  int16_t max_version;
  ApiHandler handle;
  // The handler also answers versions outside the range (ApiVersions, per KIP-511: a
  // too-new request is answered UNSUPPORTED_VERSION in v0 with the ranges).
  bool answers_every_version = false;

  bool Serves(int16_t version) const { return version >= min_version && version <= max_version; }
};

// Every API served, in api key order.
const std::vector<ApiEntry>& ApiRegistry();
// nullptr when the api key is not served.
const ApiEntry* FindApi(int16_t api_key);
// The registry's ranges, as ApiVersions answers them.
const std::vector<proto::kafka::ApiVersionRange>& AdvertisedApis();

}  // namespace strata::broker
