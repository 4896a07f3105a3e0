#include "broker/replication/replica_manager.h"

#include <chrono>
#include <set>
#include <thread>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/check.h"
#include "base/logging.h"
#include "controller/broker_config.h"
#include "controller/metadata_image.h"
#include "base/status_macros.h"
#include "broker/common/kafka_error.h"
#include "controller.grpc.pb.h"
#include "storage/errc.h"
#include "storage/throttled_replicas.h"

namespace strata::broker {

namespace pb = metadata::v1;

namespace {
constexpr absl::string_view kPartitionMetadataFile = "partition.metadata";

// The topic id a partition.metadata text names ("" when it names none).
std::string TopicIdIn(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "topic_id: ")) return std::string(absl::StripAsciiWhitespace(line));
  }
  return "";
}
}  // namespace

ReplicaManager::ReplicaManager(ReplicaManagerOptions options)
    : options_(std::move(options)), produce_refusals_(ProduceRefusalsOptions{.clock = options_.clock}) {
  ABSL_CHECK(options_.logs != nullptr);
  if (options_.fetch_from_leaders) {
    ReplicaFetcherManagerOptions fo = options_.fetchers;
    fo.fetcher.broker_id = options_.broker_id;
    fo.fetcher.quota = &follower_quota_;
    fetchers_ = std::make_unique<ReplicaFetcherManager>(fo, this);
  }
  if (options_.controller != nullptr) isr_thread_ = std::thread([this] { RunIsrChanges(); });
  mover_ = std::make_unique<LogDirMover>(LogDirMoverOptions{
      .broker_id = options_.broker_id,
      .logs = options_.logs,
      .partition = [this](const storage::TopicPartition& tp) { return GetPartition(tp); },
      .controller = options_.controller,
      .broker_epoch = options_.broker_epoch,
      .copy_bytes = options_.log_dir_move_step_bytes,
      .max_bytes_per_second = options_.log_dir_move_max_bytes_per_second});
}

ReplicaManager::~ReplicaManager() { Shutdown(); }

void ReplicaManager::Shutdown() {
  if (mover_) mover_->Shutdown();
  {
    absl::MutexLock lock(&isr_mu_);
    isr_stopping_ = true;
  }
  if (isr_thread_.joinable()) isr_thread_.join();
  if (fetchers_) fetchers_->Shutdown();
}

void ReplicaManager::NotifyHighWatermark(const storage::TopicPartition& tp) {
  std::function<void(const storage::TopicPartition&)> callback;
  {
    absl::MutexLock lock(&mu_);
    callback = on_high_watermark_;
  }
  if (callback) callback(tp);
}

void ReplicaManager::FollowLeader(const controller::MetadataImage& image, const storage::TopicPartition& tp,
                                  const PartitionState& state) {
  if (!fetchers_) return;
  if (state.leader < 0 || state.leader == options_.broker_id) {
    fetchers_->RemovePartition(tp);
    return;
  }
  auto broker = image.brokers().find(state.leader);
  const pb::BrokerEndpoint* endpoint = nullptr;
  if (broker != image.brokers().end()) {
    for (const auto& e : broker->second.registration().endpoints()) {
      if (options_.inter_broker_listener.empty() ? endpoint == nullptr : e.name() == options_.inter_broker_listener) {
        endpoint = &e;
      }
    }
  }
  if (endpoint == nullptr) {
    spdlog::warn("broker {}: leader {} of {} has no '{}' endpoint; not fetching", options_.broker_id, state.leader,
                 tp.DirName(), options_.inter_broker_listener);
    fetchers_->RemovePartition(tp);
    return;
  }
  fetchers_->AddPartition(tp, state.leader, endpoint->host(), endpoint->port(), state.leader_epoch);
}

void ReplicaManager::UpdateFollowerFetchState(Partition& partition, int32_t replica_id, int64_t fetch_offset,
                                              int64_t leader_log_end, int64_t follower_log_start) {
  Partition::FollowerFetch result = partition.UpdateFollowerFetchState(replica_id, fetch_offset, leader_log_end,
                                                                       options_.clock->NowMs(), follower_log_start);
  if (result.high_watermark_moved || result.log_start_moved) NotifyHighWatermark(partition.topic_partition());
  if (result.expand_isr && options_.controller != nullptr) {
    absl::MutexLock lock(&isr_mu_);
    // As Kafka's leader does, do not propose a replica the controller would refuse
    // (INELIGIBLE_REPLICA): a broker fenced (a new incarnation not yet unfenced), shutting
    // down or unknown, or a replica in a log dir its broker reported offline. Else each of
    // its fetches would send another refused AlterPartition.
    auto eligible = eligible_for_isr_.find(partition.topic_partition());
    if (eligible == eligible_for_isr_.end() || !eligible->second.count(replica_id)) {
      partition.ClearPendingIsr();
      return;
    }
    isr_expansions_[partition.topic_partition()] = std::move(*result.expand_isr);
  }
}

absl::Status ReplicaManager::MoveRemoteLogStart(const Partition& partition, int64_t offset,
                                                std::chrono::milliseconds deadline) {
  if (!partition.remote_tier().enabled || partition.log_start_offset() >= offset) return absl::OkStatus();
  if (options_.controller == nullptr || !options_.broker_epoch) {
    return KafkaError(proto::kafka::ErrorCode::kRequestTimedOut, "this broker has no way to the controller");
  }
  controller::v1::RemoteLogStartOffsetUpdateRequest request;
  request.set_broker_id(options_.broker_id);
  request.set_broker_epoch(options_.broker_epoch());
  metadata::v1::RemoteLogStartOffset& start = *request.mutable_log_start();
  start.set_topic_id(partition.topic_id());
  start.set_partition_id(partition.topic_partition().partition);
  start.set_log_start_offset(offset);
  start.set_broker_id(options_.broker_id);
  start.set_leader_epoch(partition.leader_epoch());
  controller::v1::RemoteLogStartOffsetUpdateResponse response;
  absl::Status called = options_.controller->CallController(
      &controller::v1::ControllerService::Stub::RemoteLogStartOffsetUpdate, request, &response, deadline);
  if (!called.ok()) {
    return KafkaError(proto::kafka::ErrorCode::kRequestTimedOut,
                      absl::StrCat("moving the remote log start of ", partition.topic_partition().DirName(), " to ",
                                   offset, ": ", called.message()));
  }
  if (response.error_code() != 0) {
    return KafkaError(static_cast<proto::kafka::ErrorCode>(response.error_code()), response.error_message());
  }
  return absl::OkStatus();
}

