#include "controller/quorum_controller.h"

#include "controller/acl_control.h"
#include "controller/admin_answers.h"
#include "controller/reassignment.h"
#include "controller/client_quota_control.h"
#include "controller/feature_control.h"
#include "controller/scram_control.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/logging.h"
#include "controller/topic_config.h"
#include "storage/log_config.h"

namespace strata::controller {
namespace {

using Clock = std::chrono::steady_clock;

// A request from a broker names its current registration, or STALE_BROKER_EPOCH.
Outcome CheckBrokerEpoch(const MetadataImage& image, BrokerId broker, int64_t broker_epoch) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end() || it->second.registration().broker_epoch() != broker_epoch) {
    return {ErrorCode::kStaleBrokerEpoch, absl::StrCat("broker ", broker, " epoch ", broker_epoch, " is not current")};
  }
  return {};
}

// The same for a broker's own lifecycle requests (heartbeat, session stream), which
// tell an unknown broker (BROKER_ID_NOT_REGISTERED: it registers) from a stale one.
Outcome CheckRegistration(const MetadataImage& image, BrokerId broker, int64_t broker_epoch) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) {
    return {ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered")};
  }
  if (it->second.registration().broker_epoch() != broker_epoch) {
    return {ErrorCode::kStaleBrokerEpoch, absl::StrCat("broker ", broker, " epoch ", broker_epoch,
                                                       " is not the current ",
                                                       it->second.registration().broker_epoch())};
  }
  return {};
}

// A created topic as Kafka's CreateTopics v5+ describes it, from the records that create
// it: partition count, replication factor (of its first partition) and configs.
void DescribeCreatedTopic(const std::vector<pb::MetadataRecord>& records, admin::v1::TopicResult* result) {
  int32_t partitions = 0;
  int32_t replication_factor = -1;
  std::map<std::string, std::string> set;
  for (const pb::MetadataRecord& r : records) {
    if (r.has_partition()) {
      if (partitions++ == 0) replication_factor = r.partition().replicas_size();
    } else if (r.has_config()) {
      set[r.config().name()] = r.config().value();
    }
  }
  result->set_num_partitions(partitions);
  result->set_replication_factor(replication_factor);
  AddTopicConfigEntries(set, result->mutable_configs());
}

}  // namespace

QuorumController::QuorumController(raft::RaftNode& node, MetadataStore& store, QuorumControllerOptions options)
    : node_(node), store_(store), options_(std::move(options)), ids_(std::random_device{}()) {
  sessions_ = std::thread([this] { SessionLoop(); });
}

QuorumController::~QuorumController() {
  {
    absl::MutexLock lock(&sessions_mu_);
    stopping_ = true;
  }
  sessions_.join();
  session_streams_.CancelAll();
}

std::optional<int32_t> QuorumController::NotActive() const {
  raft::RaftNodeStatus st = node_.status();
  if (!st.stopped && st.role == raft::Role::kLeader) return std::nullopt;
  return st.leader == node_.id() ? 0 : st.leader;
}

TopicId QuorumController::NewTopicId() {
  std::string id(16, '\0');
  uint64_t a = ids_(), b = ids_();
  for (int i = 0; i < 8; ++i) {
    id[i] = static_cast<char>(a >> (8 * i));
    id[8 + i] = static_cast<char>(b >> (8 * i));
  }
  return id;
}

Outcome QuorumController::CatchUpLocked() {
  raft::Term term = node_.status().term;
  if (term == caught_up_term_) return {};
  // An empty entry of this term: once it is applied, so is everything before it.
  auto index = node_.Propose("", options_.write_timeout);
  if (!index.ok()) return {ErrorCode::kNotController, std::string(index.status().message())};
  caught_up_term_ = term;
  return {};
}

Outcome QuorumController::WriteLocked(const std::vector<std::vector<pb::MetadataRecord>>& groups) {
  std::vector<pb::MetadataBatch> entries(1);
  size_t bytes = 0;
  for (const auto& group : groups) {
    size_t group_bytes = 0;
    for (const auto& r : group) group_bytes += r.ByteSizeLong() + 8;
    if (group_bytes > options_.max_entry_bytes) {
      return {ErrorCode::kInvalidRequest, absl::StrCat("one item needs ", group_bytes, " bytes of metadata, more than the ",
                                                       options_.max_entry_bytes, " one write may hold")};
    }
    if (bytes + group_bytes > options_.max_entry_bytes && entries.back().records_size() > 0) {
      entries.emplace_back();
      bytes = 0;
    }
    for (const auto& r : group) *entries.back().add_records() = r;
    bytes += group_bytes;
  }
  for (const pb::MetadataBatch& batch : entries) {
    if (batch.records_size() == 0) continue;
    auto index = node_.Propose(batch.SerializeAsString(), options_.write_timeout);
    if (!index.ok()) {
      caught_up_term_ = 0;  // whatever happened, check again next time
      ErrorCode code = index.status().code() == absl::StatusCode::kDeadlineExceeded ? ErrorCode::kRequestTimedOut
                                                                                     : ErrorCode::kNotController;
      return {code, absl::StrCat("metadata write failed: ", index.status().message())};
    }
  }
  return {};
}

