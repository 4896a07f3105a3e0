#pragma once
// DescribeConfigs (key 32) v0-v4; the broker serves v1-v4. Request: resources (type,
// name, the keys wanted: nullable, null for all), include_synonyms (v1+),
// include_documentation (v3+). Response: throttle time, per resource the error code and
// message (nullable), type, name and configs: name, value (nullable), read_only,
// is_default (v0 only), config_source (v1+), is_sensitive, synonyms (v1+: name, value,
// source), config_type and documentation (v3+). Flexible from v4.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/common_fields.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

// Config resource types (DescribeConfigs, AlterConfigs).
enum class ConfigResourceType : int8_t {
  kUnknown = 0,
  kTopic = 2,
  kBroker = 4,
  kBrokerLogger = 8,
};

struct DescribeConfigsRequest {
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;  // nullopt: all
  };
  std::vector<Resource> resources;
  bool include_synonyms = false;       // v1+
  bool include_documentation = false;  // v3+
};

struct DescribeConfigsResponse {
  struct Synonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;  // ConfigSource
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;    // v0 only
    int8_t config_source = -1;  // v1+, ConfigSource
    bool is_sensitive = false;
    std::vector<Synonym> synonyms;             // v1+
    int8_t config_type = 0;                    // v3+ (0: unknown)
    std::optional<std::string> documentation;  // v3+
  };
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
};

absl::StatusOr<DescribeConfigsRequest> ReadDescribeConfigsRequest(Reader& reader, int16_t version);
void WriteDescribeConfigsRequest(const DescribeConfigsRequest& request, int16_t version, Writer& writer);
void WriteDescribeConfigsResponse(const DescribeConfigsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeConfigsResponse> ReadDescribeConfigsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