int64_t ReplicaManager::isr_changes_sent() const {
  absl::MutexLock lock(&isr_mu_);
  return isr_sent_;
}

int64_t ReplicaManager::isr_changes_failed() const {
  absl::MutexLock lock(&isr_mu_);
  return isr_failed_;
}


std::optional<std::set<int32_t>> ReplicaManager::ReplicasEligibleForIsr(const storage::TopicPartition& tp) const {
  absl::MutexLock lock(&isr_mu_);
  auto it = eligible_for_isr_.find(tp);
  if (it == eligible_for_isr_.end()) return std::nullopt;
  return it->second;
}

std::vector<ReplicaManager::HostedPartition> ReplicaManager::HostedPartitions() const {
  std::vector<HostedPartition> out;
  absl::MutexLock lock(&mu_);
  out.reserve(hosted_.size());
  for (const auto& [tp, hosted] : hosted_) out.push_back(HostedPartition{hosted.partition, hosted.min_insync_replicas});
  return out;
}

std::optional<ReplicaManager::HostedPartition> ReplicaManager::FindHosted(const storage::TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  auto it = hosted_.find(tp);
  if (it == hosted_.end()) return std::nullopt;
  return HostedPartition{it->second.partition, it->second.min_insync_replicas};
}

void ReplicaManager::RunIsrChanges() {
  // Expansions go within a few ms; shrinks are checked every lag / 2 (Kafka's period).
  const int64_t check_every = std::max<int64_t>(options_.replica_lag_time_max_ms / 2, 10);
  int64_t next_shrink_check = options_.clock->NowMs() + check_every;
  while (true) {
    std::map<storage::TopicPartition, std::vector<int32_t>> expansions;
    {
      absl::MutexLock lock(&isr_mu_);
      auto wake = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(isr_mu_) {
        return isr_stopping_ || !isr_expansions_.empty();
      };
      isr_mu_.AwaitWithTimeout(absl::Condition(&wake), absl::Milliseconds(std::min<int64_t>(check_every, 50)));
      if (isr_stopping_) return;
      expansions.swap(isr_expansions_);
      // Changes the controller did not answer go again (after this wait: no busy loop
      // while it is out of reach).
      for (auto& [tp, isr] : isr_unanswered_) expansions.try_emplace(tp, std::move(isr));
      isr_unanswered_.clear();
    }
    // Expansions (and unanswered changes) are pending in their partitions already
    // (Partition::UpdateFollowerFetchState, SendIsrChanges).
    std::vector<IsrChange> changes;
    for (auto& [tp, isr] : expansions) changes.push_back({tp, std::move(isr), /*pending=*/true});
    int64_t now = options_.clock->NowMs();
    if (now >= next_shrink_check) {
      next_shrink_check = now + check_every;
      for (const storage::TopicPartition& tp : partitions()) {
        if (expansions.count(tp)) continue;
        std::shared_ptr<Partition> partition = GetPartition(tp);
        if (partition == nullptr) continue;
        if (auto isr = partition->IsrToShrinkTo(now, options_.replica_lag_time_max_ms)) {
          spdlog::info("broker {}: {} ISR [{}] -> [{}]: followers behind for more than {} ms", options_.broker_id,
                       tp.DirName(), absl::StrJoin(partition->state().isr, ","), absl::StrJoin(*isr, ","),
                       options_.replica_lag_time_max_ms);
          changes.push_back({tp, std::move(*isr), /*pending=*/false});
        }
      }
    }
    // Produces waiting on a leader that became stranded answer NOT_LEADER_OR_FOLLOWER now.
    std::set<storage::TopicPartition> stranded = StrandedPartitions();
    for (const storage::TopicPartition& tp : stranded) {
      if (stranded_.count(tp)) continue;
      spdlog::warn("broker {}: {} stranded: neither the controller nor another in-sync replica heard from for {} ms; "
                   "refusing produce and naming no leader in Metadata until one does", options_.broker_id,
                   tp.DirName(), options_.leader_lease_ms);
      NotifyHighWatermark(tp);
    }
    for (const storage::TopicPartition& tp : stranded_) {
      if (!stranded.count(tp)) spdlog::info("broker {}: {} no longer stranded", options_.broker_id, tp.DirName());
    }
    stranded_ = std::move(stranded);
    if (!changes.empty()) SendIsrChanges(changes);
  }
}