// The records a write RPC's plan step decided, in groups written whole, and (for admin
// writes) the response items that wait for them: they get the write's error if it fails.
struct QuorumController::Writes {
  std::vector<std::vector<pb::MetadataRecord>> groups;
  std::vector<int> items;
  void Add(std::vector<pb::MetadataRecord> records) { groups.push_back(std::move(records)); }
  void Add(int item, std::vector<pb::MetadataRecord> records) {
    Add(std::move(records));
    items.push_back(item);
  }
};

template <typename Response>
void QuorumController::RunWrite(Response* response, const WriteSteps& steps) {
  if (RefuseIfNotActive(NotActive(), response)) return;
  if (steps.admit) {
    if (Outcome o = steps.admit(); !o.ok()) {
      SetOutcome(o, response);
      return;
    }
  }
  absl::MutexLock lock(&write_mu_);
  if (Outcome o = CatchUpLocked(); !o.ok()) {
    SetOutcome(o, response);
    return;
  }
  Writes writes;
  if (Outcome o = steps.plan(writes); !o.ok()) {
    SetOutcome(o, response);
    return;
  }
  steps.written(WriteLocked(writes.groups), writes);
}

template <typename Response, typename Items>
void QuorumController::RunAdminWrite(Response* response, Items* items,
                                     const std::function<void(const MetadataImage&, Writes&)>& plan) {
  RunWrite(response, {.plan =
                          [&](Writes& writes) {
                            store_.WithImage([&](const MetadataImage& image) {
                              plan(image, writes);
                              return 0;
                            });
                            return Outcome{};
                          },
                      .written =
                          [&](const Outcome& o, const Writes& writes) {
                            if (o.ok()) return;
                            for (int i : writes.items) SetOutcome(o, items->Mutable(i));
                          }});
}

admin::v1::CreateTopicsResponse QuorumController::CreateTopics(const admin::v1::CreateTopicsRequest& request) {
  admin::v1::CreateTopicsResponse response;
  std::set<std::string> taken;
  // The plan runs in RunWrite, under write_mu_.
  RunAdminWrite(&response, response.mutable_topics(),
                [&](const MetadataImage& image, Writes& writes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_) {
    for (const auto& topic : request.topics()) {
      TopicId id = NewTopicId();
      Plan plan = PlanCreateTopic(image, topic, options_.config, id, taken);
      admin::v1::TopicResult* result = response.add_topics();
      result->set_name(topic.name());
      SetOutcome(plan.outcome, result);
      if (!plan.outcome.ok()) continue;
      result->set_topic_id(id);
      DescribeCreatedTopic(plan.records, result);
      taken.insert(topic.name());
      if (!request.validate_only()) writes.Add(response.topics_size() - 1, std::move(plan.records));
    }
  });
  return response;
}

admin::v1::DeleteTopicsResponse QuorumController::DeleteTopics(const admin::v1::DeleteTopicsRequest& request) {
  admin::v1::DeleteTopicsResponse response;
  std::set<std::string> seen_names;
  std::set<TopicId> seen_ids;  // a topic named by name and by id is named twice
  RunAdminWrite(&response, response.mutable_topics(), [&](const MetadataImage& image, Writes& writes) {
    auto remove = [&](admin::v1::TopicResult* result, const std::string& name) {
      Plan plan = PlanDeleteTopic(image, name, options_.config);
      SetOutcome(plan.outcome, result);
      if (!plan.outcome.ok()) return;
      const TopicId& id = plan.records[0].remove_topic().topic_id();
      result->set_topic_id(id);
      if (!seen_ids.insert(id).second) {
        SetOutcome(Outcome{ErrorCode::kInvalidRequest, "topic named twice"}, result);
        return;
      }
      writes.Add(response.topics_size() - 1, std::move(plan.records));
    };
    for (const std::string& name : request.names()) {
      admin::v1::TopicResult* result = response.add_topics();
      result->set_name(name);
      if (!seen_names.insert(name).second) {
        SetOutcome(Outcome{ErrorCode::kInvalidRequest, "topic named twice"}, result);
        continue;
      }
      remove(result, name);
    }
    for (const std::string& id : request.topic_ids()) {
      admin::v1::TopicResult* result = response.add_topics();
      result->set_topic_id(id);
      const TopicState* t = image.FindTopicById(id);
      if (t == nullptr) {
        SetOutcome(Outcome{ErrorCode::kUnknownTopicId, absl::StrCat("no topic has id ", TopicIdToString(id))}, result);
        continue;
      }
      result->set_name(t->name);
      remove(result, t->name);
    }
  });
  return response;
}

