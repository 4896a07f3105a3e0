#pragma once
// CreateTopics (key 19) v0-v7; the broker serves v2-v7. Request: topics, each with a
// name, a partition count and replication factor (-1: the broker's default, or with a
// manual assignment), a manual assignment (partition -> brokers) and configs (values
// nullable); timeout_ms; validate_only (v1+). Response: throttle time (v2+), per topic
// the name, topic id (v7+), error code and message (v1+, nullable), and from v5 the
// created topic's partition count, replication factor and configs (nullable array), plus
// the tagged field topic_config_error_code (tag 0). Flexible from v5.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/common_fields.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct CreateTopicsRequest {
  struct Assignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
  };
  struct Topic {
    std::string name;
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::vector<Assignment> assignments;
    std::vector<Config> configs;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+
};

struct CreateTopicsResponse {
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    int8_t config_source = -1;  // ConfigSource
    bool is_sensitive = false;
  };
  struct Topic {
    std::string name;
    std::string topic_id = std::string(16, '\0');  // v7+
    int16_t error_code = 0;
    std::optional<std::string> error_message;       // v1+
    std::optional<int16_t> topic_config_error_code;  // v5+, tagged (tag 0); nullopt: absent
    int32_t num_partitions = -1;                     // v5+
    int16_t replication_factor = -1;                 // v5+
    std::optional<std::vector<Config>> configs = std::vector<Config>{};  // v5+
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
};

absl::StatusOr<CreateTopicsRequest> ReadCreateTopicsRequest(Reader& reader, int16_t version);
void WriteCreateTopicsRequest(const CreateTopicsRequest& request, int16_t version, Writer& writer);
void WriteCreateTopicsResponse(const CreateTopicsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<CreateTopicsResponse> ReadCreateTopicsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
