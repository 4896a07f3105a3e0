#include "controller/cluster_control.h"

#include <algorithm>
#include <limits>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "controller/feature_control.h"
#include "controller/features.h"
#include "controller/partition_election.h"
#include "controller/placement.h"
#include "controller/reassignment.h"
#include "controller/broker_config.h"
#include "controller/topic_config.h"
#include "controller/topic_name.h"
#include "storage/log_config.h"

namespace strata::controller {
namespace {

Plan Fail(ErrorCode code, std::string message) { return Plan{{code, std::move(message)}, {}}; }

bool Usable(const pb::BrokerState& b) { return !b.fenced() && !b.in_controlled_shutdown(); }

bool TopicAllowsUnclean(const MetadataImage& image, const std::string& topic, const ControllerConfig& config) {
  if (auto v = image.DynamicTopicConfig(topic, "unclean.leader.election.enable", /*broker_id=*/-1)) return *v == "true";
  return config.unclean_leader_election;
}

pb::MetadataRecord Wrap(pb::PartitionChange change) {
  pb::MetadataRecord r;
  *r.mutable_partition_change() = std::move(change);
  return r;
}

// The directory of a replica whose log dir the controller does not know (Kafka's
// DirectoryId.UNASSIGNED), in a partition whose other replicas' dirs are known: empty,
// which a broker reads as "any online dir" (as it reads a partition without directories)
// and which no heartbeat reports offline.
constexpr char kUnknownDir[] = "";

// The partition records for an assignment: the replicas on usable brokers form the ISR
// and the first of them leads (an explicit assignment may name fenced brokers, as in
// Kafka); log dirs are chosen round robin among each broker's online dirs.
// INVALID_REPLICA_ASSIGNMENT when no replica of a partition is on a usable broker.
Outcome AddPartitions(const MetadataImage& image, const TopicId& id, const ReplicaAssignment& assignment,
                      std::vector<pb::MetadataRecord>* out) {
  for (const auto& [partition, replicas] : assignment) {
    pb::MetadataRecord r;
    pb::Partition* p = r.mutable_partition();
    p->set_topic_id(id);
    p->set_partition_id(partition);
    bool dirs_known = true;
    for (BrokerId b : replicas) {
      p->add_replicas(b);
      auto broker = image.brokers().find(b);
      if (broker != image.brokers().end() && Usable(broker->second)) p->add_isr(b);
      if (std::optional<std::string> dir = LogDirFor(image, b, partition)) {
        p->add_directories(*dir);
      } else {
        dirs_known = false;
      }
    }
    if (!dirs_known) p->clear_directories();
    if (p->isr().empty()) {
      return {ErrorCode::kInvalidReplicaAssignment,
              absl::StrCat("every broker assigned to partition ", partition, " is fenced or shutting down")};
    }
    p->set_leader(p->isr(0));
    out->push_back(std::move(r));
  }
  return {};
}

std::vector<PlacementBroker> PlacementBrokers(const MetadataImage& image) {
  std::vector<PlacementBroker> out;
  for (const auto& [id, b] : image.brokers()) {
    if (!Usable(b)) continue;
    PlacementBroker pb_broker;
    pb_broker.id = id;
    if (!b.registration().rack().empty()) pb_broker.rack = b.registration().rack();
    out.push_back(pb_broker);
  }
  return out;
}

std::map<int32_t, BrokerLoad> Loads(const MetadataImage& image) {
  std::map<int32_t, BrokerLoad> load;
  for (const auto& [id, t] : image.topics()) {
    for (const auto& [pid, p] : t.partitions) {
      for (BrokerId b : p.replicas()) ++load[b].replicas;
      if (!p.replicas().empty()) ++load[p.replicas(0)].leaders;
    }
  }
  return load;
}

std::set<int32_t> KnownBrokers(const MetadataImage& image) {
  std::set<int32_t> ids;
  for (const auto& [id, b] : image.brokers()) ids.insert(id);
  return ids;
}

// Elections for every partition with a replica on `broker`, with availability as the
// image would have it after `assume` (the broker fenced, shut down, ...). Unclean
// elections happen where the topic (or the cluster default) allows them, and only when
// `allow_unclean`.
void ElectAround(const MetadataImage& image, BrokerId broker, const ControllerConfig& config,
                 const std::function<bool(const pb::Partition&, BrokerId, int)>& available,
                 std::vector<pb::MetadataRecord>* out, bool allow_unclean = true) {
  for (const auto& [id, t] : image.topics()) {
    bool unclean = allow_unclean && TopicAllowsUnclean(image, t.name, config);
    for (const auto& [pid, p] : t.partitions) {
      if (std::find(p.replicas().begin(), p.replicas().end(), broker) == p.replicas().end()) continue;
      auto change = ElectAfterUnavailability(
          p, [&, &p = p](BrokerId b, int index) { return available(p, b, index); }, unclean);
      if (change) out->push_back(Wrap(std::move(*change)));
    }
  }
}

}  // namespace


Plan PlanCreateTopic(const MetadataImage& image, const admin::v1::CreateTopicsRequest::Topic& topic,
                     const ControllerConfig& config, const TopicId& new_id, const std::set<std::string>& taken) {
  if (absl::Status s = ValidateTopicName(topic.name()); !s.ok()) {
    return Fail(ErrorCode::kInvalidTopicException, std::string(s.message()));
  }
  if (image.FindTopic(topic.name()) != nullptr || taken.count(topic.name())) {
    return Fail(ErrorCode::kTopicAlreadyExists, absl::StrCat("topic '", topic.name(), "' already exists"));
  }
  for (const auto& [id, t] : image.topics()) {
    if (TopicNamesCollide(t.name, topic.name())) {
      return Fail(ErrorCode::kInvalidTopicException,
                  absl::StrCat("topic '", topic.name(), "' collides with existing topic '", t.name,
                               "' ('.' and '_' are treated alike)"));
    }
  }
  std::map<std::string, std::string> configs(topic.configs().begin(), topic.configs().end());
  if (absl::Status s = ValidateTopicConfigs(configs); !s.ok()) {
    return Fail(ErrorCode::kInvalidConfig, std::string(s.message()));
  }
  if (absl::Status s = ValidateTopicConfigsTogether(configs, config.remote_storage_system_enable); !s.ok()) {
    return Fail(ErrorCode::kInvalidConfig, std::string(s.message()));
  }
  ReplicaAssignment assignment;
  if (!topic.assignments().empty()) {
    if (topic.num_partitions() != -1 || topic.replication_factor() != -1) {
      return Fail(ErrorCode::kInvalidRequest,
                  "num_partitions and replication_factor must be -1 when an assignment is given");
    }
    for (const auto& a : topic.assignments()) {
      if (assignment.count(a.partition_id())) {
        return Fail(ErrorCode::kInvalidReplicaAssignment, absl::StrCat("partition ", a.partition_id(), " is assigned twice"));
      }
      assignment[a.partition_id()] = {a.broker_ids().begin(), a.broker_ids().end()};
    }
    if (absl::Status s = ValidateReplicaAssignment(assignment, KnownBrokers(image)); !s.ok()) {
      return Fail(ErrorCode::kInvalidReplicaAssignment, std::string(s.message()));
    }
  } else {
    int32_t partitions = topic.num_partitions() == -1 ? config.default_partitions : topic.num_partitions();
    int32_t rf = topic.replication_factor() == -1 ? config.default_replication_factor : topic.replication_factor();
    if (partitions < 1) return Fail(ErrorCode::kInvalidPartitions, absl::StrCat("partition count ", partitions, " must be at least 1"));
    if (rf < 1) return Fail(ErrorCode::kInvalidReplicationFactor, absl::StrCat("replication factor ", rf, " must be at least 1"));
    PlacementRequest request;
    request.brokers = PlacementBrokers(image);
    request.partition_count = partitions;
    request.replication_factor = rf;
    request.existing_load = Loads(image);
    auto placed = PlaceReplicas(request);
    if (!placed.ok()) return Fail(ErrorCode::kInvalidReplicationFactor, std::string(placed.status().message()));
    assignment = std::move(*placed);
  }
  Plan plan;
  pb::MetadataRecord t;
  t.mutable_topic()->set_name(topic.name());
  t.mutable_topic()->set_topic_id(new_id);
  plan.records.push_back(std::move(t));
  if (Outcome o = AddPartitions(image, new_id, assignment, &plan.records); !o.ok()) return Fail(o.code, o.message);
  for (const auto& [name, value] : configs) {
    pb::MetadataRecord c;
    c.mutable_config()->set_resource_type(pb::Config::TOPIC);
    c.mutable_config()->set_resource_name(topic.name());
    c.mutable_config()->set_name(name);
    c.mutable_config()->set_value(value);
    plan.records.push_back(std::move(c));
  }
  return plan;
}

Plan PlanDeleteTopic(const MetadataImage& image, const std::string& name, const ControllerConfig& config) {
  if (!config.delete_topic_enable) return Fail(ErrorCode::kTopicDeletionDisabled, "topic deletion is disabled (delete.topic.enable=false)");
  const TopicState* t = image.FindTopic(name);
  if (t == nullptr) return Fail(ErrorCode::kUnknownTopicOrPartition, absl::StrCat("topic '", name, "' does not exist"));
  Plan plan;
  pb::MetadataRecord r;
  r.mutable_remove_topic()->set_topic_id(t->id);
  plan.records.push_back(std::move(r));
  return plan;
}

Plan PlanCreatePartitions(const MetadataImage& image, const admin::v1::CreatePartitionsRequest::Topic& topic) {
  const TopicState* t = image.FindTopic(topic.name());
  if (t == nullptr) return Fail(ErrorCode::kUnknownTopicOrPartition, absl::StrCat("topic '", topic.name(), "' does not exist"));
  int32_t current = static_cast<int32_t>(t->partitions.size());
  if (topic.count() <= current) {
    return Fail(ErrorCode::kInvalidPartitions, absl::StrCat("topic '", topic.name(), "' has ", current,
                                                            " partitions; the new count ", topic.count(), " must be larger"));
  }
  int32_t rf = t->partitions.empty() ? 1 : t->partitions.begin()->second.replicas_size();
  ReplicaAssignment assignment;
  if (!topic.assignments().empty()) {
    for (const auto& a : topic.assignments()) assignment[a.partition_id()] = {a.broker_ids().begin(), a.broker_ids().end()};
    if (static_cast<int32_t>(assignment.size()) != topic.count() - current ||
        assignment.begin()->first != current) {
      return Fail(ErrorCode::kInvalidReplicaAssignment,
                  absl::StrCat("the assignment must name partitions ", current, "..", topic.count() - 1));
    }
    if (absl::Status s = ValidateReplicaAssignment(assignment, KnownBrokers(image), current); !s.ok()) {
      return Fail(ErrorCode::kInvalidReplicaAssignment, std::string(s.message()));
    }
    if (!t->partitions.empty() && static_cast<int32_t>(assignment.begin()->second.size()) != rf) {
      return Fail(ErrorCode::kInvalidReplicaAssignment,
                  absl::StrCat("the new partitions are assigned ", assignment.begin()->second.size(),
                               " replicas each but the topic's partitions have ", rf));
    }
  } else {
    PlacementRequest request;
    request.brokers = PlacementBrokers(image);
    request.partition_count = topic.count() - current;
    request.replication_factor = rf;
    request.first_partition_id = current;
    request.existing_load = Loads(image);
    auto placed = PlaceReplicas(request);
    if (!placed.ok()) return Fail(ErrorCode::kInvalidReplicationFactor, std::string(placed.status().message()));
    assignment = std::move(*placed);
  }
  Plan plan;
  if (Outcome o = AddPartitions(image, t->id, assignment, &plan.records); !o.ok()) return Fail(o.code, o.message);
  return plan;
}

namespace {

// The values of a comma-separated list, trimmed, empty ones left out.
std::vector<std::string> ListValues(absl::string_view list) {
  std::vector<std::string> out;
  for (absl::string_view v : absl::StrSplit(list, ',')) {
    v = absl::StripAsciiWhitespace(v);
    if (!v.empty()) out.emplace_back(v);
  }
  return out;
}

// APPEND / SUBTRACT on a list-valued topic config: the new value from `current`.
std::string ApplyListOp(const admin::v1::AlterConfigsRequest::Op& op, const std::string& current) {
  std::vector<std::string> values = ListValues(current);
  for (const std::string& v : ListValues(op.value())) {
    auto at = std::find(values.begin(), values.end(), v);
    if (op.operation() == admin::v1::AlterConfigsRequest::Op::APPEND) {
      if (at == values.end()) values.push_back(v);
    } else if (at != values.end()) {
      values.erase(at);
    }
  }
  return absl::StrJoin(values, ",");
}

}  // namespace

Plan PlanAlterConfigs(const MetadataImage& image, const admin::v1::AlterConfigsRequest::Resource& resource,
                      const ControllerConfig& config) {
  using Op = admin::v1::AlterConfigsRequest::Op;
  const auto& r = resource.resource();
  const bool topic = r.type() == admin::v1::ConfigResource::TOPIC;
  if (topic) {
    if (image.FindTopic(r.name()) == nullptr) {
      return Fail(ErrorCode::kUnknownTopicOrPartition, absl::StrCat("topic '", r.name(), "' does not exist"));
    }
  } else if (r.type() != admin::v1::ConfigResource::BROKER) {
    return Fail(ErrorCode::kInvalidRequest, "only TOPIC and BROKER configs can be altered");
  }
  const pb::Config::ResourceType type = topic ? pb::Config::TOPIC : pb::Config::BROKER;
  std::map<std::string, std::string> before;
  if (auto it = image.configs().find({type, r.name()}); it != image.configs().end()) before = it->second;
  // The resource's dynamic configs as they will stand: nullopt for one removed.
  std::map<std::string, std::optional<std::string>> changes;
  for (const Op& op : resource.ops()) {
    if (op.name().empty()) return Fail(ErrorCode::kInvalidConfig, "a config name is empty");
    if (changes.count(op.name())) {
      return Fail(ErrorCode::kInvalidRequest, absl::StrCat("config '", op.name(), "' is named more than once"));
    }
    const bool remove = op.remove() || op.operation() == Op::DELETE;
    std::optional<std::string> value = op.value();
    if (remove) {
      value = std::nullopt;
    } else if (op.operation() == Op::APPEND || op.operation() == Op::SUBTRACT) {
      const storage::TopicSetting* setting = topic ? storage::FindTopicSetting(op.name()) : nullptr;
      if (setting == nullptr || setting->type != storage::TopicSetting::Type::kList) {
        return Fail(ErrorCode::kInvalidConfig,
                    absl::StrCat(op.operation() == Op::APPEND ? "APPEND" : "SUBTRACT", " needs a list-valued topic "
                                 "config; '", op.name(), "' is ", setting == nullptr ? "not one" : setting->type_name()));
      }
      auto current = before.find(op.name());
      value = ApplyListOp(op, current != before.end() ? current->second : setting->default_value);
    } else if (op.operation() != Op::SET) {
      return Fail(ErrorCode::kInvalidRequest, absl::StrCat("unknown config operation ", op.operation()));
    }
    if (value) {
      absl::Status s = topic ? ValidateTopicConfig(op.name(), *value) : ValidateBrokerConfig(op.name(), *value);
      if (!s.ok()) return Fail(ErrorCode::kInvalidConfig, std::string(s.message()));
    }
    changes[op.name()] = value;
  }
  if (resource.replace()) {
    for (const auto& [name, value] : before) changes.try_emplace(name, std::nullopt);
  }
  std::map<std::string, std::string> after = before;
  Plan plan;
  for (const auto& [name, value] : changes) {
    if (value) {
      after[name] = *value;
    } else {
      after.erase(name);
    }
    pb::MetadataRecord c;
    c.mutable_config()->set_resource_type(type);
    c.mutable_config()->set_resource_name(r.name());
    c.mutable_config()->set_name(name);
    if (value) c.mutable_config()->set_value(*value);
    plan.records.push_back(std::move(c));
  }
  if (topic) {
    if (absl::Status s = ValidateTopicConfigsTogether(after, config.remote_storage_system_enable); !s.ok()) {
      return Fail(ErrorCode::kInvalidConfig, std::string(s.message()));
    }
    auto on = [](const std::map<std::string, std::string>& c) {
      auto it = c.find("remote.storage.enable");
      return it != c.end() && it->second == "true";
    };
    if (on(before) && !on(after)) {
      return Fail(ErrorCode::kInvalidConfig,
                  "remote.storage.enable cannot be turned off once on (the remote tier holds the topic's oldest "
                  "records)");
    }
  }
  return plan;
}

Plan PlanElectLeader(const MetadataImage& image, const TopicState& topic, const pb::Partition& p,
                     admin::v1::ElectLeadersRequest::ElectionType type) {
  auto available = [&](BrokerId b, int index) { return ReplicaAvailable(image, p, b, index); };
  std::optional<pb::PartitionChange> change;
  if (type != admin::v1::ElectLeadersRequest::PREFERRED && type != admin::v1::ElectLeadersRequest::UNCLEAN) {
    // An open enum: a newer client's type must not be taken for an unclean election.
    return Fail(ErrorCode::kInvalidRequest, absl::StrCat("unknown election type ", static_cast<int>(type)));
  }
  if (type == admin::v1::ElectLeadersRequest::PREFERRED) {
    if (!p.replicas().empty() && p.leader() == p.replicas(0)) {
      return Fail(ErrorCode::kElectionNotNeeded, "the preferred replica leads already");
    }
    change = ElectPreferred(p, available);
    if (!change) {
      return Fail(ErrorCode::kPreferredLeaderNotAvailable,
                  absl::StrCat("preferred replica ", p.replicas_size() ? p.replicas(0) : -1,
                               " is not available or not in the ISR"));
    }
  } else {
    if (p.leader() != kNoLeader && available(p.leader(), -1)) {
      return Fail(ErrorCode::kElectionNotNeeded, "the partition has a live leader");
    }
    change = ElectAfterUnavailability(p, available, /*unclean=*/true);
    if (!change || !change->has_leader() || change->leader() == kNoLeader) {
      return Fail(ErrorCode::kEligibleLeadersNotAvailable, "no replica is available to lead");
    }
  }
  Plan plan;
  plan.records.push_back(Wrap(std::move(*change)));
  return plan;
}

Plan PlanLeaderRebalance(const MetadataImage& image, const ControllerConfig& config) {
  Plan plan;
  if (!config.auto_leader_rebalance) return plan;
  std::map<BrokerId, std::pair<int64_t, int64_t>> preferred;  // broker -> (partitions it prefers, not led by it)
  for (const auto& [id, t] : image.topics()) {
    for (const auto& [pid, p] : t.partitions) {
      if (p.replicas().empty()) continue;
      auto& [prefers, not_led] = preferred[p.replicas(0)];
      ++prefers;
      if (p.leader() != p.replicas(0)) ++not_led;
    }
  }
  for (const auto& [id, t] : image.topics()) {
    for (const auto& [pid, p] : t.partitions) {
      if (p.replicas().empty() || p.leader() == p.replicas(0)) continue;
      const auto& [prefers, not_led] = preferred[p.replicas(0)];
      if (not_led * 100 <= int64_t{config.leader_imbalance_percentage} * prefers) continue;
      const pb::Partition& partition = p;  // (clang 14 cannot capture a binding)
      auto available = [&](BrokerId b, int index) { return ReplicaAvailable(image, partition, b, index); };
      if (std::optional<pb::PartitionChange> change = ElectPreferred(p, available)) {
        plan.records.push_back(Wrap(std::move(*change)));
      }
    }
  }
  return plan;
}

Plan PlanRegisterBroker(const MetadataImage& image, const controller::v1::BrokerRegistrationRequest& request,
                        int64_t new_epoch) {
  if (request.broker_id() < 0) return Fail(ErrorCode::kInvalidRequest, "broker id must not be negative");
  if (request.incarnation_id().size() != 16) return Fail(ErrorCode::kInvalidRequest, "incarnation id must be 16 bytes");
  auto it = image.brokers().find(request.broker_id());
  if (it != image.brokers().end() && !it->second.fenced() &&
      it->second.registration().incarnation_id() != request.incarnation_id()) {
    // A live broker with this id: a second process with the same node.id, or a restart
    // before the session ran out. Kafka refuses until the old one is fenced.
    return Fail(ErrorCode::kDuplicateBrokerRegistration,
                absl::StrCat("broker ", request.broker_id(), " is registered and unfenced with another incarnation"));
  }
  for (const auto& [name, level] : image.finalized_features()) {
    int32_t supported = MaxSupportedLevel(request.supported_features(), name);
    if (supported < level) {
      return Fail(ErrorCode::kUnsupportedVersion, absl::StrCat("broker ", request.broker_id(), " supports ", name, " up to ",
                                                               supported, "; the cluster runs level ", level));
    }
  }
  Plan plan;
  pb::MetadataRecord r;
  auto* reg = r.mutable_register_broker();
  reg->set_broker_id(request.broker_id());
  reg->set_incarnation_id(request.incarnation_id());
  reg->set_broker_epoch(new_epoch);
  *reg->mutable_endpoints() = request.listeners();
  reg->set_rack(request.rack());
  reg->set_fenced(true);
  *reg->mutable_log_dirs() = request.log_dirs();
  *reg->mutable_supported_features() = request.supported_features();
  plan.records.push_back(std::move(r));
  FinalizeFeatures(image, request, &plan.records);
  return plan;
}

Plan PlanFenceBroker(const MetadataImage& image, BrokerId broker, const ControllerConfig& config) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  Plan plan;
  if (!it->second.fenced()) {
    pb::MetadataRecord f;
    f.mutable_fence_broker()->set_broker_id(broker);
    f.mutable_fence_broker()->set_broker_epoch(it->second.registration().broker_epoch());
    plan.records.push_back(std::move(f));
  }
  ElectAround(image, broker, config,
              [&](const pb::Partition& p, BrokerId b, int index) { return b != broker && ReplicaAvailable(image, p, b, index); },
              &plan.records);
  return plan;
}