void ReplicaManager::SendIsrChanges(const std::vector<IsrChange>& changes) {
  controller::v1::AlterPartitionRequest request;
  request.set_broker_id(options_.broker_id);
  request.set_broker_epoch(options_.broker_epoch ? options_.broker_epoch() : -1);
  std::map<std::pair<std::string, int32_t>, std::shared_ptr<Partition>> sent;
  for (const auto& [tp, isr, pending] : changes) {
    std::shared_ptr<Partition> partition = GetPartition(tp);
    if (partition == nullptr || !partition->is_leader()) continue;
    // An expansion is sent while it is still the change pending (the metadata may have
    // settled it meanwhile); a shrink only when nothing is.
    if (pending ? partition->pending_isr() != isr : partition->has_pending_isr()) continue;
    PartitionState state = partition->state();
    if (!pending) partition->SetPendingIsr(isr);
    auto* p = request.add_partitions();
    p->set_topic_id(state.topic_id);
    p->set_partition_id(tp.partition);
    p->set_leader_epoch(state.leader_epoch);
    p->set_partition_epoch(state.partition_epoch);
    for (int32_t r : isr) p->add_new_isr(r);
    for (int64_t e : partition->pending_isr_broker_epochs()) p->add_new_isr_broker_epochs(e);
    sent[{state.topic_id, tp.partition}] = std::move(partition);
  }
  if (sent.empty()) return;
  controller::v1::AlterPartitionResponse response;
  absl::Status status = options_.controller->CallController(&controller::v1::ControllerService::Stub::AlterPartition,
                                                            request, &response, std::chrono::seconds(5));
  int64_t failed = 0;
  std::map<storage::TopicPartition, std::vector<int32_t>> unanswered;
  if (!status.ok()) {
    // No answer (a timeout, a lost connection): the controller may have applied the
    // changes. They stay pending, so that the high watermark keeps counting both ISRs,
    // and go again; an answer or the metadata settles them (as Kafka's
    // AlterPartitionManager retries). Cleared here, a follower the controller did add
    // could fall behind the high watermark before the metadata said so (the
    // replication simulation, seed 4370).
    spdlog::warn("broker {}: AlterPartition for {} partitions unanswered: {}; asking again", options_.broker_id,
                 sent.size(), status.ToString());
    for (auto& [key, partition] : sent) {
      if (auto isr = partition->pending_isr()) unanswered[partition->topic_partition()] = std::move(*isr);
    }
    failed = static_cast<int64_t>(sent.size());
  } else if (response.error_code() != 0) {
    // Refused as a whole (no active controller): nothing was applied.
    spdlog::warn("broker {}: AlterPartition for {} partitions refused: {} {}", options_.broker_id, sent.size(),
                 response.error_code(), response.error_message());
    for (auto& [key, partition] : sent) partition->ClearPendingIsr();
    failed = static_cast<int64_t>(sent.size());
  } else {
    for (const auto& p : response.partitions()) {
      auto it = sent.find({p.topic_id(), p.partition_id()});
      if (it == sent.end() || p.error_code() == 0) continue;  // accepted: the metadata settles it
      ++failed;
      const auto code = static_cast<proto::kafka::ErrorCode>(p.error_code());
      if (code == proto::kafka::ErrorCode::kInvalidUpdateVersion || code == proto::kafka::ErrorCode::kFencedLeaderEpoch ||
          code == proto::kafka::ErrorCode::kNotLeaderOrFollower) {
        // This broker's view of the partition is behind the controller's (an earlier
        // attempt may even have been applied): the metadata on its way settles the
        // change, as Kafka's leader waits for it.
        spdlog::info("broker {}: AlterPartition of {} refused: {} ({}); waiting for the metadata",
                     options_.broker_id, it->second->topic_partition().DirName(), p.error_code(), p.error_message());
        continue;
      }
      spdlog::info("broker {}: AlterPartition of {} refused: {} ({}); asking again from the newest state",
                   options_.broker_id, it->second->topic_partition().DirName(), p.error_code(), p.error_message());
      it->second->ClearPendingIsr();
    }
  }
  absl::MutexLock lock(&isr_mu_);
  isr_sent_ += static_cast<int64_t>(sent.size());
  isr_failed_ += failed;
  for (auto& [tp, isr] : unanswered) isr_unanswered_[tp] = std::move(isr);
}

std::string ReplicaManager::PartitionMetadataText(const std::string& topic_id) {
  return absl::StrCat("version: 0\ntopic_id: ", controller::TopicIdToString(topic_id), "\n");
}

void ReplicaManager::set_on_high_watermark(std::function<void(const storage::TopicPartition&)> callback) {
  absl::MutexLock lock(&mu_);
  on_high_watermark_ = std::move(callback);
}

RemoteTierState RemoteTierOf(const controller::RemoteLogSegments* segments, bool enabled,
                             int64_t log_start_bound) {
  RemoteTierState out;
  out.enabled = enabled;
  if (segments == nullptr) return out;
  auto epoch_at = &controller::RemoteLogSegments::EpochAt;
  for (const auto& [id, s] : segments->segments()) {
    if (s.state() != controller::RemoteLogSegments::Segment::COPY_SEGMENT_FINISHED) continue;
    ++out.segments;
    out.bytes += s.segment_size_in_bytes();
    // A copy that ends below the bound (DeleteRecords) serves nothing, and one that
    // holds it serves from it on.
    if (s.end_offset() < log_start_bound) continue;
    int64_t start = std::max(s.start_offset(), log_start_bound);
    if (out.log_start_offset < 0 || start < out.log_start_offset) {
      out.log_start_offset = start;
      out.log_start_epoch = epoch_at(s, start);
    }
    if (s.end_offset() > out.highest_copied_offset) {
      out.highest_copied_offset = s.end_offset();
      out.highest_copied_epoch = epoch_at(s, s.end_offset());
    }
  }
  return out;
}

int32_t ReplicaManager::MinInsyncReplicasOf(const controller::MetadataImage& image, const std::string& topic) const {
  int32_t value = options_.default_min_insync_replicas;
  if (auto text = image.DynamicTopicConfig(topic, "min.insync.replicas", options_.broker_id)) (void)absl::SimpleAtoi(*text, &value);
  return value;
}

storage::LogConfig ReplicaManager::ConfigFor(const controller::MetadataImage& image, const std::string& topic) const {
  std::vector<absl::Status> refused;
  storage::LogConfig config = TopicLogConfig(image, topic, options_.broker_id, options_.default_config, &refused);
  for (const absl::Status& s : refused) {
    spdlog::error("broker {}: topic {}: {}; that setting keeps the broker's default", options_.broker_id, topic,
                  s.ToString());
  }
  return config;
}