admin::v1::CreatePartitionsResponse QuorumController::CreatePartitions(const admin::v1::CreatePartitionsRequest& request) {
  admin::v1::CreatePartitionsResponse response;
  RunAdminWrite(&response, response.mutable_topics(), [&](const MetadataImage& image, Writes& writes) {
    for (const auto& topic : request.topics()) {
      admin::v1::TopicResult* result = response.add_topics();
      result->set_name(topic.name());
      Plan plan = PlanCreatePartitions(image, topic);
      SetOutcome(plan.outcome, result);
      if (plan.outcome.ok() && !request.validate_only()) writes.Add(response.topics_size() - 1, std::move(plan.records));
    }
  });
  return response;
}

admin::v1::ElectLeadersResponse QuorumController::ElectLeaders(const admin::v1::ElectLeadersRequest& request) {
  admin::v1::ElectLeadersResponse response;
  RunAdminWrite(&response, response.mutable_results(), [&](const MetadataImage& image, Writes& writes) {
    auto result = [&](const std::string& topic, int32_t partition, const Outcome& o) {
      admin::v1::ElectLeadersResponse::Result* r = response.add_results();
      r->set_topic(topic);
      r->set_partition_id(partition);
      SetOutcome(o, r);
    };
    auto elect = [&](const TopicState& t, const pb::Partition& p) {
      Plan plan = PlanElectLeader(image, t, p, request.election_type());
      result(t.name, p.partition_id(), plan.outcome);
      if (plan.outcome.ok()) writes.Add(response.results_size() - 1, std::move(plan.records));
    };
    if (request.topics().empty()) {
      for (const auto& [id, t] : image.topics()) {
        for (const auto& [pid, p] : t.partitions) elect(t, p);
      }
    }
    for (const auto& tp : request.topics()) {
      const TopicState* t = image.FindTopic(tp.name());
      if (t == nullptr) {
        result(tp.name(), -1, {ErrorCode::kUnknownTopicOrPartition, absl::StrCat("topic '", tp.name(), "' does not exist")});
        continue;
      }
      if (tp.partitions().empty()) {
        for (const auto& [pid, p] : t->partitions) elect(*t, p);
      }
      for (int32_t pid : tp.partitions()) {
        auto p = t->partitions.find(pid);
        if (p == t->partitions.end()) {
          result(tp.name(), pid, {ErrorCode::kUnknownTopicOrPartition, absl::StrCat("partition ", pid, " does not exist")});
        } else {
          elect(*t, p->second);
        }
      }
    }
  });
  return response;
}

admin::v1::AlterPartitionReassignmentsResponse QuorumController::AlterPartitionReassignments(
    const admin::v1::AlterPartitionReassignmentsRequest& request) {
  admin::v1::AlterPartitionReassignmentsResponse response;
  RunAdminWrite(&response, response.mutable_results(), [&](const MetadataImage& image, Writes& writes) {
    std::set<std::pair<std::string, int32_t>> named;
    for (const auto& r : request.partitions()) {
      admin::v1::PartitionResult* result = response.add_results();
      result->set_topic(r.topic());
      result->set_partition_id(r.partition_id());
      const TopicState* t = image.FindTopic(r.topic());
      const pb::Partition* p = t == nullptr ? nullptr : image.FindPartition(t->id, r.partition_id());
      if (p == nullptr) {
        SetOutcome(Outcome{ErrorCode::kUnknownTopicOrPartition,
                           absl::StrCat("partition ", r.topic(), "-", r.partition_id(), " does not exist")},
                   result);
        continue;
      }
      if (!named.emplace(r.topic(), r.partition_id()).second) {
        SetOutcome(Outcome{ErrorCode::kInvalidRequest, "partition named twice"}, result);
        continue;
      }
      std::optional<std::vector<BrokerId>> target;
      if (!r.cancel()) target.emplace(r.replicas().begin(), r.replicas().end());
      Plan plan = PlanReassignment(image, *t, *p, target, request.allow_replication_factor_change());
      SetOutcome(plan.outcome, result);
      if (plan.outcome.ok() && !plan.records.empty()) writes.Add(response.results_size() - 1, std::move(plan.records));
    }
  });
  return response;
}

admin::v1::AlterConfigsResponse QuorumController::AlterConfigs(const admin::v1::AlterConfigsRequest& request) {
  admin::v1::AlterConfigsResponse response;
  RunAdminWrite(&response, response.mutable_results(), [&](const MetadataImage& image, Writes& writes) {
    for (const auto& resource : request.resources()) {
      admin::v1::ConfigResult* r = response.add_results();
      *r->mutable_resource() = resource.resource();
      Plan plan = PlanAlterConfigs(image, resource, options_.config);
      SetOutcome(plan.outcome, r);
      if (plan.outcome.ok() && !request.validate_only()) writes.Add(response.results_size() - 1, std::move(plan.records));
    }
  });
  return response;
}

