#pragma once
// KIP-853's voter changes on the Kafka wire, all flexible:
//   AddRaftVoter (key 80) v0-v1: cluster id, timeout, the voter (id, directory id,
//     listeners); v1 adds AckWhenCommitted (default true).
//   RemoveRaftVoter (key 81) v0: cluster id, the voter (id, directory id).
//   UpdateRaftVoter (key 82) v0: cluster id, the leader epoch the voter knows, the voter
//     (id, directory id, listeners) and its kraft.version range.
// Responses: throttle time and error code; AddRaftVoter and RemoveRaftVoter a nullable
// error message, UpdateRaftVoter the current leader as tagged field 0.
// (kafka-metadata-quorum add-controller | remove-controller, AdminClient.addRaftVoter /
// removeRaftVoter; UpdateRaftVoter is what a controller sends when its endpoints change.)
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/common_fields.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

using RaftVoterListener = Listener;

struct AddRaftVoterRequest {
  std::optional<std::string> cluster_id;
  int32_t timeout_ms = 0;
  int32_t voter_id = 0;
  std::string voter_directory_id;  // 16 bytes
  std::vector<RaftVoterListener> listeners;
  bool ack_when_committed = true;  // v1+
  bool operator==(const AddRaftVoterRequest&) const = default;
};

struct RemoveRaftVoterRequest {
  std::optional<std::string> cluster_id;
  int32_t voter_id = 0;
  std::string voter_directory_id;
  bool operator==(const RemoveRaftVoterRequest&) const = default;
};

struct UpdateRaftVoterRequest {
  std::optional<std::string> cluster_id;
  int32_t current_leader_epoch = -1;
  int32_t voter_id = 0;
  std::string voter_directory_id;
  std::vector<RaftVoterListener> listeners;
  int16_t min_supported_version = 0;  // KRaftVersionFeature
  int16_t max_supported_version = 0;
  bool operator==(const UpdateRaftVoterRequest&) const = default;
};

// AddRaftVoter's and RemoveRaftVoter's response.
struct RaftVoterResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  bool operator==(const RaftVoterResponse&) const = default;
};

struct UpdateRaftVoterResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  struct CurrentLeader {
    int32_t leader_id = -1;
    int32_t leader_epoch = -1;
    std::string host;
    int32_t port = 0;
    bool operator==(const CurrentLeader&) const = default;
  };
  std::optional<CurrentLeader> current_leader;  // tagged field 0
  bool operator==(const UpdateRaftVoterResponse&) const = default;
};

absl::StatusOr<AddRaftVoterRequest> ReadAddRaftVoterRequest(Reader& reader, int16_t version);
void WriteAddRaftVoterRequest(const AddRaftVoterRequest& request, int16_t version, Writer& writer);
absl::StatusOr<RemoveRaftVoterRequest> ReadRemoveRaftVoterRequest(Reader& reader, int16_t version);
void WriteRemoveRaftVoterRequest(const RemoveRaftVoterRequest& request, int16_t version, Writer& writer);
absl::StatusOr<UpdateRaftVoterRequest> ReadUpdateRaftVoterRequest(Reader& reader, int16_t version);
void WriteUpdateRaftVoterRequest(const UpdateRaftVoterRequest& request, int16_t version, Writer& writer);

// For AddRaftVoter (any version) and RemoveRaftVoter.
void WriteRaftVoterResponse(const RaftVoterResponse& response, int16_t version, Writer& writer);
absl::StatusOr<RaftVoterResponse> ReadRaftVoterResponse(Reader& reader, int16_t version);
void WriteUpdateRaftVoterResponse(const UpdateRaftVoterResponse& response, int16_t version, Writer& writer);
absl::StatusOr<UpdateRaftVoterResponse> ReadUpdateRaftVoterResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