storage::LogConfig TopicLogConfig(const controller::MetadataImage& image, const std::string& topic,
                                  int32_t broker_id, const storage::LogConfig& defaults,
                                  std::vector<absl::Status>* refused) {
  storage::LogConfig config = defaults;
  // One layer: a broker resource's settings go by their broker-level names, a topic's by
  // the topic-level ones.
  auto apply = [&](pb::Config::ResourceType type, const std::string& name) {
    auto it = image.configs().find({type, name});
    if (it == image.configs().end()) return;
    for (const auto& [key, value] : it->second) {
      const storage::TopicSetting* setting = storage::FindTopicSetting(key);
      if (setting == nullptr || !setting->is_log_setting()) continue;
      if (key != (type == pb::Config::TOPIC ? setting->name : setting->broker_key)) continue;
      // The controller checked each against the same table; a value an older controller
      // took keeps what the layers below gave that setting, and only that one.
      if (absl::Status checked = setting->Check(key, value); !checked.ok()) {
        if (refused != nullptr) refused->push_back(std::move(checked));
        continue;
      }
      setting->set(config, value);
    }
  };
  apply(pb::Config::BROKER, "");
  apply(pb::Config::BROKER, std::to_string(broker_id));
  apply(pb::Config::TOPIC, topic);
  return config;
}

absl::StatusOr<storage::Log*> ReplicaManager::OpenLog(const storage::TopicPartition& tp, const std::string& topic_id,
                                                      const storage::LogConfig& config,
                                                      const std::string& directory_id) {
  storage::FileOps& ops = *options_.ops;
  if (storage::Log* existing = options_.logs->GetLog(tp)) {
    std::string path = storage::JoinPath(existing->dir(), kPartitionMetadataFile);
    auto text = storage::ReadWholeFile(ops, path);
    std::string stored = text.ok() ? TopicIdIn(*text) : "";
    if (stored.empty() || stored == controller::TopicIdToString(topic_id)) {
      existing->UpdateConfig(config);
      if (stored.empty()) {
        STRATA_RETURN_IF_ERROR(storage::WriteFileAtomically(ops, path, PartitionMetadataText(topic_id)));
      }
      return existing;
    }
    // A log of an earlier topic of the same name: never serve it for this one.
    spdlog::warn("broker {}: {} belongs to topic id {}, not {}; deleting it", options_.broker_id, tp.DirName(), stored,
                 controller::TopicIdToString(topic_id));
    STRATA_RETURN_IF_ERROR(options_.logs->DeleteLog(tp));
  }
  STRATA_ASSIGN_OR_RETURN(storage::Log * log, options_.logs->GetOrCreateLog(tp, config, directory_id));
  STRATA_RETURN_IF_ERROR(storage::WriteFileAtomically(ops, storage::JoinPath(log->dir(), kPartitionMetadataFile),
                                                      PartitionMetadataText(topic_id)));
  return log;
}

// What one ApplyImage brings in line: every topic of the image, or what a delta names.
struct ReplicaManager::ApplyScope {
  struct Topic {
    const controller::TopicState* state = nullptr;
    std::optional<std::set<int32_t>> partitions;  // nullopt: all of them
  };
  bool everything = false;
  std::map<std::string, Topic> topics;  // by name: the image's topics to walk
  std::set<controller::TopicId> removed;  // named, but no longer in the image

  void AddTopic(const controller::TopicState& t) { topics[t.name] = Topic{&t, std::nullopt}; }
  void AddPartition(const controller::TopicState& t, int32_t index) {
    auto [it, added] = topics.try_emplace(t.name, Topic{&t, std::set<int32_t>()});
    ABSL_CHECK_EQ(it->second.state, &t) << t.name;  // one topic per name in an image
    if (it->second.partitions) it->second.partitions->insert(index);
  }
  // Whether this apply decides about tp (hosted here for topic_id): it is walked, or its
  // topic is gone. What it covers and does not want is dropped.
  bool Covers(const storage::TopicPartition& tp, const controller::TopicId& topic_id) const {
    if (everything || removed.count(topic_id)) return true;
    auto it = topics.find(tp.topic);
    return it != topics.end() && (!it->second.partitions || it->second.partitions->count(tp.partition));
  }
};

// What the walk found.
struct ReplicaManager::ImageWalk {
  // Per walked partition listing this broker (those wanted here), the replicas that may
  // join its ISR.
  std::map<storage::TopicPartition, std::set<int32_t>> eligible;
  int64_t applied = 0;  // its size, kept past the move of `eligible`
  // Partitions whose waiting requests must look again: the high watermark moved (on
  // becoming leader), or the role or leader epoch changed — an acks=all produce waiting
  // on a leader that lost the partition then answers NOT_LEADER_OR_FOLLOWER at once
  // rather than REQUEST_TIMED_OUT at its timeout (its client stalled meanwhile).
  std::vector<storage::TopicPartition> moved;
  std::vector<storage::TopicPartition> unopened_dropped;  // unopened_ entries forgotten
};

ReplicaManager::ApplyScope ReplicaManager::ScopeOf(const controller::MetadataImage& image,
                                                    const MetadataDelta& delta) const {
  ApplyScope scope;
  if (delta.full) {
    scope.everything = true;
    for (const auto& [topic_id, topic] : image.topics()) scope.AddTopic(topic);
    return scope;
  }
  auto in_image = [&](const controller::TopicId& id) {
    const controller::TopicState* t = image.FindTopicById(id);
    if (t == nullptr) scope.removed.insert(id);
    return t;
  };
  for (const auto& [id, changed] : delta.changed_topics) {
    const controller::TopicState* t = in_image(id);
    if (t == nullptr) continue;
    if (changed.all_partitions) {
      scope.AddTopic(*t);
      continue;
    }
    for (int32_t index : changed.partitions) scope.AddPartition(*t, index);
  }
  for (const controller::TopicId& id : delta.deleted_topic_ids) {
    if (const controller::TopicState* t = in_image(id)) scope.AddTopic(*t);
  }
  for (const std::string& name : delta.changed_topic_configs) {
    if (const controller::TopicState* t = image.FindTopic(name)) scope.AddTopic(*t);
  }
  // Logs not opened yet are tried again at every apply, as a full one would.
  absl::MutexLock lock(&mu_);
  for (const auto& [tp, topic_id] : unopened_) {
    const controller::TopicState* t = image.FindTopic(tp.topic);
    if (t == nullptr || t->id != topic_id) scope.removed.insert(topic_id);
    if (t != nullptr) scope.AddPartition(*t, tp.partition);
  }
  return scope;
}