Plan PlanUnregisterBroker(const MetadataImage& image, BrokerId broker, const ControllerConfig& config) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  // As Kafka's controller: the broker leaves the ISRs (leaderships move) first, then the
  // registration goes. Its replicas stay in the replica lists, offline, as with Kafka.
  Plan plan;
  ElectAround(image, broker, config,
              [&](const pb::Partition& p, BrokerId b, int index) { return b != broker && ReplicaAvailable(image, p, b, index); },
              &plan.records);
  pb::MetadataRecord u;
  u.mutable_unregister_broker()->set_broker_id(broker);
  u.mutable_unregister_broker()->set_broker_epoch(it->second.registration().broker_epoch());
  plan.records.push_back(std::move(u));
  return plan;
}

Plan PlanUnfenceBroker(const MetadataImage& image, BrokerId broker, const ControllerConfig& config) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  Plan plan;
  if (!it->second.fenced()) return plan;
  pb::MetadataRecord u;
  u.mutable_unfence_broker()->set_broker_id(broker);
  u.mutable_unfence_broker()->set_broker_epoch(it->second.registration().broker_epoch());
  plan.records.push_back(std::move(u));
  // Leaderless partitions it holds may lead again (clean: it must be in the ISR).
  for (const auto& [id, t] : image.topics()) {
    bool unclean = TopicAllowsUnclean(image, t.name, config);
    for (const auto& [pid, p] : t.partitions) {
      if (p.leader() != kNoLeader) continue;
      if (std::find(p.replicas().begin(), p.replicas().end(), broker) == p.replicas().end()) continue;
      // The broker as the image will have it once unfenced: only its offline dirs hold
      // a replica back.
      auto available = [&, &p = p](BrokerId b, int index) {  // (clang 14 cannot capture a binding)
        if (b != broker) return ReplicaAvailable(image, p, b, index);
        const auto& offline = it->second.offline_log_dirs();
        return index < 0 || index >= p.directories_size() ||
               std::find(offline.begin(), offline.end(), p.directories(index)) == offline.end();
      };
      auto change = ElectOfflinePartition(p, available, unclean);
      if (change) plan.records.push_back(Wrap(std::move(*change)));
    }
  }
  return plan;
}

