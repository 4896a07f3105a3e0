#pragma once
// The admin APIs of share groups' offsets (KIP-932), flexible in every version, as
// kafka-share-groups.sh and the AdminClient send them to the group's coordinator:
//   DescribeShareGroupOffsets (90) v0-1  groups (id; topics by name and partitions, null
//       for all) -> per group, topics (name, id) and partitions: start offset, leader
//       epoch, lag (v1+), error; and the group's error
//   AlterShareGroupOffsets (91) v0       group; topics (name; partitions: index, start
//       offset) -> the group's error, per topic (name, id) its partitions' errors
//   DeleteShareGroupOffsets (92) v0      group; topic names -> the group's error, per topic
//       (name, id) an error
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct DescribeShareGroupOffsetsRequest {
  struct Topic {
    std::string topic_name;
    std::vector<int32_t> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Group {
    std::string group_id;
    std::optional<std::vector<Topic>> topics;  // null: every topic the group has state for
    bool operator==(const Group&) const = default;
  };
  std::vector<Group> groups;
  bool operator==(const DescribeShareGroupOffsetsRequest&) const = default;
};

struct DescribeShareGroupOffsetsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int64_t start_offset = -1;
    int32_t leader_epoch = -1;
    int64_t lag = -1;  // v1+
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic_name;
    std::string topic_id;  // 16 bytes
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Group {
    std::string group_id;
    std::vector<Topic> topics;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Group> groups;
  bool operator==(const DescribeShareGroupOffsetsResponse&) const = default;
};

struct AlterShareGroupOffsetsRequest {
  struct Partition {
    int32_t partition_index = 0;
    int64_t start_offset = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string topic_name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  std::string group_id;
  std::vector<Topic> topics;
  bool operator==(const AlterShareGroupOffsetsRequest&) const = default;
};

// A topic's result in Alter and Delete: its name and id, and either per-partition errors
// (Alter) or its own (Delete).
struct ShareGroupOffsetsTopicResult {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    bool operator==(const Partition&) const = default;
  };
  std::string topic_name;
  std::string topic_id;  // 16 bytes
  std::vector<Partition> partitions;  // Alter
  int16_t error_code = 0;             // Delete
  std::optional<std::string> error_message;  // Delete
  bool operator==(const ShareGroupOffsetsTopicResult&) const = default;
};

struct ShareGroupOffsetsResponse {  // Alter's and Delete's
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<ShareGroupOffsetsTopicResult> responses;
  bool operator==(const ShareGroupOffsetsResponse&) const = default;
};

struct DeleteShareGroupOffsetsRequest {
  std::string group_id;
  std::vector<std::string> topic_names;
  bool operator==(const DeleteShareGroupOffsetsRequest&) const = default;
};

absl::StatusOr<DescribeShareGroupOffsetsRequest> ReadDescribeShareGroupOffsetsRequest(Reader& r, int16_t version);
void WriteDescribeShareGroupOffsetsRequest(const DescribeShareGroupOffsetsRequest& req, int16_t version, Writer& w);
void WriteDescribeShareGroupOffsetsResponse(const DescribeShareGroupOffsetsResponse& resp, int16_t version, Writer& w);
absl::StatusOr<DescribeShareGroupOffsetsResponse> ReadDescribeShareGroupOffsetsResponse(Reader& r, int16_t version);

absl::StatusOr<AlterShareGroupOffsetsRequest> ReadAlterShareGroupOffsetsRequest(Reader& r, int16_t version);
void WriteAlterShareGroupOffsetsRequest(const AlterShareGroupOffsetsRequest& req, int16_t version, Writer& w);
void WriteAlterShareGroupOffsetsResponse(const ShareGroupOffsetsResponse& resp, int16_t version, Writer& w);
absl::StatusOr<ShareGroupOffsetsResponse> ReadAlterShareGroupOffsetsResponse(Reader& r, int16_t version);

absl::StatusOr<DeleteShareGroupOffsetsRequest> ReadDeleteShareGroupOffsetsRequest(Reader& r, int16_t version);
void WriteDeleteShareGroupOffsetsRequest(const DeleteShareGroupOffsetsRequest& req, int16_t version, Writer& w);
void WriteDeleteShareGroupOffsetsResponse(const ShareGroupOffsetsResponse& resp, int16_t version, Writer& w);
absl::StatusOr<ShareGroupOffsetsResponse> ReadDeleteShareGroupOffsetsResponse(Reader& r, int16_t version);

}  // namespace strata::proto::kafka