admin::v1::AlterUserScramCredentialsResponse QuorumController::AlterUserScramCredentials(
    const admin::v1::AlterUserScramCredentialsRequest& request) {
  admin::v1::AlterUserScramCredentialsResponse response;
  RunAdminWrite(&response, response.mutable_results(), [&](const MetadataImage& image, Writes& writes) {
    for (UserPlan& p : PlanAlterUserScramCredentials(image, request)) {
      admin::v1::UserResult* result = response.add_results();
      result->set_user(p.user);
      SetOutcome(p.plan.outcome, result);
      if (p.plan.outcome.ok()) writes.Add(response.results_size() - 1, std::move(p.plan.records));
    }
  });
  return response;
}

admin::v1::AlterClientQuotasResponse QuorumController::AlterClientQuotas(
    const admin::v1::AlterClientQuotasRequest& request) {
  admin::v1::AlterClientQuotasResponse response;
  RunAdminWrite(&response, response.mutable_results(), [&](const MetadataImage& image, Writes& writes) {
    std::vector<Plan> plans = PlanAlterClientQuotas(image, request);
    for (size_t i = 0; i < plans.size(); ++i) {
      admin::v1::ClientQuotaAlterationResult* result = response.add_results();
      *result->mutable_entity() = request.entries(static_cast<int>(i)).entity();
      SetOutcome(plans[i].outcome, result);
      if (plans[i].outcome.ok() && !plans[i].records.empty() && !request.validate_only()) {
        writes.Add(response.results_size() - 1, std::move(plans[i].records));
      }
    }
  });
  return response;
}

admin::v1::UpdateFeaturesResponse QuorumController::UpdateFeatures(const admin::v1::UpdateFeaturesRequest& request) {
  if (std::optional<admin::v1::UpdateFeaturesResponse> upgraded = UpgradeKraftVersion(request)) return *upgraded;
  admin::v1::UpdateFeaturesResponse response;
  RunWrite(&response, {.plan =
                           [&](Writes& writes) {
                             Plan plan = store_.WithImage(
                                 [&](const MetadataImage& image) { return PlanUpdateFeatures(image, request); });
                             if (plan.outcome.ok() && !plan.records.empty()) writes.Add(std::move(plan.records));
                             return plan.outcome;
                           },
                       .written =
                           [&](const Outcome& o, const Writes& writes) {
                             SetOutcome(o, &response);
                             response.set_controller_id(node_.id());
                             for (const auto& group : writes.groups) {
                               for (const pb::MetadataRecord& r : group) {
                                 spdlog::info("feature {} set to level {} by UpdateFeatures: {}", r.feature_level().name(),
                                              r.feature_level().level(), o.ok() ? "ok" : o.message);
                               }
                             }
                           }});
  return response;
}

admin::v1::UnregisterBrokerResponse QuorumController::UnregisterBroker(const admin::v1::UnregisterBrokerRequest& request) {
  admin::v1::UnregisterBrokerResponse response;
  const BrokerId id = request.broker_id();
  RunWrite(&response,
           {.plan =
                [&](Writes& writes) {
                  Plan plan = store_.WithImage(
                      [&](const MetadataImage& image) { return PlanUnregisterBroker(image, id, options_.config); });
                  if (plan.outcome.ok()) writes.Add(std::move(plan.records));
                  return plan.outcome;
                },
            .written =
                [&](const Outcome& o, const Writes& writes) {
                  SetOutcome(o, &response);
                  response.set_controller_id(node_.id());
                  spdlog::info("UnregisterBroker of broker {} ({} partition changes): {}", id,
                               writes.groups.empty() ? size_t{0} : writes.groups[0].size() - 1,
                               o.ok() ? "unregistered" : o.message);
                  if (!o.ok()) return;
                  // It is no observer of the quorum any more; a new registration starts afresh.
                  absl::MutexLock s(&sessions_mu_);
                  last_heartbeat_.erase(id);
                  applied_metadata_offset_.erase(id);
                  tier_state_failing_.erase(id);
                }});
  return response;
}

admin::v1::CreateAclsResponse QuorumController::CreateAcls(const admin::v1::CreateAclsRequest& request) {
  admin::v1::CreateAclsResponse response;
  if (SecurityDisabled(options_.authorizer_enabled, &response)) return response;
  RunAdminWrite(&response, response.mutable_results(),
                [&](const MetadataImage& image, Writes& writes) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_) {
    for (Plan& plan : PlanCreateAcls(image, request, [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_) {
           return NewTopicId();
         })) {
      admin::v1::AclResult* result = response.add_results();
      SetOutcome(plan.outcome, result);
      if (plan.outcome.ok() && !plan.records.empty()) writes.Add(response.results_size() - 1, std::move(plan.records));
    }
  });
  return response;
}

