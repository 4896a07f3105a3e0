#include "tools/cli/group_client.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_cat.h"
#include "proto/kafka/delete_groups.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/find_coordinator.h"
#include "proto/kafka/list_groups.h"
#include "proto/kafka/offset_commit.h"
#include "proto/kafka/offset_fetch.h"

namespace strata::cli {

namespace kafka = proto::kafka;

namespace {

constexpr int16_t kFindCoordinatorVersion = 3;  // one key, flexible
constexpr int16_t kListGroupsVersion = 5;       // with the groups' states and types
constexpr int16_t kDescribeGroupsVersion = 5;
constexpr int16_t kConsumerGroupDescribeVersion = 1;
constexpr int16_t kOffsetFetchVersion = 7;      // one group; topics null for all
constexpr int16_t kOffsetCommitVersion = 8;
constexpr int16_t kDeleteGroupsVersion = 2;

bool WaitOut(int16_t error_code) {
  switch (static_cast<kafka::ErrorCode>(error_code)) {
    case kafka::ErrorCode::kCoordinatorNotAvailable:
    case kafka::ErrorCode::kCoordinatorLoadInProgress:
    case kafka::ErrorCode::kNotCoordinator:
      return true;
    default:
      return false;
  }
}

// Sleeps before the next attempt (100 ms, doubling to 1 s); false once `deadline` has passed.
bool Backoff(std::chrono::steady_clock::time_point deadline, std::chrono::milliseconds& delay) {
  using Clock = std::chrono::steady_clock;
  if (Clock::now() >= deadline) return false;
  std::this_thread::sleep_for(std::min<Clock::duration>(delay, deadline - Clock::now()));
  delay = std::min(delay * 2, std::chrono::milliseconds(1000));
  return true;
}

}  // namespace

absl::Status KafkaErrorStatus(int16_t error_code, const std::string& message) {
  return absl::UnavailableError(
      absl::StrCat(kafka::ErrorName(static_cast<kafka::ErrorCode>(error_code)), message.empty() ? "" : ": ", message));
}

GroupClient::GroupClient(std::map<int32_t, Endpoint> brokers, std::chrono::milliseconds retry_for)
    : brokers_(std::move(brokers)), retry_for_(retry_for) {}

absl::StatusOr<client::KafkaConnection*> GroupClient::ConnectionTo(int32_t broker, const Endpoint& endpoint) {
  auto it = connections_.find(broker);
  if (it != connections_.end()) return it->second.get();
  auto connection = ConnectBroker(endpoint);
  if (!connection.ok()) return connection.status();
  return connections_.emplace(broker, std::move(*connection)).first->second.get();
}

absl::StatusOr<Coordinator> GroupClient::FindCoordinator(const std::string& group) {
  return FindCoordinatorUntil(group, Clock::now() + retry_for_);
}

absl::StatusOr<Coordinator> GroupClient::FindCoordinatorUntil(const std::string& group, Clock::time_point deadline) {
  if (auto known = coordinators_.find(group); known != coordinators_.end()) return known->second;
  if (brokers_.empty()) return absl::UnavailableError(absl::StrCat("the cluster has no broker with a ", BrokerSecurity().protocol, " endpoint"));
  std::chrono::milliseconds delay(100);
  kafka::FindCoordinatorRequest request;
  request.key = group;
  request.key_type = kafka::kCoordinatorKeyTypeGroup;
  while (true) {
    absl::Status last = absl::UnavailableError("no broker answered FindCoordinator");
    for (const auto& [id, endpoint] : brokers_) {
      auto connection = ConnectionTo(id, endpoint);
      if (!connection.ok()) {
        last = connection.status();
        continue;
      }
      auto r = KafkaCall(**connection, kafka::ApiKey::kFindCoordinator, kFindCoordinatorVersion, request,
                         &kafka::WriteFindCoordinatorRequest, &kafka::ReadFindCoordinatorResponse);
      if (!r.ok()) {
        connections_.erase(id);
        last = r.status();
        continue;
      }
      if (r->error_code == 0) return coordinators_[group] = Coordinator{r->node_id, {r->host, r->port}};
      last = KafkaErrorStatus(r->error_code, r->error_message.value_or(""));
      if (!WaitOut(r->error_code)) return last;
      break;  // the coordinator is not there yet: ask again after a while
    }
    if (!Backoff(deadline, delay)) return last;
  }
}

template <typename Answer, typename Call, typename ErrorOf>
absl::StatusOr<Answer> GroupClient::AtCoordinator(const std::string& group, Call call, ErrorOf error_of) {
  const Clock::time_point deadline = Clock::now() + retry_for_;
  std::chrono::milliseconds delay(100);
  while (true) {
    auto coordinator = FindCoordinatorUntil(group, deadline);
    if (!coordinator.ok()) return coordinator.status();
    // A coordinator that cannot be reached may be one that died: its partitions of
    // __consumer_offsets move once its session times out, so it is asked for again.
    auto connection = ConnectionTo(coordinator->node_id, coordinator->endpoint);
    if (!connection.ok()) {
      coordinators_.erase(group);
      if (!Backoff(deadline, delay)) return connection.status();
      continue;
    }
    absl::StatusOr<Answer> answer = call(**connection);
    if (!answer.ok()) {
      connections_.erase(coordinator->node_id);
      coordinators_.erase(group);
      // A connection closed under the request (UNAVAILABLE), as by a dying broker, is retried.
      if (absl::IsUnavailable(answer.status()) && Backoff(deadline, delay)) continue;
      return answer.status();
    }
    if (!WaitOut(error_of(*answer))) return answer;
    coordinators_.erase(group);
    if (!Backoff(deadline, delay)) return answer;
  }
}

absl::StatusOr<std::vector<ListedGroup>> GroupClient::ListGroups(int32_t broker) {
  auto endpoint = brokers_.find(broker);
  if (endpoint == brokers_.end()) return absl::NotFoundError(absl::StrCat("broker ", broker, " has no ", BrokerSecurity().protocol, " endpoint"));
  const Clock::time_point deadline = Clock::now() + retry_for_;
  std::chrono::milliseconds delay(100);
  while (true) {
    auto connection = ConnectionTo(broker, endpoint->second);
    if (!connection.ok()) return connection.status();
    auto r = KafkaCall(**connection, kafka::ApiKey::kListGroups, kListGroupsVersion, kafka::ListGroupsRequest{},
                       &kafka::WriteListGroupsRequest, &kafka::ReadListGroupsResponse);
    if (!r.ok()) {
      connections_.erase(broker);
      return r.status();
    }
    if (r->error_code == 0) {
      std::vector<ListedGroup> out;
      for (const auto& g : r->groups) out.push_back({g.group_id, g.protocol_type, g.group_state, g.group_type});
      return out;
    }
    if (!WaitOut(r->error_code) || !Backoff(deadline, delay)) return KafkaErrorStatus(r->error_code);
  }
}

absl::StatusOr<kafka::DescribeGroupsResponse::Group> GroupClient::DescribeGroup(const std::string& group) {
  kafka::DescribeGroupsRequest request;
  request.groups = {group};
  auto r = AtCoordinator<kafka::DescribeGroupsResponse>(
      group,
      [&](client::KafkaConnection& c) {
        return KafkaCall(c, kafka::ApiKey::kDescribeGroups, kDescribeGroupsVersion, request,
                         &kafka::WriteDescribeGroupsRequest, &kafka::ReadDescribeGroupsResponse);
      },
      [](const kafka::DescribeGroupsResponse& a) -> int16_t { return a.groups.empty() ? 0 : a.groups[0].error_code; });
  if (!r.ok()) return r.status();
  if (r->groups.size() != 1 || r->groups[0].group_id != group) {
    return absl::DataLossError(absl::StrCat("DescribeGroups answered ", r->groups.size(), " groups for one"));
  }
  if (r->groups[0].error_code != 0) return KafkaErrorStatus(r->groups[0].error_code);
  return std::move(r->groups[0]);
}

absl::StatusOr<std::optional<kafka::ConsumerGroupDescribeResponse::Group>> GroupClient::DescribeConsumerGroup(
    const std::string& group) {
  kafka::ConsumerGroupDescribeRequest request;
  request.group_ids = {group};
  auto r = AtCoordinator<kafka::ConsumerGroupDescribeResponse>(
      group,
      [&](client::KafkaConnection& c) {
        return KafkaCall(c, kafka::ApiKey::kConsumerGroupDescribe, kConsumerGroupDescribeVersion, request,
                         &kafka::WriteConsumerGroupDescribeRequest, &kafka::ReadConsumerGroupDescribeResponse);
      },
      [](const kafka::ConsumerGroupDescribeResponse& a) -> int16_t {
        return a.groups.empty() ? 0 : a.groups[0].error_code;
      });
  if (!r.ok()) return r.status();
  if (r->groups.size() != 1 || r->groups[0].group_id != group) {
    return absl::DataLossError(absl::StrCat("ConsumerGroupDescribe answered ", r->groups.size(), " groups for one"));
  }
  const int16_t error = r->groups[0].error_code;
  if (error == static_cast<int16_t>(kafka::ErrorCode::kGroupIdNotFound)) return std::nullopt;
  if (error != 0) return KafkaErrorStatus(error, r->groups[0].error_message.value_or(""));
  return std::move(r->groups[0]);
}

absl::StatusOr<std::vector<CommittedOffset>> GroupClient::FetchOffsets(const std::string& group) {
  kafka::OffsetFetchRequest request;
  request.group_id = group;
  request.topics = std::nullopt;  // every committed partition
  auto r = AtCoordinator<kafka::OffsetFetchResponse>(
      group,
      [&](client::KafkaConnection& c) {
        return KafkaCall(c, kafka::ApiKey::kOffsetFetch, kOffsetFetchVersion, request, &kafka::WriteOffsetFetchRequest,
                         &kafka::ReadOffsetFetchResponse);
      },
      [](const kafka::OffsetFetchResponse& a) { return a.error_code; });
  if (!r.ok()) return r.status();
  if (r->error_code != 0) return KafkaErrorStatus(r->error_code);
  std::vector<CommittedOffset> out;
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) out.push_back({{t.name, p.partition_index}, p.committed_offset, p.error_code});
  }
  return out;
}

