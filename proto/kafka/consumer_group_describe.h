#pragma once
// ConsumerGroupDescribe (key 69) v0-v1, flexible in every version: KIP-848 consumer
// groups as AdminClient.describeConsumerGroups and kafka-consumer-groups.sh show them.
// Request: group ids, whether to include the authorized operations. Response: throttle
// time, and per group: error code and message, group id, state (Empty, Assigning,
// Reconciling, Stable, Dead), group epoch, assignment epoch, assignor name, the members
// (member id, instance id, rack id, member epoch, client id and host, subscribed topic
// names and regex, current and target assignment as topic id, topic name and
// partitions, member type v1+: -1 unknown, 0 classic, 1 consumer) and the authorized
// operations (INT32_MIN: not asked).
// Not thread-safe (values and functions).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct ConsumerGroupDescribeRequest {
  std::vector<std::string> group_ids;
  bool include_authorized_operations = false;
  bool operator==(const ConsumerGroupDescribeRequest&) const = default;
};

struct ConsumerGroupDescribeResponse {
  struct TopicPartitions {
    std::string topic_id;  // 16 bytes
    std::string topic_name;
    std::vector<int32_t> partitions;
    bool operator==(const TopicPartitions&) const = default;
  };
  struct Member {
    std::string member_id;
    std::optional<std::string> instance_id;
    std::optional<std::string> rack_id;
    int32_t member_epoch = 0;
    std::string client_id;
    std::string client_host;
    std::vector<std::string> subscribed_topic_names;
    std::optional<std::string> subscribed_topic_regex;
    std::vector<TopicPartitions> assignment;
    std::vector<TopicPartitions> target_assignment;
    int8_t member_type = -1;  // v1+
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
  bool operator==(const ConsumerGroupDescribeResponse&) const = default;
};

absl::StatusOr<ConsumerGroupDescribeRequest> ReadConsumerGroupDescribeRequest(Reader& r, int16_t version);
void WriteConsumerGroupDescribeRequest(const ConsumerGroupDescribeRequest& req, int16_t version, Writer& w);
void WriteConsumerGroupDescribeResponse(const ConsumerGroupDescribeResponse& resp, int16_t version, Writer& w);
absl::StatusOr<ConsumerGroupDescribeResponse> ReadConsumerGroupDescribeResponse(Reader& r, int16_t version);

// A described member's Assignment struct (its TopicPartitions, then its tagged fields),
// shared with ShareGroupDescribe.
void WriteDescribedAssignment(const std::vector<ConsumerGroupDescribeResponse::TopicPartitions>& topics, Writer& w);
std::vector<ConsumerGroupDescribeResponse::TopicPartitions> ReadDescribedAssignment(Reader& r);

}  // namespace strata::proto::kafka