void ReplicaManager::ApplyImage(const controller::MetadataImage& image) { ApplyImage(image, MetadataDelta::Full()); }

void ReplicaManager::ApplyImage(const controller::MetadataImage& image, const MetadataDelta& delta) {
  absl::MutexLock apply(&apply_mu_);
  // What is not named must already follow the image: an earlier apply brought it in line.
  ABSL_CHECK(delta.full || following_image_.load())
      << "broker " << options_.broker_id << ": an incremental metadata apply before any full one";
  const auto apply_started = std::chrono::steady_clock::now();
  ImageWalk walk;
  absl::Cleanup timed = [&] {
    image_applies_.fetch_add(1, std::memory_order_relaxed);
    if (delta.full) image_full_applies_.fetch_add(1, std::memory_order_relaxed);
    image_apply_partitions_.fetch_add(walk.applied, std::memory_order_relaxed);
    image_apply_micros_.fetch_add(std::chrono::duration_cast<std::chrono::microseconds>(
                                      std::chrono::steady_clock::now() - apply_started)
                                      .count(),
                                  std::memory_order_relaxed);
  };
  // The partitions this entry makes followed cut their fetchers' fetches short once,
  // after all of them (ReplicaFetcherManager::Deferral).
  ReplicaFetcherManager::Deferral cut_once(fetchers_.get());
  const ApplyScope scope = ScopeOf(image, delta);
  // Throttles come from broker configs (a full delta) and topic configs: not looked at
  // again for an entry that changed neither (most are partition changes).
  if (delta.full || !delta.changed_topic_configs.empty() || !delta.deleted_topic_ids.empty()) ApplyThrottles(image);
  for (const auto& [name, topic] : scope.topics) {
    const controller::TopicState& state = *topic.state;
    const storage::LogConfig config = ConfigFor(image, name);
    const int32_t min_isr = MinInsyncReplicasOf(image, name);
    if (!topic.partitions) {
      for (const auto& [index, p] : state.partitions) ApplyPartition(image, state, index, p, config, min_isr, walk);
      continue;
    }
    for (int32_t index : *topic.partitions) {
      auto p = state.partitions.find(index);
      if (p != state.partitions.end()) ApplyPartition(image, state, index, p->second, config, min_isr, walk);
    }
  }
  ForgetUnwanted(scope, walk);
  if (delta.full) DeleteStrayLogs();
  std::function<void(const storage::TopicPartition&)> callback;
  {
    absl::MutexLock lock(&mu_);
    callback = on_high_watermark_;
  }
  if (callback) {
    for (const auto& tp : walk.moved) callback(tp);
  }
  following_image_ = true;
}