Plan PlanControlledShutdown(const MetadataImage& image, BrokerId broker, const ControllerConfig& config) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  Plan plan;
  if (!it->second.in_controlled_shutdown()) {
    pb::MetadataRecord c;
    c.mutable_broker_registration_change()->set_broker_id(broker);
    c.mutable_broker_registration_change()->set_broker_epoch(it->second.registration().broker_epoch());
    c.mutable_broker_registration_change()->set_in_controlled_shutdown(true);
    plan.records.push_back(std::move(c));
  }
  // As in Kafka: leadership moves to another in-sync replica, never uncleanly (whatever
  // unclean.leader.election.enable says); a partition with no other in-sync replica
  // becomes leaderless (its ISR keeps the broker) and gets it back when it returns.
  // The broker may stop once it leads nothing.
  ElectAround(image, broker, config,
              [&](const pb::Partition& p, BrokerId b, int index) { return b != broker && ReplicaAvailable(image, p, b, index); },
              &plan.records, /*allow_unclean=*/false);
  return plan;
}

Plan PlanOfflineLogDirs(const MetadataImage& image, BrokerId broker, const std::vector<std::string>& dirs,
                        const ControllerConfig& config) {
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  std::set<std::string> offline(it->second.offline_log_dirs().begin(), it->second.offline_log_dirs().end());
  std::vector<std::string> fresh;
  for (const std::string& d : dirs) {
    if (offline.insert(d).second) fresh.push_back(d);
  }
  Plan plan;
  if (fresh.empty()) return plan;
  pb::MetadataRecord c;
  c.mutable_broker_registration_change()->set_broker_id(broker);
  c.mutable_broker_registration_change()->set_broker_epoch(it->second.registration().broker_epoch());
  for (const std::string& d : fresh) c.mutable_broker_registration_change()->add_offline_log_dirs(d);
  plan.records.push_back(std::move(c));
  ElectAround(image, broker, config,
              [&](const pb::Partition& p, BrokerId b, int index) {
                if (b == broker && index >= 0 && index < p.directories_size() && offline.count(p.directories(index))) {
                  return false;
                }
                return ReplicaAvailable(image, p, b, index);
              },
              &plan.records);
  return plan;
}

