#pragma once
// The client quota APIs (KIP-546), v0-v1 each, flexible from v1:
// DescribeClientQuotas (key 48): filter components (entity type, match type 0 exact /
// 1 default / 2 any named, match) and strict -> a top-level error, or the entries: each
// entity (type, name; a null name is the default) with its values (key, float64).
// AlterClientQuotas (key 49): entries (entity, ops: key, value, remove) and
// validate_only -> per entry an error code and the entity.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct QuotaEntityData {
  std::string entity_type;
  std::optional<std::string> entity_name;  // null: the default entity of the type
  bool operator==(const QuotaEntityData&) const = default;
};

struct DescribeClientQuotasRequest {
  struct Component {
    std::string entity_type;
    int8_t match_type = 0;
    std::optional<std::string> match;
    bool operator==(const Component&) const = default;
  };
  std::vector<Component> components;
  bool strict = false;
  bool operator==(const DescribeClientQuotasRequest&) const = default;
};

struct DescribeClientQuotasResponse {
  struct Value {
    std::string key;
    double value = 0;
    bool operator==(const Value&) const = default;
  };
  struct Entry {
    std::vector<QuotaEntityData> entity;
    std::vector<Value> values;
    bool operator==(const Entry&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::optional<std::vector<Entry>> entries;  // null with an error
  bool operator==(const DescribeClientQuotasResponse&) const = default;
};

struct AlterClientQuotasRequest {
  struct Op {
    std::string key;
    double value = 0;
    bool remove = false;
    bool operator==(const Op&) const = default;
  };
  struct Entry {
    std::vector<QuotaEntityData> entity;
    std::vector<Op> ops;
    bool operator==(const Entry&) const = default;
  };
  std::vector<Entry> entries;
  bool validate_only = false;
  bool operator==(const AlterClientQuotasRequest&) const = default;
};

struct AlterClientQuotasResponse {
  struct Entry {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<QuotaEntityData> entity;
    bool operator==(const Entry&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Entry> entries;
  bool operator==(const AlterClientQuotasResponse&) const = default;
};

absl::StatusOr<DescribeClientQuotasRequest> ReadDescribeClientQuotasRequest(Reader& reader, int16_t version);
void WriteDescribeClientQuotasRequest(const DescribeClientQuotasRequest& request, int16_t version, Writer& writer);
void WriteDescribeClientQuotasResponse(const DescribeClientQuotasResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeClientQuotasResponse> ReadDescribeClientQuotasResponse(Reader& reader, int16_t version);

absl::StatusOr<AlterClientQuotasRequest> ReadAlterClientQuotasRequest(Reader& reader, int16_t version);
void WriteAlterClientQuotasRequest(const AlterClientQuotasRequest& request, int16_t version, Writer& writer);
void WriteAlterClientQuotasResponse(const AlterClientQuotasResponse& response, int16_t version, Writer& writer);
absl::StatusOr<AlterClientQuotasResponse> ReadAlterClientQuotasResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
