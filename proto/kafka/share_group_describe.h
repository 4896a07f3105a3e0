#pragma once
// ShareGroupDescribe (key 77) v1, flexible: KIP-932 share groups as
// AdminClient.describeShareGroups and kafka-share-groups.sh show them. The request is
// ConsumerGroupDescribe's (group ids, whether to include the authorized operations).
// Response: throttle time, and per group: error code and message, group id, state
// (Empty, Stable, Dead), group epoch, assignment epoch, assignor name, the members
// (member id, rack id, member epoch, client id and host, subscribed topic names, the
// assignment as topic id, topic name and partitions) and the authorized operations
// (INT32_MIN: not asked).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/consumer_group_describe.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

using ShareGroupDescribeRequest = ConsumerGroupDescribeRequest;

struct ShareGroupDescribeResponse {
  using TopicPartitions = ConsumerGroupDescribeResponse::TopicPartitions;
  struct Member {
    std::string member_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::vector<TopicPartitions> assignment;
    bool operator==(const Member&) const = default;
  };
  struct Group {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    std::string group_id;
    std::string group_state;
    int32_t group_epoch = 0;
    int32_t assignment_epoch = 0;
    std::string assignor_name;
    std::vector<Member> members;
    int32_t authorized_operations = INT32_MIN;
    bool operator==(const Group&) const = default;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Group> groups;
  bool operator==(const ShareGroupDescribeResponse&) const = default;
};

inline absl::StatusOr<ShareGroupDescribeRequest> ReadShareGroupDescribeRequest(Reader& r, int16_t /*version*/) {
  return ReadConsumerGroupDescribeRequest(r, /*version=*/0);
}
inline void WriteShareGroupDescribeRequest(const ShareGroupDescribeRequest& req, int16_t /*version*/, Writer& w) {
  WriteConsumerGroupDescribeRequest(req, /*version=*/0, w);
}
void WriteShareGroupDescribeResponse(const ShareGroupDescribeResponse& resp, int16_t version, Writer& w);
absl::StatusOr<ShareGroupDescribeResponse> ReadShareGroupDescribeResponse(Reader& r, int16_t version);

}  // namespace strata::proto::kafka