Plan PlanAlterPartition(const MetadataImage& image, BrokerId leader,
                        const controller::v1::AlterPartitionRequest::Partition& request) {
  const pb::Partition* p = image.FindPartition(request.topic_id(), request.partition_id());
  if (p == nullptr) return Fail(ErrorCode::kUnknownTopicOrPartition, "unknown partition");
  if (p->leader() != leader) {
    return Fail(ErrorCode::kNotLeaderOrFollower, absl::StrCat("broker ", leader, " does not lead; ", p->leader(), " does"));
  }
  if (request.leader_epoch() != p->leader_epoch()) {
    return Fail(ErrorCode::kFencedLeaderEpoch,
                absl::StrCat("leader epoch ", request.leader_epoch(), " is not the current ", p->leader_epoch()));
  }
  if (request.partition_epoch() != p->partition_epoch()) {
    return Fail(ErrorCode::kInvalidUpdateVersion,
                absl::StrCat("partition epoch ", request.partition_epoch(), " is not the current ", p->partition_epoch()));
  }
  std::set<BrokerId> isr(request.new_isr().begin(), request.new_isr().end());
  if (isr.size() != static_cast<size_t>(request.new_isr_size()) || !isr.count(leader)) {
    return Fail(ErrorCode::kInvalidRequest, "the new ISR must be distinct and hold the leader");
  }
  const bool epochs_given = request.new_isr_broker_epochs_size() == request.new_isr_size();
  for (int n = 0; n < request.new_isr_size(); ++n) {
    const BrokerId b = request.new_isr(n);
    int index = -1;
    for (int i = 0; i < p->replicas_size(); ++i) {
      if (p->replicas(i) == b) index = i;
    }
    if (index < 0) return Fail(ErrorCode::kInvalidRequest, absl::StrCat("broker ", b, " is not a replica"));
    bool already = std::find(p->isr().begin(), p->isr().end(), b) != p->isr().end();
    if (already) continue;
    if (!ReplicaAvailable(image, *p, b, index)) {
      return Fail(ErrorCode::kIneligibleReplica, absl::StrCat("replica ", b, " is fenced, shutting down or offline"));
    }
    // KIP-903: the leader counted the fetches of another process of that broker.
    auto broker = image.brokers().find(b);
    const int64_t counted = epochs_given ? request.new_isr_broker_epochs(n) : -1;
    if (counted >= 0 && broker != image.brokers().end() && broker->second.registration().broker_epoch() != counted) {
      return Fail(ErrorCode::kIneligibleReplica,
                  absl::StrCat("replica ", b, " was counted in broker epoch ", counted, "; its broker is in epoch ",
                               broker->second.registration().broker_epoch(), " (it restarted)"));
    }
  }
  pb::PartitionChange change;
  change.set_topic_id(p->topic_id());
  change.set_partition_id(p->partition_id());
  for (BrokerId b : request.new_isr()) change.mutable_isr()->add_ids(b);
  // The ISR that takes in the last replica a reassignment adds completes it.
  pb::Partition next = *p;
  *next.mutable_isr() = request.new_isr();
  if (auto completed = CompleteReassignment(image, *p, next)) change = std::move(*completed);
  Plan plan;
  plan.records.push_back(Wrap(std::move(change)));
  return plan;
}

