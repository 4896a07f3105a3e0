#pragma once
// The SCRAM credentials APIs (KIP-554), v0 each, both flexible:
// DescribeUserScramCredentials (key 50): the users asked (null: all) -> per user its
// mechanisms and iterations (never a key).
// AlterUserScramCredentials (key 51): deletions (user, mechanism) and upsertions (user,
// mechanism, iterations, salt, salted password — computed by the client; the password
// never travels) -> per user an error code.
// Mechanisms are Kafka's numbers: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512.
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DescribeUserScramCredentialsRequest {
  std::optional<std::vector<std::string>> users;  // null: every user
  bool operator==(const DescribeUserScramCredentialsRequest&) const = default;
};

struct DescribeUserScramCredentialsResponse {
  struct CredentialInfo {
    int8_t mechanism = 0;
    int32_t iterations = 0;
    bool operator==(const CredentialInfo&) const = default;
  };
  struct Result {
    std::string user;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::vector<CredentialInfo> credential_infos;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Result> results;
  bool operator==(const DescribeUserScramCredentialsResponse&) const = default;
};

struct AlterUserScramCredentialsRequest {
  struct Deletion {
    std::string name;
    int8_t mechanism = 0;
    bool operator==(const Deletion&) const = default;
  };
  struct Upsertion {
    std::string name;
    int8_t mechanism = 0;
    int32_t iterations = 0;
    std::string salt;
    std::string salted_password;
    bool operator==(const Upsertion&) const = default;
  };
  std::vector<Deletion> deletions;
  std::vector<Upsertion> upsertions;
  bool operator==(const AlterUserScramCredentialsRequest&) const = default;
};

struct AlterUserScramCredentialsResponse {
  struct Result {
    std::string user;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Result&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
  bool operator==(const AlterUserScramCredentialsResponse&) const = default;
};

absl::StatusOr<DescribeUserScramCredentialsRequest> ReadDescribeUserScramCredentialsRequest(Reader& reader,
                                                                                            int16_t version);
void WriteDescribeUserScramCredentialsRequest(const DescribeUserScramCredentialsRequest& request, int16_t version,
                                              Writer& writer);
void WriteDescribeUserScramCredentialsResponse(const DescribeUserScramCredentialsResponse& response, int16_t version,
                                               Writer& writer);
absl::StatusOr<DescribeUserScramCredentialsResponse> ReadDescribeUserScramCredentialsResponse(Reader& reader,
                                                                                              int16_t version);

absl::StatusOr<AlterUserScramCredentialsRequest> ReadAlterUserScramCredentialsRequest(Reader& reader,
                                                                                      int16_t version);
void WriteAlterUserScramCredentialsRequest(const AlterUserScramCredentialsRequest& request, int16_t version,
                                           Writer& writer);
void WriteAlterUserScramCredentialsResponse(const AlterUserScramCredentialsResponse& response, int16_t version,
                                            Writer& writer);
absl::StatusOr<AlterUserScramCredentialsResponse> ReadAlterUserScramCredentialsResponse(Reader& reader,
                                                                                        int16_t version);

}  // namespace strata::proto::kafka