void ReplicaManager::ApplyPartition(const controller::MetadataImage& image, const controller::TopicState& topic,
                                    int32_t index, const pb::Partition& p, const storage::LogConfig& config,
                                    int32_t min_isr, ImageWalk& walk) {
  int replica_index = -1;
  for (int i = 0; i < p.replicas_size(); ++i) {
    if (p.replicas(i) == options_.broker_id) replica_index = i;
  }
  if (replica_index < 0) return;
  const controller::TopicId& topic_id = topic.id;
  storage::TopicPartition tp{topic.name, index};
  std::set<int32_t>& eligible = walk.eligible[tp];
  ++walk.applied;
  for (int i = 0; i < p.replicas_size(); ++i) {
    if (controller::ReplicaAvailable(image, p, p.replicas(i), i)) eligible.insert(p.replicas(i));
  }
  PartitionState state;
  state.topic_id = topic_id;
  state.leader = p.leader();
  state.leader_epoch = p.leader_epoch();
  state.partition_epoch = p.partition_epoch();
  state.replicas.assign(p.replicas().begin(), p.replicas().end());
  state.isr.assign(p.isr().begin(), p.isr().end());

  std::shared_ptr<Partition> partition;
  std::optional<Hosted> replaced;
  bool config_changed = false;
  {
    absl::MutexLock lock(&mu_);
    auto it = hosted_.find(tp);
    if (it != hosted_.end() && it->second.topic_id != topic_id) {
      replaced = std::move(it->second);
      hosted_.erase(it);
      it = hosted_.end();
    }
    if (it != hosted_.end()) {
      partition = it->second.partition;
      it->second.min_insync_replicas = min_isr;
      config_changed = !(it->second.config == config);
      if (config_changed) it->second.config = config;
    }
  }
  if (replaced) {
    if (fetchers_) fetchers_->RemovePartition(tp);
    DropPartition(tp, std::move(*replaced));
  }
  if (partition == nullptr) {
    std::string directory_id =
        DirectoryForNewLog(tp, replica_index < p.directories_size() ? p.directories(replica_index) : "");
    auto log = OpenLog(tp, topic_id, config, directory_id);
    if (!log.ok()) {
      // Said once per partition: every applied entry retries.
      bool first = false;
      {
        absl::MutexLock lock(&mu_);
        auto [known, added] = unopened_.try_emplace(tp, topic_id);
        first = added || known->second != topic_id;
        known->second = topic_id;
      }
      if (first) {
        spdlog::error("broker {}: cannot open the log of {}: {}", options_.broker_id, tp.DirName(),
                      log.status().ToString());
      }
      return;
    }
    {
      absl::MutexLock lock(&mu_);
      unopened_.erase(tp);
    }
    partition = std::make_shared<Partition>(tp, options_.broker_id, *log);
    {
      absl::MutexLock lock(&mu_);
      hosted_[tp] = Hosted{partition, topic_id, config, min_isr};
    }
    ResumeLogDirMove(tp, *partition);
  } else if (config_changed) {
    partition->UpdateLogConfig(config);
  }
  if (partition->log()->offline()) {
    // Its log dir failed: it answers KAFKA_STORAGE_ERROR and is neither followed nor
    // led here (the controller moves its leadership), and kept, not deleted. Produces
    // answered KAFKA_STORAGE_ERROR wait for the image to name another leader.
    if (fetchers_) fetchers_->RemovePartition(tp);
    bool left;
    {
      absl::MutexLock lock(&mu_);
      auto [known, added] = offline_leaders_.try_emplace(tp, p.leader());
      left = known->second == options_.broker_id && p.leader() != options_.broker_id;
      known->second = p.leader();
    }
    if (left) walk.moved.push_back(tp);
    return;
  }
  if (replica_index < p.directories_size()) {
    CheckDirectoryAssignment(tp, *partition, topic_id, p.directories(replica_index));
  }
  RemoteTierState remote =
      RemoteTierOf(image.FindRemoteSegments(topic_id, index), config.remote_storage_enable, p.log_start_offset());
  const int64_t start_before = partition->log_start_offset();
  partition->UpdateRemoteTier(remote);
  partition->SetHighestOffsetInRemoteStorage(remote.highest_copied_offset);
  int64_t hw_before = partition->high_watermark();
  bool led_before = partition->is_leader();
  size_t isr_before = led_before ? partition->state().isr.size() : 0;  // counted for leaders only
  auto changed = partition->Update(state, options_.clock->NowMs());
  if (changed.ok() && state.leader == options_.broker_id) {
    // Only a leader counts its followers' broker epochs (KIP-903); one that becomes
    // leader gets them here, in the image that made it leader.
    std::map<int32_t, int64_t> broker_epochs;
    for (int32_t r : state.replicas) {
      auto broker = image.brokers().find(r);
      if (broker != image.brokers().end()) broker_epochs[r] = broker->second.registration().broker_epoch();
    }
    partition->UpdateReplicaBrokerEpochs(broker_epochs);
  }
  if (changed.ok() && led_before && state.leader == options_.broker_id) {
    if (state.isr.size() < isr_before) isr_shrinks_.fetch_add(1, std::memory_order_relaxed);
    if (state.isr.size() > isr_before) isr_expands_.fetch_add(1, std::memory_order_relaxed);
  }
  if (!changed.ok()) {
    spdlog::error("broker {}: {}: {}", options_.broker_id, tp.DirName(), changed.status().ToString());
    return;
  }
  if (*changed) {
    spdlog::info("broker {}: {} {} in leader epoch {} (leader {}, isr [{}])", options_.broker_id, tp.DirName(),
                 state.leader == options_.broker_id ? "leads" : "follows", state.leader_epoch, state.leader,
                 absl::StrJoin(state.isr, ","));
  }
  FollowLeader(image, tp, state);
  // (A log start the remote tier moved wakes the DeleteRecords waiting for it.)
  if (*changed || partition->high_watermark() != hw_before || partition->log_start_offset() != start_before) {
    walk.moved.push_back(tp);
  }
}

void ReplicaManager::ForgetUnwanted(const ApplyScope& scope, ImageWalk& walk) {
  auto unwanted = [&](const storage::TopicPartition& tp, const controller::TopicId& topic_id) {
    return scope.Covers(tp, topic_id) && !walk.eligible.count(tp);
  };
  // Erases from map (hosted_ or unopened_) what the scope covers and the walk did not
  // want, handing each to dropped first. It looks at every entry when the scope covers
  // everything or a removed topic (known here by id only), else only at its topics'.
  auto sweep = [&](auto& map, auto topic_id_of, auto dropped) {
    auto consider = [&](auto it) {
      if (!unwanted(it->first, topic_id_of(it->second))) return std::next(it);
      dropped(it->first, it->second);
      return map.erase(it);
    };
    if (scope.everything || !scope.removed.empty()) {
      for (auto it = map.begin(); it != map.end();) it = consider(it);
      return;
    }
    for (const auto& [name, topic] : scope.topics) {
      if (topic.partitions) {
        for (int32_t index : *topic.partitions) {
          if (auto it = map.find(storage::TopicPartition{name, index}); it != map.end()) consider(it);
        }
        continue;
      }
      for (auto it = map.lower_bound(storage::TopicPartition{name, INT32_MIN});
           it != map.end() && it->first.topic == name;) {
        it = consider(it);
      }
    }
  };
  std::vector<std::pair<storage::TopicPartition, Hosted>> gone;
  {
    absl::MutexLock lock(&mu_);
    sweep(
        hosted_, [](const Hosted& h) -> const controller::TopicId& { return h.topic_id; },
        [&](const storage::TopicPartition& tp, Hosted& hosted) { gone.emplace_back(tp, std::move(hosted)); });
    for (const auto& [tp, hosted] : gone) offline_leaders_.erase(tp);
    sweep(
        unopened_, [](const controller::TopicId& id) -> const controller::TopicId& { return id; },
        [&](const storage::TopicPartition& tp, const controller::TopicId&) { walk.unopened_dropped.push_back(tp); });
  }
  {
    absl::MutexLock lock(&isr_mu_);
    if (scope.everything) {
      eligible_for_isr_ = std::move(walk.eligible);
    } else {
      // Walked partitions that no longer list this broker were hosted (or unopened) here,
      // so they are among those dropped.
      for (const auto& [tp, hosted] : gone) eligible_for_isr_.erase(tp);
      for (const storage::TopicPartition& tp : walk.unopened_dropped) eligible_for_isr_.erase(tp);
      for (auto& [tp, replicas] : walk.eligible) eligible_for_isr_[tp] = std::move(replicas);
    }
  }
  // What the incremental eligibility above relies on: a partition listing this broker is
  // either hosted or unopened here, and has eligible replicas exactly then (hosted_ and
  // unopened_ change only under apply_mu_, which this thread holds).
  size_t listed_here;
  {
    absl::MutexLock lock(&mu_);
    listed_here = hosted_.size() + unopened_.size();
  }
  {
    absl::MutexLock lock(&isr_mu_);
    ABSL_CHECK_EQ(eligible_for_isr_.size(), listed_here) << "broker " << options_.broker_id;
  }
  for (auto& [tp, hosted] : gone) {
    if (fetchers_) fetchers_->RemovePartition(tp);
    DropPartition(tp, std::move(hosted));
  }
}