Plan PlanAssignReplicaToDir(const MetadataImage& image, BrokerId broker,
                            const controller::v1::AssignReplicasToDirsRequest::Assignment& a) {
  auto registered = image.brokers().find(broker);
  if (registered == image.brokers().end()) {
    return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  }
  const TopicState* t = image.FindTopicById(a.topic_id());
  if (t == nullptr) return Fail(ErrorCode::kUnknownTopicId, absl::StrCat("no topic has id ", TopicIdToString(a.topic_id())));
  const std::string name = absl::StrCat(t->name, "-", a.partition_id());
  const pb::Partition* p = image.FindPartition(a.topic_id(), a.partition_id());
  if (p == nullptr) return Fail(ErrorCode::kUnknownTopicOrPartition, absl::StrCat("partition ", name, " does not exist"));
  const auto replica = std::find(p->replicas().begin(), p->replicas().end(), broker);
  if (replica == p->replicas().end()) {
    // Kafka's answer for a partition the broker does not host (a reassignment moved it
    // away since): no error code says "not a replica" more closely; NOT_LEADER_OR_FOLLOWER
    // is what a broker answers for a partition it is neither leader nor follower of.
    return Fail(ErrorCode::kNotLeaderOrFollower, absl::StrCat("broker ", broker, " is not a replica of ", name));
  }
  const std::string& dir = a.directory_id();
  if (dir.size() != 16) {
    return Fail(ErrorCode::kInvalidRequest,
                absl::StrCat("the directory id for ", name, " has ", dir.size(), " bytes, not 16"));
  }
  const auto& dirs = registered->second.registration().log_dirs();
  if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) {
    return Fail(ErrorCode::kInvalidRequest, absl::StrCat("directory ", TopicIdToString(dir), " is not a log dir broker ",
                                                         broker, " registered"));
  }
  const auto& offline = registered->second.offline_log_dirs();
  if (std::find(offline.begin(), offline.end(), dir) != offline.end()) {
    return Fail(ErrorCode::kKafkaStorageError,
                absl::StrCat("log dir ", TopicIdToString(dir), " of broker ", broker, " is offline"));
  }
  const int index = static_cast<int>(replica - p->replicas().begin());
  if (index < p->directories_size() && p->directories(index) == dir) return Plan{};  // there already
  pb::Partition next = *p;
  if (next.directories_size() == 0) {
    for (int i = 0; i < next.replicas_size(); ++i) next.add_directories(kUnknownDir);
  }
  ABSL_CHECK_EQ(next.directories_size(), next.replicas_size());  // the image keeps one per replica, or none
  next.set_directories(index, dir);
  Plan plan;
  plan.records.push_back(Wrap(ChangeBetween(*p, next)));  // the directories alone differ
  return plan;
}