admin::v1::DeleteAclsResponse QuorumController::DeleteAcls(const admin::v1::DeleteAclsRequest& request) {
  admin::v1::DeleteAclsResponse response;
  if (SecurityDisabled(options_.authorizer_enabled, &response)) return response;
  RunAdminWrite(&response, response.mutable_results(), [&](const MetadataImage& image, Writes& writes) {
    for (DeletePlan& p : PlanDeleteAcls(image, request)) {
      auto* result = response.add_results();
      SetOutcome(p.plan.outcome, result);
      for (const security::AclBinding& b : p.deleted) *result->add_matching() = ToProto(b);
      if (p.plan.outcome.ok() && !p.plan.records.empty()) {
        writes.Add(response.results_size() - 1, std::move(p.plan.records));
      }
    }
  });
  return response;
}

controller::v1::BrokerRegistrationResponse QuorumController::RegisterBroker(
    const controller::v1::BrokerRegistrationRequest& request) {
  controller::v1::BrokerRegistrationResponse response;
  int64_t epoch = 0;
  RunWrite(&response,
           {.admit =
                [&]() -> Outcome {
                  if (options_.cluster_id.empty() || request.cluster_id().empty() ||
                      request.cluster_id() == options_.cluster_id) {
                    return {};
                  }
                  return {ErrorCode::kInvalidRequest,
                          absl::StrCat("broker of cluster ", request.cluster_id(), " cannot join cluster ", options_.cluster_id)};
                },
            .plan =
                [&](Writes& writes) {
                  // Broker epochs grow with the log: the index the registration will at least get.
                  epoch = node_.status().commit + 1;
                  Plan plan =
                      store_.WithImage([&](const MetadataImage& image) { return PlanRegisterBroker(image, request, epoch); });
                  if (plan.outcome.ok()) writes.Add(std::move(plan.records));
                  return plan.outcome;
                },
            .written =
                [&](const Outcome& o, const Writes&) {
                  SetOutcome(o, &response);
                  if (o.ok()) {
                    response.set_broker_epoch(epoch);
                    absl::MutexLock s(&sessions_mu_);
                    last_heartbeat_[request.broker_id()] = Clock::now();
                  }
                  spdlog::info("broker {} registered with epoch {}: {}", request.broker_id(), epoch,
                               o.ok() ? "ok" : o.message);
                }});
  return response;
}

controller::v1::BrokerHeartbeatResponse QuorumController::BrokerHeartbeat(
    const controller::v1::BrokerHeartbeatRequest& request) {
  controller::v1::BrokerHeartbeatResponse response;
  BrokerId id = request.broker_id();
  auto check = [&](const MetadataImage& image) { return CheckRegistration(image, id, request.broker_epoch()); };
  auto leads_nothing = [&](const MetadataImage& image) { return LeaderCounts(image).count(id) == 0; };
  RunWrite(
      &response,
      {.admit =
           [&]() -> Outcome {
             // The session counts from the heartbeat, not from when the write lock is free.
             if (Outcome o = store_.WithImage(check); !o.ok()) return o;
             absl::MutexLock s(&sessions_mu_);
             last_heartbeat_[id] = Clock::now();
             applied_metadata_offset_[id] = request.current_metadata_offset();
             tier_state_failing_[id] = {request.tier_state_failing().begin(), request.tier_state_failing().end()};
             return {};
           },
       .plan =
           [&](Writes& writes) {
             return store_.WithImage([&](const MetadataImage& image) -> Outcome {
               if (Outcome o = check(image); !o.ok()) return o;
               const pb::BrokerState& b = image.brokers().at(id);
               auto add = [&](Plan p) {
                 if (p.outcome.ok() && !p.records.empty()) writes.Add(std::move(p.records));
                 return p.outcome;
               };
               if (!request.offline_log_dirs().empty()) {
                 Outcome o = add(PlanOfflineLogDirs(
                     image, id, {request.offline_log_dirs().begin(), request.offline_log_dirs().end()}, options_.config));
                 if (!o.ok()) return o;
               }
               if (request.want_shut_down()) {
                 if (Outcome o = add(PlanControlledShutdown(image, id, options_.config)); !o.ok()) return o;
               } else if (b.fenced() && request.current_metadata_offset() >= b.registration().broker_epoch()) {
                 if (Outcome o = add(PlanUnfenceBroker(image, id, options_.config)); !o.ok()) return o;
               }
               // Several plans from one image must not overlap: write them one after another, each
               // decided again on the image the previous left (the offline-dir plan first).
               if (writes.groups.size() > 1) writes.groups.resize(1);
               return Outcome{};
             });
           },
       .written =  // runs in RunWrite, under write_mu_
           [&](Outcome o, const Writes&) ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_) {
             // Controlled shutdown is complete once the broker leads nothing: it is fenced then, as
             // Kafka does, so that its next incarnation can register at once.
             if (o.ok() && request.want_shut_down()) {
               Plan fence = store_.WithImage([&](const MetadataImage& image) {
                 return leads_nothing(image) && !image.brokers().at(id).fenced() ? PlanFenceBroker(image, id, options_.config)
                                                                                 : Plan{};
               });
               if (fence.outcome.ok() && !fence.records.empty()) o = WriteLocked({fence.records});
             }
             SetOutcome(o, &response);
             store_.WithImage([&](const MetadataImage& image) {
               const pb::BrokerState& b = image.brokers().at(id);
               response.set_is_fenced(b.fenced());
               response.set_is_caught_up(request.current_metadata_offset() >= b.registration().broker_epoch());
               response.set_should_shut_down(request.want_shut_down() && leads_nothing(image));
               return 0;
             });
             response.set_controller_id(node_.id());
           }});
  return response;
}

