#pragma once
// The ACL APIs (KIP-140; KIP-290 added pattern types in v1), v0-v3 each, flexible from v2
// (v3 admits the USER resource type, no change on the wire):
// DescribeAcls (key 29): one filter -> the matching bindings, grouped by resource.
// CreateAcls (key 30): bindings -> an error code each.
// DeleteAcls (key 31): filters -> per filter, the bindings it matched and deleted.
// v0 has no pattern type: LITERAL (3) is implied. Codes are Kafka's (security/acl.h).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

inline constexpr int8_t kLiteralPattern = 3;

struct AclFilterFields {
  int8_t resource_type = 1;  // ANY
  std::optional<std::string> resource_name;
  int8_t pattern_type = kLiteralPattern;
  std::optional<std::string> principal;
  std::optional<std::string> host;
  int8_t operation = 1;
  int8_t permission_type = 1;
  bool operator==(const AclFilterFields&) const = default;
};

struct AclCreation {
  int8_t resource_type = 0;
  std::string resource_name;
  int8_t pattern_type = kLiteralPattern;
  std::string principal;
  std::string host;
  int8_t operation = 0;
  int8_t permission_type = 0;
  bool operator==(const AclCreation&) const = default;
};

using DescribeAclsRequest = AclFilterFields;

struct DescribeAclsResponse {
  struct Acl {
    std::string principal;
    std::string host;
    int8_t operation = 0;
    int8_t permission_type = 0;
    bool operator==(const Acl&) const = default;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    int8_t pattern_type = kLiteralPattern;
    std::vector<Acl> acls;
    bool operator==(const Resource&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Resource> resources;
  bool operator==(const DescribeAclsResponse&) const = default;
};

struct CreateAclsRequest {
  std::vector<AclCreation> creations;
  bool operator==(const CreateAclsRequest&) const = default;
};

struct CreateAclsResponse {
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const CreateAclsResponse&) const = default;
};

struct DeleteAclsRequest {
  std::vector<AclFilterFields> filters;
  bool operator==(const DeleteAclsRequest&) const = default;
};

struct DeleteAclsResponse {
  struct Matching {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    AclCreation acl;  // the binding deleted
    bool operator==(const Matching&) const = default;
  };
  struct FilterResult {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<Matching> matching_acls;
    bool operator==(const FilterResult&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<FilterResult> filter_results;
  bool operator==(const DeleteAclsResponse&) const = default;
};

absl::StatusOr<DescribeAclsRequest> ReadDescribeAclsRequest(Reader& reader, int16_t version);
void WriteDescribeAclsRequest(const DescribeAclsRequest& request, int16_t version, Writer& writer);
void WriteDescribeAclsResponse(const DescribeAclsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DescribeAclsResponse> ReadDescribeAclsResponse(Reader& reader, int16_t version);

absl::StatusOr<CreateAclsRequest> ReadCreateAclsRequest(Reader& reader, int16_t version);
void WriteCreateAclsRequest(const CreateAclsRequest& request, int16_t version, Writer& writer);
void WriteCreateAclsResponse(const CreateAclsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<CreateAclsResponse> ReadCreateAclsResponse(Reader& reader, int16_t version);

absl::StatusOr<DeleteAclsRequest> ReadDeleteAclsRequest(Reader& reader, int16_t version);
void WriteDeleteAclsRequest(const DeleteAclsRequest& request, int16_t version, Writer& writer);
void WriteDeleteAclsResponse(const DeleteAclsResponse& response, int16_t version, Writer& writer);
absl::StatusOr<DeleteAclsResponse> ReadDeleteAclsResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