Plan PlanRemoteLogSegment(const MetadataImage& image, BrokerId leader, const pb::RemoteLogSegment& segment) {
  const TopicState* t = image.FindTopicById(segment.topic_id());
  const pb::Partition* p = image.FindPartition(segment.topic_id(), segment.partition_id());
  if (t == nullptr || p == nullptr) return Fail(ErrorCode::kUnknownTopicOrPartition, "unknown partition");
  if (segment.broker_id() != leader || p->leader() != leader) {
    return Fail(ErrorCode::kNotLeaderOrFollower, absl::StrCat("broker ", leader, " does not lead; ", p->leader(), " does"));
  }
  if (segment.leader_epoch() != p->leader_epoch()) {
    return Fail(segment.leader_epoch() < p->leader_epoch() ? ErrorCode::kFencedLeaderEpoch : ErrorCode::kUnknownLeaderEpoch,
                absl::StrCat("leader epoch ", segment.leader_epoch(), " is not the current ", p->leader_epoch()));
  }
  // The image's own rules, on a copy: what it would refuse is refused here, with its words.
  const RemoteLogSegments* current = image.FindRemoteSegments(segment.topic_id(), segment.partition_id());
  RemoteLogSegments trial = current != nullptr ? *current : RemoteLogSegments();
  absl::Status fits = trial.Apply(segment, *p, absl::StrCat(t->name, "-", segment.partition_id()));
  if (!fits.ok()) return Fail(ErrorCode::kInvalidRequest, std::string(fits.message()));
  Plan plan;
  pb::MetadataRecord r;
  *r.mutable_remote_log_segment() = segment;
  plan.records.push_back(std::move(r));
  return plan;
}

