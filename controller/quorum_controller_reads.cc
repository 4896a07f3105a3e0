// The active controller's admin reads (QuorumController, quorum_controller.h): the
// cluster, features, topics, reassignments, the quorum, configs, SCRAM users and ACLs,
// each from the image as this node has applied it.

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "base/host_port.h"
#include "controller/acl_control.h"
#include "controller/admin_answers.h"
#include "controller/quorum_controller.h"
#include "controller/reassignment.h"
#include "controller/client_quota_control.h"
#include "controller/feature_control.h"
#include "controller/scram_control.h"

namespace strata::controller {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

admin::v1::DescribeClusterResponse QuorumController::DescribeCluster() {
  admin::v1::DescribeClusterResponse response;
  raft::RaftNodeStatus st = node_.status();
  response.set_controller_id(st.leader);
  response.set_cluster_id(options_.cluster_id);
  store_.WithImage([&](const MetadataImage& image) {
    for (const auto& [id, b] : image.brokers()) {
      admin::v1::BrokerDescription* d = response.add_brokers();
      d->set_broker_id(id);
      *d->mutable_endpoints() = b.registration().endpoints();
      d->set_rack(b.registration().rack());
      d->set_fenced(b.fenced());
      d->set_in_controlled_shutdown(b.in_controlled_shutdown());
      d->set_broker_epoch(b.registration().broker_epoch());
      d->set_offline_log_dirs(b.offline_log_dirs_size());
    }
    return 0;
  });
  return response;
}

admin::v1::DescribeFeaturesResponse QuorumController::DescribeFeatures() {
  admin::v1::DescribeFeaturesResponse response;
  response.set_controller_id(node_.status().leader);
  for (auto& f : store_.WithImage([](const MetadataImage& image) { return controller::DescribeFeatures(image); })) {
    *response.add_features() = std::move(f);
  }
  return response;
}

admin::v1::DescribeTopicsResponse QuorumController::DescribeTopics(const admin::v1::DescribeTopicsRequest& request) {
  admin::v1::DescribeTopicsResponse response;
  response.set_controller_id(node_.status().leader);
  std::map<BrokerId, std::set<std::string>> tier_state_failing;
  {
    absl::MutexLock s(&sessions_mu_);
    tier_state_failing = tier_state_failing_;
  }
  store_.WithImage([&](const MetadataImage& image) {
    auto describe = [&](const TopicState& t) {
      admin::v1::TopicDescription* d = response.add_topics();
      d->set_name(t.name);
      d->set_topic_id(t.id);
      for (const auto& [pid, p] : t.partitions) {
        admin::v1::PartitionDescription* pd = d->add_partitions();
        pd->set_partition_id(pid);
        pd->set_leader(p.leader());
        pd->set_leader_epoch(p.leader_epoch());
        *pd->mutable_replicas() = p.replicas();
        *pd->mutable_isr() = p.isr();
        *pd->mutable_adding_replicas() = p.adding_replicas();
        *pd->mutable_removing_replicas() = p.removing_replicas();
        for (int i = 0; i < p.replicas_size(); ++i) {
          if (!ReplicaAvailable(image, p, p.replicas(i), i)) pd->add_offline_replicas(p.replicas(i));
        }
        for (int32_t replica : p.replicas()) {
          auto failing = tier_state_failing.find(replica);
          if (failing != tier_state_failing.end() && failing->second.count(absl::StrCat(t.name, "-", pid))) {
            pd->add_tier_state_failing_replicas(replica);
          }
        }
        const RemoteLogSegments* remote = image.FindRemoteSegments(t.id, pid);
        if (request.include_remote_segments() && remote != nullptr) {
          for (const auto& [id, s] : remote->segments()) *pd->add_remote_segments() = s;
        }
      }
    };
    if (request.names().empty()) {
      std::vector<const TopicState*> all;
      for (const auto& [id, t] : image.topics()) all.push_back(&t);
      std::sort(all.begin(), all.end(), [](const TopicState* a, const TopicState* b) { return a->name < b->name; });
      for (const TopicState* t : all) describe(*t);
    }
    for (const std::string& name : request.names()) {
      const TopicState* t = image.FindTopic(name);
      if (t != nullptr) {
        describe(*t);
        continue;
      }
      admin::v1::TopicDescription* d = response.add_topics();
      d->set_name(name);
      d->set_error_code(Code(ErrorCode::kUnknownTopicOrPartition));
      d->set_error_message(absl::StrCat("topic '", name, "' does not exist"));
    }
    return 0;
  });
  return response;
}

admin::v1::ListPartitionReassignmentsResponse QuorumController::ListPartitionReassignments(
    const admin::v1::ListPartitionReassignmentsRequest& request) {
  admin::v1::ListPartitionReassignmentsResponse response;
  if (RefuseIfNotActive(NotActive(), &response)) return response;
  store_.WithImage([&](const MetadataImage& image) {
    auto list = [&](const TopicState& t, const pb::Partition& p) {
      if (!Reassigning(p)) return;
      auto* r = response.add_reassignments();
      r->set_topic(t.name);
      r->set_partition_id(p.partition_id());
      *r->mutable_replicas() = p.replicas();
      *r->mutable_adding_replicas() = p.adding_replicas();
      *r->mutable_removing_replicas() = p.removing_replicas();
    };
    std::map<std::string, const TopicState*> by_name;
    for (const auto& [id, t] : image.topics()) by_name.emplace(t.name, &t);
    if (request.topics().empty()) {
      for (const auto& [name, t] : by_name) {
        for (const auto& [pid, p] : t->partitions) list(*t, p);
      }
    }
    for (const auto& tp : request.topics()) {
      auto t = by_name.find(tp.name());
      if (t == by_name.end()) continue;
      if (tp.partitions().empty()) {
        for (const auto& [pid, p] : t->second->partitions) list(*t->second, p);
      }
      for (int32_t pid : tp.partitions()) {
        auto p = t->second->partitions.find(pid);
        if (p != t->second->partitions.end()) list(*t->second, p->second);
      }
    }
    return 0;
  });
  return response;
}

admin::v1::DescribeQuorumResponse QuorumController::DescribeQuorum(bool local) {
  admin::v1::DescribeQuorumResponse response;
  raft::RaftNodeStatus st = node_.status();
  response.set_controller_id(st.leader);
  if (st.role != raft::Role::kLeader && !local) {
    // Only the leader knows the voters' replication, as in Kafka: the caller follows
    // NOT_CONTROLLER to it.
    RefuseIfNotActive(std::optional<int32_t>(st.leader), &response);
    return response;
  }
  response.set_leader_id(st.leader);
  response.set_leader_epoch(st.term);
  response.set_high_watermark(st.commit);
  response.set_kraft_version(st.kraft_version);
  const bool dynamic = !st.configuration.is_static();
  for (raft::NodeId v : st.configuration.ids()) response.add_voters(v);
  if (st.role != raft::Role::kLeader) return response;
  if (st.learner != raft::kNoNode) {
    // A voter being added catches up as an observer would, and is listed as one (Kafka).
    auto* r = response.add_observers();
    r->set_replica_id(st.learner);
    r->set_log_end_offset(st.learner_match > 0 ? st.learner_match : -1);
    r->set_last_fetch_timestamp(-1);
    r->set_last_caught_up_timestamp(-1);
    r->set_replica_directory_id(st.learner_directory_id);
  }
  for (const raft::RaftNodeStatus::VoterState& v : st.voters) {
    auto* r = response.add_voter_states();
    r->set_replica_id(v.id);
    r->set_log_end_offset(v.match > 0 ? v.match : -1);  // 0: nothing known of its log yet
    r->set_last_fetch_timestamp(v.last_fetch_unix_ms);
    r->set_last_caught_up_timestamp(v.last_caught_up_unix_ms);
    if (const raft::Voter* voter = st.configuration.Find(v.id); voter != nullptr) {
      r->set_replica_directory_id(voter->directory_id);
    }
  }
  {
    // Brokers do not fetch the metadata log, they follow it through heartbeats and the
    // session stream: the heartbeat is their "fetch", what it says they applied their
    // log end offset, and they are caught up when that reaches the commit index.
    absl::MutexLock s(&sessions_mu_);
    int64_t now = absl::ToUnixMillis(absl::Now());
    Clock::time_point steady_now = Clock::now();
    for (const auto& [id, at] : last_heartbeat_) {
      auto* o = response.add_observers();
      o->set_replica_id(id);
      auto applied = applied_metadata_offset_.find(id);
      o->set_log_end_offset(applied == applied_metadata_offset_.end() ? -1 : applied->second);
      int64_t heard = now - std::chrono::duration_cast<std::chrono::milliseconds>(steady_now - at).count();
      o->set_last_fetch_timestamp(heard);
      o->set_last_caught_up_timestamp(o->log_end_offset() >= st.commit ? heard : -1);
    }
  }
  if (dynamic) {
    for (const auto& [id, voter] : st.configuration.voters()) {
      auto* node = response.add_nodes();
      node->set_node_id(id);
      for (const raft::Endpoint& e : voter.endpoints) {
        auto* listener = node->add_listeners();
        listener->set_name(e.name);
        listener->set_host(e.host);
        listener->set_port(e.port);
      }
    }
    return response;
  }
  for (const auto& [id, text] : options_.voter_addresses) {
    absl::StatusOr<HostPort> address = ParseHostPort(text);
    if (!address.ok()) continue;
    auto* node = response.add_nodes();
    node->set_node_id(id);
    auto* listener = node->add_listeners();
    listener->set_name(options_.controller_listener_name);
    listener->set_host(address->host);
    listener->set_port(address->port);
  }
  return response;
}

admin::v1::DescribeConfigsResponse QuorumController::DescribeConfigs(const admin::v1::DescribeConfigsRequest& request) {
  admin::v1::DescribeConfigsResponse response;
  response.set_controller_id(node_.status().leader);
  store_.WithImage([&](const MetadataImage& image) {
    for (const auto& resource : request.resources()) {
      auto* result = response.add_results();
      *result->mutable_resource() = resource;
      int type = resource.type() == admin::v1::ConfigResource::TOPIC ? pb::Config::TOPIC : pb::Config::BROKER;
      if (resource.type() == admin::v1::ConfigResource::TOPIC && image.FindTopic(resource.name()) == nullptr) {
        SetOutcome(Outcome{ErrorCode::kUnknownTopicOrPartition, absl::StrCat("topic '", resource.name(), "' does not exist")},
                   result);
        continue;
      }
      std::map<std::string, std::string> set;
      auto c = image.configs().find({type, resource.name()});
      if (c != image.configs().end()) set = c->second;
      if (resource.type() == admin::v1::ConfigResource::TOPIC) {
        AddTopicConfigEntries(set, result->mutable_entries());
      } else {
        for (const auto& [name, value] : set) {
          auto* e = result->add_entries();
          e->set_name(name);
          e->set_value(value);
        }
      }
    }
    return 0;
  });
  return response;
}

admin::v1::DescribeUserScramCredentialsResponse QuorumController::DescribeUserScramCredentials(
    const admin::v1::DescribeUserScramCredentialsRequest& request) {
  admin::v1::DescribeUserScramCredentialsResponse response = store_.WithImage(
      [&](const MetadataImage& image) { return controller::DescribeUserScramCredentials(image, request); });
  response.set_controller_id(node_.status().leader);
  return response;
}

admin::v1::DescribeClientQuotasResponse QuorumController::DescribeClientQuotas(
    const admin::v1::DescribeClientQuotasRequest& request) {
  admin::v1::DescribeClientQuotasResponse response =
      store_.WithImage([&](const MetadataImage& image) { return controller::DescribeClientQuotas(image, request); });
  response.set_controller_id(node_.status().leader);
  return response;
}

admin::v1::DescribeAclsResponse QuorumController::DescribeAcls(const admin::v1::DescribeAclsRequest& request) {
  admin::v1::DescribeAclsResponse response;
  response.set_controller_id(node_.status().leader);
  if (SecurityDisabled(options_.authorizer_enabled, &response)) return response;
  security::AclFilter filter = FromProto(request.filter());
  if (std::optional<std::string> why = security::InvalidFilter(filter)) {
    response.set_error_code(static_cast<int32_t>(ErrorCode::kInvalidRequest));
    response.set_error_message(*why);
    return response;
  }
  for (const security::AclBinding& b :
       store_.WithImage([&](const MetadataImage& image) { return image.security().MatchingAcls(filter); })) {
    *response.add_acls() = ToProto(b);
  }
  return response;
}

}  // namespace strata::controller
