#pragma once
// ShareFetch (key 78) and ShareAcknowledge (key 79), v1-v2, flexible: a KIP-932 share
// consumer acquires records of the partitions its share group assigned it, and
// acknowledges them (on the next ShareFetch or alone), within a share session (epoch 0
// opens one, -1 closes it, otherwise the next number).
//
// ShareFetch request: group id, member id, session epoch, max wait, min bytes, max bytes,
// max records, batch size (v1+), acquire mode and is-renew-ack (v2+), topics (topic id;
// partitions: index and acknowledgement batches), forgotten topics. Response: throttle
// time, error code and message, acquisition lock timeout, per partition: error,
// acknowledge error, current leader, the record batches (whole batches: the consumer
// keeps only the offsets it acquired) and the acquired records (first and last offset,
// delivery count); node endpoints for leaders that moved.
// ShareAcknowledge request: group id, member id, session epoch, is-renew-ack (v2+),
// topics with acknowledgement batches. Response: throttle time, error, acquisition lock
// timeout (v2+), per partition an error and the current leader; node endpoints.
//
// Acknowledgement batches: first and last offset (inclusive) and acknowledge types, one
// for the whole range or one per offset (0 gap, 1 accept, 2 release, 3 reject, 4 renew).
// A response's records can be written without copying them (records_splice, as Fetch).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct AcknowledgementBatch {
  int64_t first_offset = 0;
  int64_t last_offset = 0;
  std::vector<int8_t> acknowledge_types;
  bool operator==(const AcknowledgementBatch&) const = default;
};

struct SharePartitionAcknowledgements {
  int32_t partition_index = 0;
  std::vector<AcknowledgementBatch> acknowledgement_batches;
  bool operator==(const SharePartitionAcknowledgements&) const = default;
};

struct ShareTopicAcknowledgements {
  std::string topic_id;  // 16 bytes
  std::vector<SharePartitionAcknowledgements> partitions;
  bool operator==(const ShareTopicAcknowledgements&) const = default;
};

struct ShareLeaderIdAndEpoch {
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
  bool operator==(const ShareLeaderIdAndEpoch&) const = default;
};

struct ShareNodeEndpoint {
  int32_t node_id = 0;
  std::string host;
  int32_t port = 0;
  std::optional<std::string> rack;
  bool operator==(const ShareNodeEndpoint&) const = default;
};

struct ShareFetchRequest {
  struct ForgottenTopic {
    std::string topic_id;
    std::vector<int32_t> partitions;
    bool operator==(const ForgottenTopic&) const = default;
  };
  std::optional<std::string> group_id;
  std::optional<std::string> member_id;
  int32_t share_session_epoch = 0;
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff;
  int32_t max_records = 0;
  int32_t batch_size = 0;
  int8_t share_acquire_mode = 0;  // v2+: 0 batch-optimized, 1 record-limit
  bool is_renew_ack = false;      // v2+
  std::vector<ShareTopicAcknowledgements> topics;  // the partitions to fetch, with acknowledgements
  std::vector<ForgottenTopic> forgotten_topics;
  bool operator==(const ShareFetchRequest&) const = default;
};

struct ShareFetchResponse {
  struct AcquiredRecords {
    int64_t first_offset = 0;
    int64_t last_offset = 0;
    int16_t delivery_count = 0;
    bool operator==(const AcquiredRecords&) const = default;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int16_t acknowledge_error_code = 0;
    std::optional<std::string> acknowledge_error_message;
    ShareLeaderIdAndEpoch current_leader;
    std::optional<std::string> records;
    // As FetchResponse's: when >= 0 the writer writes records_splice_sizes' total length
    // and one Splice per size (ids records_splice, +1, ...) instead of `records`.
    int32_t records_splice = -1;
    std::vector<uint64_t> records_splice_sizes;
    std::vector<AcquiredRecords> acquired_records;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic_id;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int32_t acquisition_lock_timeout_ms = 0;
  std::vector<Topic> responses;
  std::vector<ShareNodeEndpoint> node_endpoints;
  bool operator==(const ShareFetchResponse&) const = default;
};

struct ShareAcknowledgeRequest {
  std::optional<std::string> group_id;
  std::optional<std::string> member_id;
  int32_t share_session_epoch = 0;
  bool is_renew_ack = false;  // v2+
  std::vector<ShareTopicAcknowledgements> topics;
  bool operator==(const ShareAcknowledgeRequest&) const = default;
};

struct ShareAcknowledgeResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    ShareLeaderIdAndEpoch current_leader;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic_id;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int32_t acquisition_lock_timeout_ms = 0;  // v2+
  std::vector<Topic> responses;
  std::vector<ShareNodeEndpoint> node_endpoints;
  bool operator==(const ShareAcknowledgeResponse&) const = default;
};

absl::StatusOr<ShareFetchRequest> ReadShareFetchRequest(Reader& r, int16_t version);
void WriteShareFetchRequest(const ShareFetchRequest& req, int16_t version, Writer& w);
// REQUIRES: a writer made with a splice list when a partition has records_splice >= 0.
void WriteShareFetchResponse(const ShareFetchResponse& resp, int16_t version, Writer& w);
absl::StatusOr<ShareFetchResponse> ReadShareFetchResponse(Reader& r, int16_t version);

absl::StatusOr<ShareAcknowledgeRequest> ReadShareAcknowledgeRequest(Reader& r, int16_t version);
void WriteShareAcknowledgeRequest(const ShareAcknowledgeRequest& req, int16_t version, Writer& w);
void WriteShareAcknowledgeResponse(const ShareAcknowledgeResponse& resp, int16_t version, Writer& w);
absl::StatusOr<ShareAcknowledgeResponse> ReadShareAcknowledgeResponse(Reader& r, int16_t version);

}  // namespace strata::proto::kafka
