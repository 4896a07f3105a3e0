#pragma once
// The group coordinator's APIs as the strata CLI calls them over the Kafka protocol, at
// versions the brokers serve: FindCoordinator v3, ListGroups v5, DescribeGroups v5,
// ConsumerGroupDescribe v1, OffsetFetch v7, OffsetCommit v8 and DeleteGroups v2. A group's requests go to its
// coordinator, found with FindCoordinator at the first broker that answers. The
// coordinator errors a client waits out (COORDINATOR_NOT_AVAILABLE while
// __consumer_offsets is created, COORDINATOR_LOAD_IN_PROGRESS while a coordinator loads
// it, NOT_COORDINATOR after a coordinator moved), and a coordinator that cannot be
// reached (a dead one keeps its partitions until its session times out), are retried,
// the coordinator found again, until `retry_for` has passed; then the last answer stands.
// Not thread-safe (one command on main's thread; it keeps one connection per broker).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "client/kafka_connection.h"
#include "proto/kafka/consumer_group_describe.h"
#include "proto/kafka/describe_groups.h"
#include "tools/cli/kafka_call.h"

namespace strata::cli {

struct Coordinator {
  int32_t node_id = -1;
  Endpoint endpoint;
};

struct ListedGroup {
  std::string group_id;
  std::string protocol_type;
  std::string state;
  std::string type;  // "classic" or "consumer" (KIP-848)
};

struct CommittedOffset {
  TopicPartition partition;
  int64_t offset = -1;  // -1: none committed
  int16_t error_code = 0;
};

struct OffsetToCommit {
  TopicPartition partition;
  int64_t offset = 0;
};

// A Kafka error code as an error status whose message is its name (and `message`).
absl::Status KafkaErrorStatus(int16_t error_code, const std::string& message = "");

class GroupClient {
 public:
  // brokers: every broker's endpoint on one listener (BrokerEndpoints), by broker id.
  GroupClient(std::map<int32_t, Endpoint> brokers, std::chrono::milliseconds retry_for);

  // The group's coordinator (asked once, then again only after it failed a request).
  absl::StatusOr<Coordinator> FindCoordinator(const std::string& group);
  // ListGroups at one broker: the groups it coordinates.
  absl::StatusOr<std::vector<ListedGroup>> ListGroups(int32_t broker);
  // DescribeGroups at the coordinator; a group error is an error status.
  absl::StatusOr<proto::kafka::DescribeGroupsResponse::Group> DescribeGroup(const std::string& group);
  // ConsumerGroupDescribe at the coordinator: nullopt when the group is not a KIP-848
  // consumer group (GROUP_ID_NOT_FOUND: DescribeGroups describes it); another group
  // error is an error status.
  absl::StatusOr<std::optional<proto::kafka::ConsumerGroupDescribeResponse::Group>> DescribeConsumerGroup(
      const std::string& group);
  // OffsetFetch of every topic (topics null); a group error is an error status.
  absl::StatusOr<std::vector<CommittedOffset>> FetchOffsets(const std::string& group);
  // DeleteGroups: the group's error code (0: deleted).
  absl::StatusOr<int16_t> DeleteGroup(const std::string& group);
  // OffsetCommit from outside the group (generation -1, empty member id), which the
  // coordinator takes only while the group has no members: per partition its error code.
  absl::StatusOr<std::vector<std::pair<TopicPartition, int16_t>>> CommitOffsets(
      const std::string& group, const std::vector<OffsetToCommit>& offsets);

 private:
  using Clock = std::chrono::steady_clock;
  absl::StatusOr<Coordinator> FindCoordinatorUntil(const std::string& group, Clock::time_point deadline);
  // The connection to `broker` at `endpoint`, opened on first use.
  absl::StatusOr<client::KafkaConnection*> ConnectionTo(int32_t broker, const Endpoint& endpoint);
  // Runs `call` at the group's coordinator; again while error_of(answer) is a coordinator
  // error to wait out and retry_for_ has not passed.
  template <typename Answer, typename Call, typename ErrorOf>
  absl::StatusOr<Answer> AtCoordinator(const std::string& group, Call call, ErrorOf error_of);

  const std::map<int32_t, Endpoint> brokers_;
  const std::chrono::milliseconds retry_for_;
  std::map<int32_t, std::unique_ptr<client::KafkaConnection>> connections_;
  std::map<std::string, Coordinator> coordinators_;  // by group
};

}  // namespace strata::cli