void ReplicaManager::OnLogDirOffline(const std::string& dir) {
  std::vector<storage::TopicPartition> offline;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [tp, hosted] : hosted_) {
      if (hosted.partition->log()->log_dir() == dir) offline.push_back(tp);
    }
  }
  for (const auto& tp : offline) {
    if (fetchers_) fetchers_->RemovePartition(tp);
    if (std::shared_ptr<Partition> p = GetPartition(tp)) {
      absl::MutexLock lock(&mu_);
      offline_leaders_.try_emplace(tp, p->state().leader);  // until the next image says
    }
    NotifyHighWatermark(tp);  // waiting produces and fetches answer KAFKA_STORAGE_ERROR now
  }
  spdlog::error("broker {}: log dir {} is offline: {} partitions offline here ({})", options_.broker_id, dir,
                offline.size(), absl::StrJoin(offline, ",", [](std::string* out, const storage::TopicPartition& tp) {
                  out->append(tp.DirName());
                }));
}

void ReplicaManager::ApplyThrottles(const controller::MetadataImage& image) {
  // A broker's own dynamic config, else the cluster-wide default (""), else the static
  // setting (the log-dir move) or none (replication).
  mover_->SetRate(
      controller::DynamicBrokerDouble(image, "replica.alter.log.dirs.io.max.bytes.per.second", options_.broker_id)
          .value_or(options_.log_dir_move_max_bytes_per_second));
  leader_quota_.SetRate(controller::DynamicBrokerLong(image, "leader.replication.throttled.rate", options_.broker_id));
  follower_quota_.SetRate(
      controller::DynamicBrokerLong(image, "follower.replication.throttled.rate", options_.broker_id));
  std::map<std::string, ThrottledPartitions> leader, follower;
  for (const auto& [resource, values] : image.configs()) {
    if (resource.first != metadata::v1::Config::TOPIC) continue;
    for (auto [name, out] : {std::pair{"leader.replication.throttled.replicas", &leader},
                             std::pair{"follower.replication.throttled.replicas", &follower}}) {
      auto v = values.find(name);
      if (v == values.end()) continue;
      auto parsed = storage::ParseThrottledReplicas(v->second);  // the controller checked it
      if (parsed.ok()) (*out)[resource.second] = {parsed->all, parsed->PartitionsOf(options_.broker_id)};
    }
  }
  leader_quota_.SetThrottled(std::move(leader));
  follower_quota_.SetThrottled(std::move(follower));
}

bool ReplicaManager::LeaderThrottles(const Partition& partition, int32_t replica) const {
  return leader_quota_.IsThrottled(partition.topic_partition()) && !partition.InIsr(replica);
}

void ReplicaManager::DeleteStrayLogs() {
  std::vector<storage::TopicPartition> on_disk = options_.logs->partitions();
  std::vector<storage::TopicPartition> stray;
  {
    absl::MutexLock lock(&mu_);
    for (const storage::TopicPartition& tp : on_disk) {
      if (!hosted_.count(tp) && !unopened_.count(tp)) stray.push_back(tp);
    }
  }
  for (const storage::TopicPartition& tp : stray) {
    spdlog::info("broker {}: deleting {}: the metadata places it on other brokers only (a stray replica)",
                 options_.broker_id, tp.DirName());
    if (absl::Status s = options_.logs->DeleteLog(tp); !s.ok()) {
      spdlog::error("broker {}: deleting stray replica {}: {}", options_.broker_id, tp.DirName(), s.ToString());
    }
  }
}

void ReplicaManager::DropPartition(const storage::TopicPartition& tp, Hosted hosted) {
  // Requests hold the partition (and its Log*) only while they run: wait them out
  // before the log object goes.
  auto waited = std::chrono::steady_clock::now();
  while (hosted.partition.use_count() > 1) {
    if (std::chrono::steady_clock::now() - waited > std::chrono::seconds(5)) {
      spdlog::warn("broker {}: still waiting for requests on {} before deleting it", options_.broker_id, tp.DirName());
      waited = std::chrono::steady_clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  hosted.partition.reset();
  spdlog::info("broker {}: deleting {} (topic id {})", options_.broker_id, tp.DirName(),
               controller::TopicIdToString(hosted.topic_id));
  if (absl::Status s = options_.logs->DeleteLog(tp); !s.ok()) {
    spdlog::error("broker {}: deleting {}: {}", options_.broker_id, tp.DirName(), s.ToString());
  }
}

bool ReplicaManager::LeadershipLeft(const storage::TopicPartition& tp) const {
  std::shared_ptr<Partition> partition;
  {
    absl::MutexLock lock(&mu_);
    auto it = hosted_.find(tp);
    if (it == hosted_.end()) return true;
    partition = it->second.partition;
    // Offline: the partition's own state is no longer updated; the image's is recorded.
    auto offline = offline_leaders_.find(tp);
    if (offline != offline_leaders_.end()) return offline->second != options_.broker_id;
  }
  return !partition->is_leader();
}

bool ReplicaManager::WaitOfflineLeadershipsMoved(std::chrono::milliseconds timeout) const {
  absl::MutexLock lock(&mu_);
  auto moved = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (const auto& [tp, leader] : offline_leaders_) {
      if (leader == options_.broker_id) return false;
    }
    return true;
  };
  return mu_.AwaitWithTimeout(absl::Condition(&moved), absl::FromChrono(timeout));
}

bool ReplicaManager::ControllerOutOfReach() const {
  return options_.since_controller_contact &&
         options_.since_controller_contact().count() > options_.leader_lease_ms;
}

bool ReplicaManager::Stranded(const Partition& partition) const {
  return ControllerOutOfReach() && partition.FollowersSilentFor(options_.clock->NowMs(), options_.leader_lease_ms);
}

std::set<storage::TopicPartition> ReplicaManager::StrandedPartitions() const {
  std::set<storage::TopicPartition> out;
  if (!ControllerOutOfReach()) return out;
  std::vector<std::shared_ptr<Partition>> hosted;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [tp, h] : hosted_) hosted.push_back(h.partition);
  }
  const int64_t now = options_.clock->NowMs();
  for (const auto& p : hosted) {
    if (p->FollowersSilentFor(now, options_.leader_lease_ms)) out.insert(p->topic_partition());
  }
  return out;
}

