#include "controller/metadata_image.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/check.h"

namespace strata::controller {
namespace {

constexpr char kProducerIdsKey[] = "producer_ids";

std::string Digits(int64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%010" PRId64, v);
  return buf;
}

std::string BrokerKey(BrokerId id) { return "b/" + Digits(id); }
std::string TopicKey(const TopicId& id) { return "t/" + absl::BytesToHexString(id); }
std::string PartitionKey(const TopicId& id, int32_t partition) {
  return "p/" + absl::BytesToHexString(id) + "/" + Digits(partition);
}
std::string RemoteSegmentKey(const TopicId& id, int32_t partition, const std::string& segment_id) {
  return "r/" + absl::BytesToHexString(id) + "/" + Digits(partition) + "/" + absl::BytesToHexString(segment_id);
}
std::string FeatureKey(const std::string& name) { return "f/" + name; }
std::string ConfigKey(const ConfigResource& r, const std::string& name) {
  return absl::StrCat("c/", r.first, "/", r.second, std::string(1, '\0'), name);
}

absl::Status Invalid(absl::string_view what) { return absl::FailedPreconditionError(what); }

bool Distinct(const google::protobuf::RepeatedField<int32_t>& ids) {
  std::set<int32_t> seen(ids.begin(), ids.end());
  return seen.size() == static_cast<size_t>(ids.size());
}

bool Contains(const google::protobuf::RepeatedField<int32_t>& ids, int32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool Subset(const google::protobuf::RepeatedField<int32_t>& small, const google::protobuf::RepeatedField<int32_t>& big) {
  return std::all_of(small.begin(), small.end(), [&](int32_t id) { return Contains(big, id); });
}

// The rules every partition state keeps.
absl::Status CheckPartitionState(const pb::Partition& p, const std::string& name) {
  if (p.replicas().empty() || !Distinct(p.replicas())) {
    return Invalid(absl::StrCat(name, ": replicas must be distinct and at least one"));
  }
  if (!Distinct(p.isr()) || !Subset(p.isr(), p.replicas())) {
    return Invalid(absl::StrCat(name, ": the ISR must be distinct replicas"));
  }
  if (p.leader() != kNoLeader && !Contains(p.replicas(), p.leader())) {
    return Invalid(absl::StrCat(name, ": leader ", p.leader(), " is not a replica"));
  }
  if (p.directories_size() != 0 && p.directories_size() != p.replicas_size()) {
    return Invalid(absl::StrCat(name, ": one directory per replica"));
  }
  if (!Distinct(p.adding_replicas()) || !Subset(p.adding_replicas(), p.replicas()) ||
      !Distinct(p.removing_replicas()) || !Subset(p.removing_replicas(), p.replicas())) {
    return Invalid(absl::StrCat(name, ": adding and removing replicas must be distinct replicas"));
  }
  for (int32_t b : p.adding_replicas()) {
    if (Contains(p.removing_replicas(), b)) {
      return Invalid(absl::StrCat(name, ": replica ", b, " is both added and removed"));
    }
  }
  if (p.removing_replicas_size() >= p.replicas_size()) {
    return Invalid(absl::StrCat(name, ": a reassignment must keep a replica"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string TopicIdToString(const TopicId& id) {
  std::string out;
  absl::WebSafeBase64Escape(id, &out);
  return out;
}

int16_t MetadataImage::FeatureLevelOf(const std::string& name) const {
  auto f = features_.find(name);
  return f == features_.end() ? 0 : f->second;
}

const TopicState* MetadataImage::FindTopic(const std::string& name) const {
  auto it = topic_ids_by_name_.find(name);
  return it == topic_ids_by_name_.end() ? nullptr : &topics_.at(it->second);
}

std::optional<std::string> MetadataImage::TopicConfig(const std::string& topic, const std::string& key) const {
  auto it = configs_.find({pb::Config::TOPIC, topic});
  if (it == configs_.end()) return std::nullopt;
  auto value = it->second.find(key);
  if (value == it->second.end()) return std::nullopt;
  return value->second;
}

std::optional<std::string> MetadataImage::DynamicTopicConfig(const std::string& topic, const std::string& key,
                                                             int32_t broker_id) const {
  if (auto value = TopicConfig(topic, key)) return value;
  return DynamicBrokerConfig(key, broker_id);
}

std::optional<std::string> MetadataImage::DynamicBrokerConfig(const std::string& key, int32_t broker_id) const {
  auto broker_config = [&](const std::string& name) -> std::optional<std::string> {
    auto it = configs_.find({pb::Config::BROKER, name});
    if (it == configs_.end()) return std::nullopt;
    auto value = it->second.find(key);
    if (value == it->second.end()) return std::nullopt;
    return value->second;
  };
  if (broker_id >= 0) {
    if (auto value = broker_config(absl::StrCat(broker_id))) return value;
  }
  return broker_config("");
}

const TopicState* MetadataImage::FindTopicById(const TopicId& id) const {
  auto it = topics_.find(id);
  return it == topics_.end() ? nullptr : &it->second;
}

const pb::Partition* MetadataImage::FindPartition(const TopicId& id, int32_t partition) const {
  const TopicState* t = FindTopicById(id);
  if (t == nullptr) return nullptr;
  auto it = t->partitions.find(partition);
  return it == t->partitions.end() ? nullptr : &it->second;
}

const RemoteLogSegments* MetadataImage::FindRemoteSegments(const TopicId& id, int32_t partition) const {
  const TopicState* t = FindTopicById(id);
  if (t == nullptr) return nullptr;
  auto it = t->remote_segments.find(partition);
  return it == t->remote_segments.end() ? nullptr : &it->second;
}

absl::Status MetadataImage::Apply(const pb::MetadataRecord& record) {
  using R = pb::MetadataRecord;
  // A registered broker of the record's epoch.
  auto broker_of = [&](BrokerId id, int64_t epoch) -> absl::StatusOr<pb::BrokerState*> {
    auto it = brokers_.find(id);
    if (it == brokers_.end()) return Invalid(absl::StrCat("broker ", id, " is not registered"));
    if (it->second.registration().broker_epoch() != epoch) {
      return Invalid(absl::StrCat("broker ", id, " has epoch ", it->second.registration().broker_epoch(), ", not ", epoch));
    }
    return &it->second;
  };
  switch (record.record_case()) {
    case R::kRegisterBroker: {
      const auto& r = record.register_broker();
      if (r.broker_id() < 0) return Invalid(absl::StrCat("broker id ", r.broker_id(), " is negative"));
      pb::BrokerState state;
      *state.mutable_registration() = r;
      state.set_fenced(r.fenced());
      brokers_[r.broker_id()] = std::move(state);  // a new incarnation replaces the old
      return absl::OkStatus();
    }
    case R::kUnregisterBroker: {
      const auto& r = record.unregister_broker();
      auto b = broker_of(r.broker_id(), r.broker_epoch());
      if (!b.ok()) return b.status();
      brokers_.erase(r.broker_id());
      return absl::OkStatus();
    }
    case R::kFenceBroker:
    case R::kUnfenceBroker: {
      bool fence = record.record_case() == R::kFenceBroker;
      int32_t id = fence ? record.fence_broker().broker_id() : record.unfence_broker().broker_id();
      int64_t epoch = fence ? record.fence_broker().broker_epoch() : record.unfence_broker().broker_epoch();
      auto b = broker_of(id, epoch);
      if (!b.ok()) return b.status();
      (*b)->set_fenced(fence);
      if (!fence) (*b)->set_in_controlled_shutdown(false);
      return absl::OkStatus();
    }
    case R::kBrokerRegistrationChange: {
      const auto& r = record.broker_registration_change();
      auto b = broker_of(r.broker_id(), r.broker_epoch());
      if (!b.ok()) return b.status();
      std::set<std::string> offline((*b)->offline_log_dirs().begin(), (*b)->offline_log_dirs().end());
      for (const std::string& dir : r.offline_log_dirs()) {
        if (offline.insert(dir).second) (*b)->add_offline_log_dirs(dir);
      }
      if (r.has_in_controlled_shutdown()) (*b)->set_in_controlled_shutdown(r.in_controlled_shutdown());
      return absl::OkStatus();
    }
    case R::kTopic: {
      const auto& r = record.topic();
      if (r.name().empty() || r.topic_id().size() != 16) return Invalid("a topic needs a name and a 16-byte id");
      if (topic_ids_by_name_.count(r.name())) return Invalid(absl::StrCat("topic '", r.name(), "' exists"));
      if (topics_.count(r.topic_id())) return Invalid(absl::StrCat("topic id ", TopicIdToString(r.topic_id()), " exists"));
      topics_[r.topic_id()] = TopicState{r.name(), r.topic_id(), {}};
      topic_ids_by_name_[r.name()] = r.topic_id();
      return absl::OkStatus();
    }
    case R::kRemoveTopic: {
      auto it = topics_.find(record.remove_topic().topic_id());
      if (it == topics_.end()) return Invalid("RemoveTopic of an unknown topic id");
      partition_count_ -= static_cast<int64_t>(it->second.partitions.size());
      configs_.erase({pb::Config::TOPIC, it->second.name});
      topic_ids_by_name_.erase(it->second.name);
      topics_.erase(it);
      return absl::OkStatus();
    }
    case R::kPartition: {
      const auto& r = record.partition();
      auto it = topics_.find(r.topic_id());
      if (it == topics_.end()) return Invalid("a partition of an unknown topic id");
      std::string name = absl::StrCat(it->second.name, "-", r.partition_id());
      if (r.partition_id() < 0) return Invalid(absl::StrCat(name, ": negative partition id"));
      if (it->second.partitions.count(r.partition_id())) return Invalid(absl::StrCat(name, " exists"));
      if (absl::Status s = CheckPartitionState(r, name); !s.ok()) return s;
      it->second.partitions[r.partition_id()] = r;
      ++partition_count_;
      return absl::OkStatus();
    }
    case R::kPartitionChange:
      return ApplyPartitionChange(record.partition_change());
    case R::kConfig: {
      const auto& r = record.config();
      if (r.resource_type() != pb::Config::TOPIC && r.resource_type() != pb::Config::BROKER) {
        return Invalid(absl::StrCat("config resource type ", r.resource_type(), " is not TOPIC or BROKER"));
      }
      if (r.resource_type() == pb::Config::TOPIC && !topic_ids_by_name_.count(r.resource_name())) {
        return Invalid(absl::StrCat("config of unknown topic '", r.resource_name(), "'"));
      }
      if (r.name().empty()) return Invalid("a config needs a name");
      ConfigResource resource{r.resource_type(), r.resource_name()};
      if (r.has_value()) {
        configs_[resource][r.name()] = r.value();
      } else if (auto c = configs_.find(resource); c != configs_.end()) {
        c->second.erase(r.name());
        if (c->second.empty()) configs_.erase(c);
      }
      return absl::OkStatus();
    }
    case R::kProducerIds: {
      const auto& r = record.producer_ids();
      if (r.next_producer_id() <= producer_ids_.next_producer_id()) {
        return Invalid(absl::StrCat("producer ids go back from ", producer_ids_.next_producer_id(), " to ",
                                    r.next_producer_id()));
      }
      producer_ids_ = r;
      return absl::OkStatus();
    }
    case R::kRemoteLogSegment: {
      const auto& r = record.remote_log_segment();
      auto t = topics_.find(r.topic_id());
      if (t == topics_.end()) return Invalid("a remote log segment of an unknown topic id");
      auto p = t->second.partitions.find(r.partition_id());
      std::string name = absl::StrCat(t->second.name, "-", r.partition_id());
      if (p == t->second.partitions.end()) return Invalid(absl::StrCat("a remote log segment of unknown partition ", name));
      RemoteLogSegments& segments = t->second.remote_segments[r.partition_id()];
      absl::Status applied = segments.Apply(r, p->second, name);
      if (segments.empty()) t->second.remote_segments.erase(r.partition_id());
      return applied;
    }
    case R::kRemoteLogStartOffset: return ApplyRemoteLogStartOffset(record.remote_log_start_offset());
    case R::kFeatureLevel: {
      const auto& r = record.feature_level();
      if (r.name().empty()) return Invalid("a feature level needs a name");
      if (r.level() < 0 || r.level() > INT16_MAX) return Invalid(absl::StrCat("feature level ", r.level(), " of ", r.name()));
      if (r.level() == 0) {
        features_.erase(r.name());
      } else {
        features_[r.name()] = static_cast<int16_t>(r.level());
      }
      if (r.set_by_operator()) {
        operator_features_.insert(r.name());
      } else {
        operator_features_.erase(r.name());
      }
      return absl::OkStatus();
    }
    case R::kUserScramCredential:
    case R::kRemoveUserScramCredential:
    case R::kAccessControlEntry:
    case R::kRemoveAccessControlEntry:
      return security_.Apply(record);
    case R::kClientQuota: return client_quotas_.Apply(record.client_quota());
    case R::RECORD_NOT_SET:
      break;
  }
  return Invalid("an empty or unknown metadata record");
}

absl::Status MetadataImage::ApplyPartitionChange(const pb::PartitionChange& change) {
  auto t = topics_.find(change.topic_id());
  if (t == topics_.end()) return Invalid("PartitionChange of an unknown topic id");
  auto p = t->second.partitions.find(change.partition_id());
  std::string name = absl::StrCat(t->second.name, "-", change.partition_id());
  if (p == t->second.partitions.end()) return Invalid(absl::StrCat("PartitionChange of unknown partition ", name));
  pb::Partition next = p->second;
  bool new_leader_epoch = false;
  if (change.has_replicas()) {
    new_leader_epoch = !std::equal(next.replicas().begin(), next.replicas().end(), change.replicas().ids().begin(),
                                   change.replicas().ids().end());
    *next.mutable_replicas() = change.replicas().ids();
    if (change.directories_size() == 0) next.clear_directories();
  }
  if (change.directories_size() != 0) *next.mutable_directories() = change.directories();
  if (change.has_adding_replicas()) *next.mutable_adding_replicas() = change.adding_replicas().ids();
  if (change.has_removing_replicas()) *next.mutable_removing_replicas() = change.removing_replicas().ids();
  if (change.has_isr()) *next.mutable_isr() = change.isr().ids();
  if (change.has_leader() && change.leader() != next.leader()) {
    next.set_leader(change.leader());
    new_leader_epoch = true;
  }
  if (absl::Status s = CheckPartitionState(next, name); !s.ok()) return s;
  next.set_partition_epoch(next.partition_epoch() + 1);
  if (new_leader_epoch) next.set_leader_epoch(next.leader_epoch() + 1);
  p->second = std::move(next);
  return absl::OkStatus();
}

absl::Status MetadataImage::ApplyRemoteLogStartOffset(const pb::RemoteLogStartOffset& r) {
  auto t = topics_.find(r.topic_id());
  if (t == topics_.end()) return Invalid("a remote log start offset of an unknown topic id");
  auto p = t->second.partitions.find(r.partition_id());
  std::string name = absl::StrCat(t->second.name, "-", r.partition_id());
  if (p == t->second.partitions.end()) return Invalid(absl::StrCat("a remote log start offset of unknown partition ", name));
  if (r.broker_id() != p->second.leader() || r.leader_epoch() != p->second.leader_epoch()) {
    return Invalid(absl::StrCat(name, ": log start offset ", r.log_start_offset(), " from broker ", r.broker_id(),
                                " in leader epoch ", r.leader_epoch(), ", but broker ", p->second.leader(),
                                " leads in epoch ", p->second.leader_epoch()));
  }
  if (r.log_start_offset() < 0) return Invalid(absl::StrCat(name, ": log start offset ", r.log_start_offset()));
  // Only ever up (a retry, or one overtaken, changes nothing).
  if (r.log_start_offset() > p->second.log_start_offset()) p->second.set_log_start_offset(r.log_start_offset());
  return absl::OkStatus();
}

std::vector<std::string> MetadataImage::TouchedKeys(const pb::MetadataRecord& record) const {
  using R = pb::MetadataRecord;
  switch (record.record_case()) {
    case R::kRegisterBroker: return {BrokerKey(record.register_broker().broker_id())};
    case R::kUnregisterBroker: return {BrokerKey(record.unregister_broker().broker_id())};
    case R::kFenceBroker: return {BrokerKey(record.fence_broker().broker_id())};
    case R::kUnfenceBroker: return {BrokerKey(record.unfence_broker().broker_id())};
    case R::kBrokerRegistrationChange: return {BrokerKey(record.broker_registration_change().broker_id())};
    case R::kTopic: return {TopicKey(record.topic().topic_id())};
    case R::kRemoveTopic: {
      const TopicId& id = record.remove_topic().topic_id();
      std::vector<std::string> keys = {TopicKey(id)};
      const TopicState* t = FindTopicById(id);
      if (t == nullptr) return keys;
      for (const auto& [partition, state] : t->partitions) keys.push_back(PartitionKey(id, partition));
      for (const auto& [partition, segments] : t->remote_segments) {
        for (const auto& [segment_id, s] : segments.segments()) keys.push_back(RemoteSegmentKey(id, partition, segment_id));
      }
      auto c = configs_.find({pb::Config::TOPIC, t->name});
      if (c != configs_.end()) {
        for (const auto& [name, value] : c->second) keys.push_back(ConfigKey(c->first, name));
      }
      return keys;
    }
    case R::kPartition: return {PartitionKey(record.partition().topic_id(), record.partition().partition_id())};
    case R::kPartitionChange:
      return {PartitionKey(record.partition_change().topic_id(), record.partition_change().partition_id())};
    case R::kConfig:
      return {ConfigKey({record.config().resource_type(), record.config().resource_name()}, record.config().name())};
    case R::kProducerIds: return {kProducerIdsKey};
    case R::kFeatureLevel: return {FeatureKey(record.feature_level().name())};
    case R::kRemoteLogStartOffset:
      return {PartitionKey(record.remote_log_start_offset().topic_id(), record.remote_log_start_offset().partition_id())};
    case R::kRemoteLogSegment: {
      const auto& r = record.remote_log_segment();
      return {RemoteSegmentKey(r.topic_id(), r.partition_id(), r.segment_id())};
    }
    case R::kUserScramCredential:
    case R::kRemoveUserScramCredential:
    case R::kAccessControlEntry:
    case R::kRemoveAccessControlEntry:
      return security_.TouchedKeys(record);
    case R::kClientQuota: return client_quotas_.TouchedKeys(record.client_quota());
    case R::RECORD_NOT_SET: break;
  }
  return {};
}

std::optional<std::string> MetadataImage::Encode(const std::string& key) const {
  if (key == kProducerIdsKey) return producer_ids_.SerializeAsString();
  if (SecurityImage::OwnsKey(key)) return security_.Encode(key);
  if (ClientQuotasImage::OwnsKey(key)) return client_quotas_.Encode(key);
  std::vector<std::string> parts = absl::StrSplit(key, absl::MaxSplits('/', 2));
  if (parts[0] == "b") {
    auto it = brokers_.find(std::stoi(parts[1]));
    if (it == brokers_.end()) return std::nullopt;
    return it->second.SerializeAsString();
  }
  if (parts[0] == "t" || parts[0] == "p") {
    std::string id = absl::HexStringToBytes(parts[1]);
    const TopicState* t = FindTopicById(id);
    if (t == nullptr) return std::nullopt;
    if (parts[0] == "t") {
      pb::Topic topic;
      topic.set_name(t->name);
      topic.set_topic_id(t->id);
      return topic.SerializeAsString();
    }
    auto p = t->partitions.find(std::stoi(parts[2]));
    if (p == t->partitions.end()) return std::nullopt;
    return p->second.SerializeAsString();
  }
  if (parts[0] == "r") {
    std::vector<std::string> r = absl::StrSplit(key, '/');
    ABSL_CHECK_EQ(r.size(), 4u) << key;
    const RemoteLogSegments* segments = FindRemoteSegments(absl::HexStringToBytes(r[1]), std::stoi(r[2]));
    if (segments == nullptr) return std::nullopt;
    auto s = segments->segments().find(absl::HexStringToBytes(r[3]));
    if (s == segments->segments().end()) return std::nullopt;
    return s->second.SerializeAsString();
  }
  if (parts[0] == "f") {
    // A level finalized automatically is stored as its decimal (as before operators could
    // set levels); one an operator set, as its FeatureLevel record (level 0 too).
    const std::string name = key.substr(2);
    auto f = features_.find(name);
    const int16_t level = f == features_.end() ? 0 : f->second;
    if (!operator_features_.count(name)) {
      if (f == features_.end()) return std::nullopt;
      return absl::StrCat(level);
    }
    pb::FeatureLevel set;
    set.set_name(name);
    set.set_level(level);
    set.set_set_by_operator(true);
    return set.SerializeAsString();
  }
  if (parts[0] == "c") {
    size_t nul = key.find('\0');
    ABSL_CHECK_NE(nul, std::string::npos);
    std::vector<std::string> head = absl::StrSplit(key.substr(0, nul), absl::MaxSplits('/', 2));
    ConfigResource resource{std::stoi(head[1]), head[2]};
    auto c = configs_.find(resource);
    if (c == configs_.end()) return std::nullopt;
    auto v = c->second.find(key.substr(nul + 1));
    if (v == c->second.end()) return std::nullopt;
    return v->second;
  }
  ABSL_CHECK(false) << "unknown image key " << key;
  return std::nullopt;
}

absl::Status MetadataImage::Load(const std::string& key, const std::string& value) {
  auto corrupt = [&] { return absl::DataLossError(absl::StrCat("metadata image key '", key, "' holds a bad value")); };
  if (key == kProducerIdsKey) return producer_ids_.ParseFromString(value) ? absl::OkStatus() : corrupt();
  if (SecurityImage::OwnsKey(key)) return security_.Load(key, value);
  if (ClientQuotasImage::OwnsKey(key)) return client_quotas_.Load(key, value);
  if (key.size() < 2 || key[1] != '/') return corrupt();
  switch (key[0]) {
    case 'b': {
      pb::BrokerState b;
      if (!b.ParseFromString(value)) return corrupt();
      brokers_[b.registration().broker_id()] = std::move(b);
      return absl::OkStatus();
    }
    case 't': {
      pb::Topic t;
      if (!t.ParseFromString(value)) return corrupt();
      TopicState& state = topics_[t.topic_id()];
      state.name = t.name();
      state.id = t.topic_id();
      topic_ids_by_name_[t.name()] = t.topic_id();
      return absl::OkStatus();
    }
    case 'p': {
      pb::Partition p;
      if (!p.ParseFromString(value)) return corrupt();
      // Keys sort topics ("t/") after partitions ("p/"): the topic entry fills in later.
      TopicState& state = topics_[p.topic_id()];
      state.id = p.topic_id();
      state.partitions[p.partition_id()] = std::move(p);
      ++partition_count_;
      return absl::OkStatus();
    }
    case 'r': {
      pb::RemoteLogSegment s;
      if (!s.ParseFromString(value)) return corrupt();
      TopicState& state = topics_[s.topic_id()];  // "r/" sorts before "t/", as "p/" does
      state.id = s.topic_id();
      int32_t partition = s.partition_id();
      state.remote_segments[partition].Load(std::move(s));
      return absl::OkStatus();
    }
    case 'f': {
      const std::string name = key.substr(2);
      int level = 0;
      if (absl::SimpleAtoi(value, &level)) {  // finalized automatically (a serialized record is never a number)
        if (level <= 0 || level > INT16_MAX) return corrupt();
        features_[name] = static_cast<int16_t>(level);
        return absl::OkStatus();
      }
      pb::FeatureLevel set;
      if (!set.ParseFromString(value) || set.name() != name || !set.set_by_operator() || set.level() < 0 ||
          set.level() > INT16_MAX) {
        return corrupt();
      }
      if (set.level() > 0) features_[name] = static_cast<int16_t>(set.level());
      operator_features_.insert(name);
      return absl::OkStatus();
    }
    case 'c': {
      size_t nul = key.find('\0');
      if (nul == std::string::npos) return corrupt();
      std::vector<std::string> head = absl::StrSplit(key.substr(0, nul), absl::MaxSplits('/', 2));
      if (head.size() != 3) return corrupt();
      configs_[{std::stoi(head[1]), head[2]}][key.substr(nul + 1)] = value;
      return absl::OkStatus();
    }
    default:
      return corrupt();
  }
}

std::string MetadataImage::Dump() const {
  std::string out;
  for (const auto& [id, b] : brokers_) absl::StrAppend(&out, "broker ", id, " ", b.ShortDebugString(), "\n");
  for (const auto& [id, t] : topics_) {
    absl::StrAppend(&out, "topic ", t.name, " ", TopicIdToString(id), "\n");
    for (const auto& [p, state] : t.partitions) absl::StrAppend(&out, "  ", p, " ", state.ShortDebugString(), "\n");
    for (const auto& [p, segments] : t.remote_segments) {
      for (const auto& [id, s] : segments.segments()) {
        absl::StrAppend(&out, "  ", p, " remote ", s.ShortDebugString(), "\n");
      }
    }
  }
  for (const auto& [name, level] : features_) {
    absl::StrAppend(&out, "feature ", name, " ", level, operator_features_.count(name) ? " set by operator" : "", "\n");
  }
  for (const std::string& name : operator_features_) {
    if (!features_.count(name)) absl::StrAppend(&out, "feature ", name, " 0 set by operator\n");
  }
  for (const auto& [r, values] : configs_) {
    for (const auto& [k, v] : values) absl::StrAppend(&out, "config ", r.first, "/", r.second, " ", k, "=", v, "\n");
  }
  security_.Dump(&out);
  client_quotas_.Dump(&out);
  absl::StrAppend(&out, "producer_ids ", producer_ids_.ShortDebugString(), "\n");
  absl::StrAppend(&out, "partitions ", partition_count_, "\n");
  return out;
}

bool ReplicaAvailable(const MetadataImage& image, const pb::Partition& p, BrokerId b, int replica_index) {
  auto it = image.brokers().find(b);
  if (it == image.brokers().end() || it->second.fenced() || it->second.in_controlled_shutdown()) return false;
  if (replica_index >= 0 && replica_index < p.directories_size()) {
    const std::string& dir = p.directories(replica_index);
    const auto& offline = it->second.offline_log_dirs();
    if (std::find(offline.begin(), offline.end(), dir) != offline.end()) return false;
  }
  return true;
}

std::optional<std::string> LogDirFor(const MetadataImage& image, BrokerId b, int32_t partition) {
  auto broker = image.brokers().find(b);
  if (broker == image.brokers().end()) return std::nullopt;
  std::vector<const std::string*> online;
  const auto& offline = broker->second.offline_log_dirs();
  for (const std::string& dir : broker->second.registration().log_dirs()) {
    if (std::find(offline.begin(), offline.end(), dir) == offline.end()) online.push_back(&dir);
  }
  if (online.empty()) return std::nullopt;
  return *online[static_cast<size_t>(partition) % online.size()];
}

}  // namespace strata::controller