Plan PlanRemoteLogStartOffset(const MetadataImage& image, BrokerId leader, const pb::RemoteLogStartOffset& start) {
  const TopicState* t = image.FindTopicById(start.topic_id());
  const pb::Partition* p = image.FindPartition(start.topic_id(), start.partition_id());
  if (t == nullptr || p == nullptr) return Fail(ErrorCode::kUnknownTopicOrPartition, "unknown partition");
  if (start.broker_id() != leader || p->leader() != leader) {
    return Fail(ErrorCode::kNotLeaderOrFollower, absl::StrCat("broker ", leader, " does not lead; ", p->leader(), " does"));
  }
  if (start.leader_epoch() != p->leader_epoch()) {
    return Fail(start.leader_epoch() < p->leader_epoch() ? ErrorCode::kFencedLeaderEpoch : ErrorCode::kUnknownLeaderEpoch,
                absl::StrCat("leader epoch ", start.leader_epoch(), " is not the current ", p->leader_epoch()));
  }
  if (start.log_start_offset() < 0) {
    return Fail(ErrorCode::kInvalidRequest, absl::StrCat("log start offset ", start.log_start_offset(), " is negative"));
  }
  if (image.TopicConfig(t->name, "remote.storage.enable").value_or("false") != "true") {
    return Fail(ErrorCode::kInvalidRequest, absl::StrCat(t->name, " has no remote storage"));
  }
  Plan plan;
  if (start.log_start_offset() <= p->log_start_offset()) return plan;  // there already
  pb::MetadataRecord r;
  *r.mutable_remote_log_start_offset() = start;
  plan.records.push_back(std::move(r));
  return plan;
}