controller::v1::AlterPartitionResponse QuorumController::AlterPartition(
    const controller::v1::AlterPartitionRequest& request) {
  controller::v1::AlterPartitionResponse response;
  RunWrite(&response,
           {.plan =
                [&](Writes& writes) {
                  return store_.WithImage([&](const MetadataImage& image) -> Outcome {
                    if (Outcome o = CheckBrokerEpoch(image, request.broker_id(), request.broker_epoch()); !o.ok()) {
                      return o;
                    }
                    for (const auto& item : request.partitions()) {
                      Plan plan = PlanAlterPartition(image, request.broker_id(), item);
                      auto* r = response.add_partitions();
                      r->set_topic_id(item.topic_id());
                      r->set_partition_id(item.partition_id());
                      SetOutcome(plan.outcome, r);
                      if (plan.outcome.ok()) writes.Add(std::move(plan.records));
                    }
                    return {};
                  });
                },
            .written =
                [&](const Outcome& o, const Writes&) {
                  store_.WithImage([&](const MetadataImage& image) {
                    for (auto& r : *response.mutable_partitions()) {
                      if (r.error_code() == Code(ErrorCode::kNone) && !o.ok()) SetOutcome(o, &r);
                      const pb::Partition* p = image.FindPartition(r.topic_id(), r.partition_id());
                      if (p == nullptr) continue;
                      r.set_leader(p->leader());
                      r.set_leader_epoch(p->leader_epoch());
                      *r.mutable_isr() = p->isr();
                      r.set_partition_epoch(p->partition_epoch());
                    }
                    return 0;
                  });
                }});
  return response;
}

template <typename Response>
void QuorumController::RunBrokerWrite(Response* response, BrokerId broker, int64_t broker_epoch,
                                      const std::function<Plan(const MetadataImage&)>& plan) {
  RunWrite(response, {.plan =
                          [&](Writes& writes) {
                            return store_.WithImage([&](const MetadataImage& image) -> Outcome {
                              if (Outcome o = CheckBrokerEpoch(image, broker, broker_epoch); !o.ok()) return o;
                              Plan p = plan(image);
                              if (!p.outcome.ok()) return p.outcome;
                              writes.Add(std::move(p.records));
                              return {};
                            });
                          },
                      .written =
                          [&](const Outcome& o, const Writes&) {
                            SetOutcome(o, response);
                            response->set_controller_id(node_.id());
                          }});
}

controller::v1::RemoteLogSegmentUpdateResponse QuorumController::RemoteLogSegmentUpdate(
    const controller::v1::RemoteLogSegmentUpdateRequest& request) {
  controller::v1::RemoteLogSegmentUpdateResponse response;
  RunBrokerWrite(&response, request.broker_id(), request.broker_epoch(), [&](const MetadataImage& image) {
    return PlanRemoteLogSegment(image, request.broker_id(), request.segment());
  });
  return response;
}

controller::v1::RemoteLogStartOffsetUpdateResponse QuorumController::RemoteLogStartOffsetUpdate(
    const controller::v1::RemoteLogStartOffsetUpdateRequest& request) {
  controller::v1::RemoteLogStartOffsetUpdateResponse response;
  RunBrokerWrite(&response, request.broker_id(), request.broker_epoch(), [&](const MetadataImage& image) {
    return PlanRemoteLogStartOffset(image, request.broker_id(), request.log_start());
  });
  return response;
}

controller::v1::AssignReplicasToDirsResponse QuorumController::AssignReplicasToDirs(
    const controller::v1::AssignReplicasToDirsRequest& request) {
  controller::v1::AssignReplicasToDirsResponse response;
  RunWrite(&response,
           {.plan =
                [&](Writes& writes) {
                  return store_.WithImage([&](const MetadataImage& image) -> Outcome {
                    if (Outcome o = CheckBrokerEpoch(image, request.broker_id(), request.broker_epoch()); !o.ok()) {
                      return o;
                    }
                    // Every plan reads the same image: a partition named twice would get two
                    // changes made from one state, the later blind to the earlier.
                    std::set<std::pair<TopicId, int32_t>> named;
                    for (const auto& a : request.assignments()) {
                      auto* r = response.add_partitions();
                      r->set_topic_id(a.topic_id());
                      r->set_partition_id(a.partition_id());
                      Plan plan = named.emplace(a.topic_id(), a.partition_id()).second
                                      ? PlanAssignReplicaToDir(image, request.broker_id(), a)
                                      : Plan{{ErrorCode::kInvalidRequest, "partition named twice"}, {}};
                      SetOutcome(plan.outcome, r);
                      if (plan.outcome.ok() && !plan.records.empty()) {
                        writes.Add(response.partitions_size() - 1, std::move(plan.records));
                      }
                    }
                    return {};
                  });
                },
            .written =
                [&](const Outcome& o, const Writes& writes) {
                  // Only the assignments that had something to write fail with the write.
                  if (!o.ok()) {
                    for (int i : writes.items) SetOutcome(o, response.mutable_partitions(i));
                  }
                  response.set_controller_id(node_.id());
                }});
  return response;
}