absl::StatusOr<int16_t> GroupClient::DeleteGroup(const std::string& group) {
  kafka::DeleteGroupsRequest request;
  request.groups_names = {group};
  auto error_of = [](const kafka::DeleteGroupsResponse& a) -> int16_t {
    return a.results.empty() ? 0 : a.results[0].error_code;
  };
  auto r = AtCoordinator<kafka::DeleteGroupsResponse>(
      group,
      [&](client::KafkaConnection& c) {
        return KafkaCall(c, kafka::ApiKey::kDeleteGroups, kDeleteGroupsVersion, request,
                         &kafka::WriteDeleteGroupsRequest, &kafka::ReadDeleteGroupsResponse);
      },
      error_of);
  if (!r.ok()) return r.status();
  if (r->results.size() != 1 || r->results[0].group_id != group) {
    return absl::DataLossError(absl::StrCat("DeleteGroups answered ", r->results.size(), " results for one group"));
  }
  return error_of(*r);
}

absl::StatusOr<std::vector<std::pair<TopicPartition, int16_t>>> GroupClient::CommitOffsets(
    const std::string& group, const std::vector<OffsetToCommit>& offsets) {
  kafka::OffsetCommitRequest request;
  request.group_id = group;
  request.generation_id_or_member_epoch = -1;
  request.member_id = "";
  for (const OffsetToCommit& o : offsets) {
    auto topic = std::find_if(request.topics.begin(), request.topics.end(),
                              [&](const auto& t) { return t.name == o.partition.topic; });
    if (topic == request.topics.end()) topic = request.topics.insert(topic, {o.partition.topic, {}});
    kafka::OffsetCommitRequest::Partition p;
    p.partition_index = o.partition.partition;
    p.committed_offset = o.offset;
    topic->partitions.push_back(p);
  }
  auto r = AtCoordinator<kafka::OffsetCommitResponse>(
      group,
      [&](client::KafkaConnection& c) {
        return KafkaCall(c, kafka::ApiKey::kOffsetCommit, kOffsetCommitVersion, request,
                         &kafka::WriteOffsetCommitRequest, &kafka::ReadOffsetCommitResponse);
      },
      [](const kafka::OffsetCommitResponse& a) -> int16_t {
        for (const auto& t : a.topics) {
          for (const auto& p : t.partitions) {
            if (WaitOut(p.error_code)) return p.error_code;
          }
        }
        return 0;
      });
  if (!r.ok()) return r.status();
  std::vector<std::pair<TopicPartition, int16_t>> out;
  for (const auto& t : r->topics) {
    for (const auto& p : t.partitions) out.push_back({{t.name, p.partition_index}, p.error_code});
  }
  return out;
}

}  // namespace strata::cli