std::shared_ptr<Partition> ReplicaManager::GetPartition(const storage::TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  auto it = hosted_.find(tp);
  return it == hosted_.end() ? nullptr : it->second.partition;
}

std::vector<storage::TopicPartition> ReplicaManager::partitions() const {
  absl::MutexLock lock(&mu_);
  std::vector<storage::TopicPartition> out;
  for (const auto& [tp, hosted] : hosted_) out.push_back(tp);
  return out;
}

std::optional<absl::Status> ReplicaManager::GapToBeFilled(const storage::TopicPartition& tp,
                                                          const Partition& partition, absl::string_view records,
                                                          const storage::SequenceGap& gap) const {
  // Behind a batch refused here a moment ago (produce_refusals.h).
  if (std::optional<absl::Status> behind = produce_refusals_.GapBehindRefusal(tp, records, gap)) return behind;
  // The producer's first batch in this leader epoch: the ones before it went to the
  // previous leader, and one of them may still come back from there as a retriable
  // error. librdkafka (2.0) sends the next batch to the new leader as soon as the old
  // leader's answer arrives, before it has queued the answered batch again: the gap is
  // filled by its next send (docs/idempotence.md).
  std::optional<storage::EpochEntry> epoch = partition.log()->leader_epoch_cache().Latest();
  if (epoch && gap.last_offset < epoch->start_offset &&
      options_.clock->NowMs() - partition.became_leader_ms() <= options_.new_leader_gap_retriable_ms) {
    return KafkaError(proto::kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat(tp.DirName(), ": the first batch of an idempotent producer in leader epoch ",
                                   epoch->epoch, " does not start at sequence ", gap.expected_sequence,
                                   ", which went to the previous leader and is not here: retriable, to be sent "
                                   "again after it"));
  }
  return std::nullopt;
}

absl::StatusOr<uint64_t> ReplicaManager::StartTxnVerification(const storage::TopicPartition& tp,
                                                               int64_t producer_id, int16_t producer_epoch,
                                                               bool epoch_bump) {
  std::shared_ptr<Partition> partition = GetPartition(tp);
  if (partition == nullptr || !partition->is_leader()) {
    return KafkaError(proto::kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", options_.broker_id, " does not lead ", tp.DirName()));
  }
  return partition->log()->StartTxnVerification(producer_id, producer_epoch, epoch_bump);
}

void ReplicaManager::EndTxnVerification(const storage::TopicPartition& tp, int64_t producer_id) {
  if (std::shared_ptr<Partition> partition = GetPartition(tp)) partition->log()->EndTxnVerification(producer_id);
}

absl::StatusOr<storage::LogAppendInfo> ReplicaManager::AppendRecords(const storage::TopicPartition& tp,
                                                                     std::string& records,
                                                                     storage::AppendOrigin origin,
                                                                     const storage::TxnVerification& verification) {
  std::shared_ptr<Partition> partition = GetPartition(tp);
  absl::StatusOr<storage::LogAppendInfo> info;
  if (partition == nullptr) {
    info = KafkaError(proto::kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", options_.broker_id, " hosts no replica of ", tp.DirName()));
  } else if (Stranded(*partition)) {
    info = KafkaError(proto::kafka::ErrorCode::kNotLeaderOrFollower,
                      absl::StrCat("broker ", options_.broker_id, " has reached neither the controller nor the other "
                                   "in-sync replicas of ", tp.DirName(), " for ", options_.leader_lease_ms,
                                   " ms: another broker may lead it now"));
  } else {
    info = partition->AppendRecordsToLeader(records, origin, verification);
  }
  if (info.ok()) {
    // New records: consumers wake when the high watermark moved, followers waiting at
    // the log end wake for the records themselves.
    if (!info->duplicate) NotifyHighWatermark(tp);
    return info;
  }
  auto code = KafkaErrorCodeOf(info.status());
  if (std::optional<storage::SequenceGap> gap = storage::SequenceGapOf(info.status())) {
    ABSL_CHECK(partition != nullptr) << "a sequence gap comes from the partition's log";
    if (std::optional<absl::Status> retriable = GapToBeFilled(tp, *partition, records, *gap)) {
      spdlog::info("broker {}: {}", options_.broker_id, retriable->message());
      return *retriable;
    }
  }
  if (code == proto::kafka::ErrorCode::kOutOfOrderSequenceNumber ||
      code == proto::kafka::ErrorCode::kInvalidProducerEpoch) {
    // Rare, and librdkafka stops an idempotent producer on it: say what the log held.
    spdlog::warn("broker {}: {} refused a produce in leader epoch {} at log end offset {}: {}", options_.broker_id,
                 tp.DirName(), partition->leader_epoch(), partition->log()->log_end_offset(),
                 info.status().message());
  } else {
    // Nothing of a refused produce is stored (a failed write takes its log dir offline).
    produce_refusals_.Refused(tp, records, info.status());
  }
  return info;
}

}  // namespace strata::broker