controller::v1::AllocateProducerIdsResponse QuorumController::AllocateProducerIds(
    const controller::v1::AllocateProducerIdsRequest& request) {
  controller::v1::AllocateProducerIdsResponse response;
  int64_t next_producer_id = 0;
  RunWrite(&response,
           {.plan =
                [&](Writes& writes) {
                  // Caught up, the image holds every block handed out before, by any controller.
                  Plan plan = store_.WithImage([&](const MetadataImage& image) {
                    return PlanAllocateProducerIds(image, request.broker_id(), request.broker_epoch());
                  });
                  if (!plan.outcome.ok()) return plan.outcome;
                  next_producer_id = plan.records[0].producer_ids().next_producer_id();
                  writes.Add(std::move(plan.records));
                  return Outcome{};
                },
            .written =
                [&](const Outcome& o, const Writes&) {
                  SetOutcome(o, &response);
                  if (o.ok()) {
                    response.set_first_producer_id(next_producer_id - kProducerIdBlockSize);
                    response.set_length(kProducerIdBlockSize);
                    spdlog::info("broker {} (epoch {}) got producer ids {}..{}", request.broker_id(), request.broker_epoch(),
                                 response.first_producer_id(), response.first_producer_id() + response.length() - 1);
                  }
                  response.set_controller_id(node_.id());
                }});
  return response;
}

void QuorumController::RebalanceLeaders() {
  absl::MutexLock write(&write_mu_);
  if (!CatchUpLocked().ok()) return;
  Plan plan = store_.WithImage([&](const MetadataImage& image) { return PlanLeaderRebalance(image, options_.config); });
  if (!plan.outcome.ok() || plan.records.empty()) return;
  Outcome o = WriteLocked({plan.records});
  spdlog::info("leader imbalance above {}%: {} partitions back to their preferred leader: {}",
               options_.config.leader_imbalance_percentage, plan.records.size(), o.ok() ? "ok" : o.message);
}

QuorumController::SessionStreamOpened QuorumController::OpenSessionStream(
    const controller::v1::BrokerSessionRequest& request, std::function<void()> cancel) {
  SessionStreamOpened opened;
  if (RefuseIfNotActive(NotActive(), &opened.response)) return opened;
  BrokerId id = request.broker_id();
  std::vector<metadata::v1::BrokerEndpoint> listeners;
  Outcome o = store_.WithImage([&](const MetadataImage& image) -> Outcome {
    if (Outcome e = CheckRegistration(image, id, request.broker_epoch()); !e.ok()) return e;
    const auto& endpoints = image.brokers().at(id).registration().endpoints();
    listeners.assign(endpoints.begin(), endpoints.end());
    return {};
  });
  SetOutcome(o, &opened.response);
  opened.response.set_controller_id(node_.id());
  if (!o.ok()) return opened;
  BrokerSessionStreams::Stream stream;
  stream.broker = id;
  stream.broker_epoch = request.broker_epoch();
  stream.cancel = std::move(cancel);
  std::vector<std::string> reachable, unreachable;
  for (const metadata::v1::BrokerEndpoint& l : listeners) {
    bool accepted = false;
    for (const ProbeTarget& t : ResolveProbeTargets(l.host(), l.port())) {
      if (Probe(t, std::chrono::milliseconds(200)) != ProbeResult::kAccepted) continue;
      stream.targets.push_back(t);
      accepted = true;
    }
    (accepted ? reachable : unreachable).push_back(absl::StrCat(l.name(), " ", l.host(), ":", l.port()));
  }
  if (stream.targets.empty()) {
    spdlog::warn("broker {} opened its session stream (epoch {}), but none of its listeners accepts a connection from "
                 "here ({}): it is fenced only when its session times out",
                 id, request.broker_epoch(), absl::StrJoin(unreachable, ", "));
  } else {
    spdlog::info("broker {} opened its session stream (epoch {}); its process is checked at {}{}{}", id,
                 request.broker_epoch(), absl::StrJoin(reachable, ", "), unreachable.empty() ? "" : "; not at ",
                 absl::StrJoin(unreachable, ", "));
  }
  opened.token = session_streams_.Open(std::move(stream));
  return opened;
}

