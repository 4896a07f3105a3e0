#pragma once
// What the `strata groups` commands share (groups.cc: list, describe, delete;
// groups_reset.cc: reset-offsets): the brokers and a GroupClient over them, and the
// partitions and leaders of topics as the controllers describe them.
// Not thread-safe (one command on main's thread).

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "tools/cli/command.h"
#include "tools/cli/group_client.h"
#include "tools/cli/kafka_call.h"

namespace strata::cli {

// How long a group request waits out a coordinator that is not ready (group_client.h).
inline constexpr std::chrono::seconds kCoordinatorWait{15};

// Every broker's endpoint on the listener of --listener (the controllers'
// DescribeCluster): where the groups and transactions commands start.
absl::StatusOr<std::map<int32_t, Endpoint>> ListBrokers(const Context& ctx);

// Where a groups command starts: the brokers and a client for the groups' coordinators.
struct GroupsSession {
  std::map<int32_t, Endpoint> brokers;
  GroupClient client;
};
absl::StatusOr<GroupsSession> OpenGroupsSession(const Context& ctx);

// The partitions of some topics and their leaders (-1: none), from the controllers'
// DescribeTopics; a topic they refuse (an unknown one) is in `errors` with the reason.
struct TopicLeaders {
  std::map<TopicPartition, int32_t> leaders;
  std::map<std::string, std::string> errors;
};
absl::StatusOr<TopicLeaders> DescribeTopicLeaders(const Context& ctx, const std::set<std::string>& topics);

// reset-offsets: adds `groups reset-offsets` (groups_reset.cc).
void AddGroupsResetOffsetsCommand(CLI::App& groups, Commands& commands);

}  // namespace strata::cli