Plan PlanAllocateProducerIds(const MetadataImage& image, BrokerId broker, int64_t broker_epoch, int32_t block_size) {
  ABSL_CHECK_GT(block_size, 0);
  auto it = image.brokers().find(broker);
  if (it == image.brokers().end()) return Fail(ErrorCode::kBrokerIdNotRegistered, absl::StrCat("broker ", broker, " is not registered"));
  if (it->second.registration().broker_epoch() != broker_epoch) {
    return Fail(ErrorCode::kStaleBrokerEpoch, absl::StrCat("broker ", broker, " epoch ", broker_epoch, " is not the current ",
                                                           it->second.registration().broker_epoch()));
  }
  int64_t first = image.next_producer_id();
  if (first > std::numeric_limits<int64_t>::max() - block_size) {
    return Fail(ErrorCode::kUnknownServerError, absl::StrCat("producer ids are exhausted (the next is ", first, ")"));
  }
  Plan plan;
  pb::MetadataRecord r;
  r.mutable_producer_ids()->set_broker_id(broker);
  r.mutable_producer_ids()->set_broker_epoch(broker_epoch);
  r.mutable_producer_ids()->set_next_producer_id(first + block_size);
  plan.records.push_back(std::move(r));
  return plan;
}

std::map<BrokerId, int> LeaderCounts(const MetadataImage& image) {
  std::map<BrokerId, int> counts;
  for (const auto& [id, t] : image.topics()) {
    for (const auto& [pid, p] : t.partitions) {
      if (p.leader() != kNoLeader) ++counts[p.leader()];
    }
  }
  return counts;
}

}  // namespace strata::controller