bool QuorumController::BrokerProcessGone(const BrokerSessionStreams::Stream& stream) {
  // A process that exits closes its connections and its listening sockets together, so
  // the first probe may still find a listener about to close: a few probes, 10 ms apart.
  constexpr int kProbes = 5;
  int refused_in_a_row = 0;
  for (int i = 0; i < kProbes; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));  // pacing between probes
    if (session_streams_.Has(stream.broker)) return false;                  // it opened a new stream: alive
    bool accepted = false, refused = true;
    for (const ProbeTarget& t : stream.targets) {
      ProbeResult r = Probe(t, std::chrono::milliseconds(100));
      accepted |= r == ProbeResult::kAccepted;
      refused &= r == ProbeResult::kRefused;
    }
    if (accepted) {
      refused_in_a_row = 0;
    } else if (!refused) {
      return false;  // a listener did not answer: maybe a partition, which the session timeout bounds
    } else if (++refused_in_a_row == 2) {
      return true;
    }
  }
  return false;
}

void QuorumController::SessionStreamEnded(uint64_t token, bool broken) {
  std::optional<BrokerSessionStreams::Stream> stream = session_streams_.Ended(token);
  if (!stream) return;  // superseded, or ended from here
  BrokerId id = stream->broker;
  if (!broken) {
    spdlog::info("broker {} closed its session stream (epoch {})", id, stream->broker_epoch);
    return;
  }
  if (stream->targets.empty() || !BrokerProcessGone(*stream)) {
    spdlog::info("broker {}'s session stream (epoch {}) broke, but its process is not known to be gone: it keeps its "
                 "session until it times out",
                 id, stream->broker_epoch);
    return;
  }
  FenceBroker(id, stream->broker_epoch,
              "lost its session stream and its listeners refuse connections (the process is gone): fenced without "
              "waiting for its session");
}

void QuorumController::FenceBroker(BrokerId id, int64_t broker_epoch, absl::string_view why) {
  absl::MutexLock write(&write_mu_);
  if (NotActive() || !CatchUpLocked().ok()) return;
  Plan plan = store_.WithImage([&](const MetadataImage& image) {
    auto it = image.brokers().find(id);
    bool current = it != image.brokers().end() && !it->second.fenced() &&
                   it->second.registration().broker_epoch() == broker_epoch;
    return current ? PlanFenceBroker(image, id, options_.config) : Plan{};
  });
  if (!plan.outcome.ok() || plan.records.empty()) return;
  Outcome o = WriteLocked({plan.records});
  spdlog::info("broker {} {}, {} partition changes: {}", id, why, plan.records.size() - 1, o.ok() ? "ok" : o.message);
}

void QuorumController::SessionLoop() {
  sessions_mu_.Lock();  // released around the fencing writes below
  while (!stopping_) {
    // A tenth of the session (at most 100 ms, at least 10): an expired session is fenced
    // within 10% of its timeout, which is most of a leader failover.
    auto tick = std::clamp(options_.session_timeout / 10, std::chrono::milliseconds(10), std::chrono::milliseconds(100));
    sessions_mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(tick));
    if (stopping_) break;
    raft::RaftNodeStatus st = node_.status();
    if (st.stopped || st.role != raft::Role::kLeader) {
      session_streams_.CancelAll();  // the brokers open theirs with the new active controller
      continue;
    }
    auto now = Clock::now();
    if (st.term != sessions_term_) {
      // A new active controller gives every broker a full session before fencing it.
      sessions_term_ = st.term;
      last_heartbeat_.clear();
      next_leader_rebalance_ = now + options_.leader_imbalance_check_interval;
    }
    struct Seen {
      BrokerId id;
      int64_t broker_epoch;
      bool fenced;
    };
    std::vector<Seen> brokers;
    store_.WithImage([&](const MetadataImage& image) {
      for (const auto& [id, b] : image.brokers()) brokers.push_back({id, b.registration().broker_epoch(), b.fenced()});
      return 0;
    });
    std::vector<std::pair<BrokerId, int64_t>> expired;  // (id, the registration whose session expired)
    for (const Seen& b : brokers) {
      auto it = last_heartbeat_.try_emplace(b.id, now).first;
      if (!b.fenced && now - it->second > options_.session_timeout) expired.emplace_back(b.id, b.broker_epoch);
    }
    const bool rebalance = options_.config.auto_leader_rebalance && now >= next_leader_rebalance_;
    if (rebalance) next_leader_rebalance_ = now + options_.leader_imbalance_check_interval;
    if (expired.empty() && !rebalance) continue;
    sessions_mu_.Unlock();
    for (const auto& [id, broker_epoch] : expired) {
      FenceBroker(id, broker_epoch, absl::StrCat("missed its session (", options_.session_timeout.count(), " ms): fenced"));
    }
    if (rebalance) RebalanceLeaders();
    sessions_mu_.Lock();
  }
  sessions_mu_.Unlock();
}

}  // namespace strata::controller
