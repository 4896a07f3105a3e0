#include "tools/cli/reassignment_throttles.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace strata::cli {
namespace {

constexpr const char* kBrokerRates[] = {"leader.replication.throttled.rate", "follower.replication.throttled.rate"};
constexpr const char* kLeaderReplicas = "leader.replication.throttled.replicas";
constexpr const char* kFollowerReplicas = "follower.replication.throttled.replicas";

av1::AlterConfigsRequest::Resource* AddResource(av1::AlterConfigsRequest& request, av1::ConfigResource::Type type,
                                                const std::string& name) {
  auto* r = request.add_resources();
  r->mutable_resource()->set_type(type);
  r->mutable_resource()->set_name(name);
  return r;
}

void Set(av1::AlterConfigsRequest::Resource* r, const std::string& name, const std::string& value) {
  auto* op = r->add_ops();
  op->set_name(name);
  op->set_value(value);
  op->set_operation(av1::AlterConfigsRequest::Op::SET);
}

void Delete(av1::AlterConfigsRequest::Resource* r, const std::string& name) {
  auto* op = r->add_ops();
  op->set_name(name);
  op->set_operation(av1::AlterConfigsRequest::Op::DELETE);
}

}  // namespace

av1::AlterConfigsRequest ThrottleRequest(const std::vector<PlannedPartition>& plan,
                                         const av1::DescribeTopicsResponse& topics, int64_t bytes_per_second) {
  std::map<std::pair<std::string, int32_t>, std::vector<int32_t>> now;
  for (const auto& t : topics.topics()) {
    for (const auto& p : t.partitions()) now[{t.name(), p.partition_id()}] = {p.replicas().begin(), p.replicas().end()};
  }
  std::set<int32_t> brokers;
  std::map<std::string, std::pair<std::vector<std::string>, std::vector<std::string>>> replicas;  // leader, follower
  for (const PlannedPartition& p : plan) {
    const std::vector<int32_t>& current = now[{p.topic, p.partition}];
    auto& [leaders, followers] = replicas[p.topic];
    for (int32_t b : current) {
      brokers.insert(b);
      leaders.push_back(absl::StrCat(p.partition, ":", b));
    }
    for (int32_t b : p.replicas) {
      brokers.insert(b);
      if (std::find(current.begin(), current.end(), b) == current.end()) {
        followers.push_back(absl::StrCat(p.partition, ":", b));
      }
    }
  }
  av1::AlterConfigsRequest request;
  for (int32_t b : brokers) {
    auto* r = AddResource(request, av1::ConfigResource::BROKER, std::to_string(b));
    for (const char* rate : kBrokerRates) Set(r, rate, std::to_string(bytes_per_second));
  }
  for (const auto& [topic, lists] : replicas) {
    auto* r = AddResource(request, av1::ConfigResource::TOPIC, topic);
    Set(r, kLeaderReplicas, absl::StrJoin(lists.first, ","));
    Set(r, kFollowerReplicas, absl::StrJoin(lists.second, ","));
  }
  return request;
}

av1::AlterConfigsRequest ClearThrottlesRequest(const std::vector<PlannedPartition>& plan,
                                               const av1::DescribeClusterResponse& cluster) {
  av1::AlterConfigsRequest request;
  for (const auto& b : cluster.brokers()) {
    auto* r = AddResource(request, av1::ConfigResource::BROKER, std::to_string(b.broker_id()));
    for (const char* rate : kBrokerRates) Delete(r, rate);
  }
  std::set<std::string> topics;
  for (const PlannedPartition& p : plan) topics.insert(p.topic);
  for (const std::string& topic : topics) {
    auto* r = AddResource(request, av1::ConfigResource::TOPIC, topic);
    Delete(r, kLeaderReplicas);
    Delete(r, kFollowerReplicas);
  }
  return request;
}

bool AlterThrottles(const av1::AlterConfigsRequest& request, const Context& ctx, std::string* error) {
  av1::AlterConfigsResponse r;
  if (!ctx.admin.Call(&av1::AdminService::Stub::AlterConfigs, request, &r, error)) return false;
  for (const auto& result : r.results()) {
    if (result.error_code() != 0) {
      *error = absl::StrCat(result.resource().name(), ": ", ErrorText(result.error_code(), result.error_message()));
      return false;
    }
  }
  return true;
}

}  // namespace strata::cli
