// The broker's remote tier (BrokerRole, broker_role.h): its store as the settings choose
// it, the reader and the remote log manager with KIP-956's quotas, and the sweeper of
// objects no metadata names.

#include <spdlog/spdlog.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "broker/common/remote_segment_id.h"
#include "controller/broker_config.h"
#include "server/broker_role.h"
#include "server/remote_storage_factory.h"
#include "storage/file_names.h"
#include "storage/file_ops.h"

namespace strata::server {

namespace {

// The chunk cache where rsm.config.fetch.chunk.cache.path says; by default in the first
// log dir that takes it (the log manager leaves a directory of that name alone; a log dir
// that fails at start does not keep the broker down).
absl::StatusOr<std::unique_ptr<broker::RemoteChunkCache>> OpenRemoteChunkCache(const ServerConfig& config) {
  broker::RemoteChunkCacheOptions options;
  options.budget_bytes = config.rsm_fetch_chunk_cache_size;
  if (!config.rsm_fetch_chunk_cache_path.empty()) {
    options.dir = config.rsm_fetch_chunk_cache_path;
    return broker::RemoteChunkCache::Open(std::move(options));
  }
  absl::Status last = absl::FailedPreconditionError("log.dirs is empty");
  for (const std::string& dir : config.log_dirs) {
    options.dir = storage::JoinPath(dir, storage::kRemoteChunkCacheDirName);
    auto opened = broker::RemoteChunkCache::Open(options);
    if (opened.ok()) return opened;
    spdlog::warn("{}", opened.status().ToString());
    last = opened.status();
  }
  return last;
}

}  // namespace

absl::Status BrokerRole::OpenRemoteStorage(const ServerConfig& config) {
  if (!config.remote_log_storage_system_enable) return absl::OkStatus();
  STRATA_ASSIGN_OR_RETURN(OpenedRemoteStorage opened, OpenRemoteStorageManager(config));
  remote_storage_ = std::move(opened.store);
  remote_storage_description_ = std::move(opened.description);
  remote_copy_quota_ = std::make_unique<broker::RateQuota>(broker::RateQuota::Options{
      config.remote_log_manager_copy_quota_window_num,
      std::chrono::seconds(config.remote_log_manager_copy_quota_window_size_seconds)});
  remote_fetch_quota_ = std::make_unique<broker::RateQuota>(broker::RateQuota::Options{
      config.remote_log_manager_fetch_quota_window_num,
      std::chrono::seconds(config.remote_log_manager_fetch_quota_window_size_seconds)});
  static_copy_quota_ = config.remote_log_manager_copy_max_bytes_per_second;
  static_fetch_quota_ = config.remote_log_manager_fetch_max_bytes_per_second;
  {
    absl::MutexLock lock(&publish_mu_);
    ReconfigureRemoteQuotasLocked();
  }
  STRATA_ASSIGN_OR_RETURN(remote_chunk_cache_, OpenRemoteChunkCache(config));
  broker::RemoteLogReaderOptions ro;
  ro.remote_storage = remote_storage_.get();
  ro.chunk_cache = remote_chunk_cache_.get();
  ro.prefetch_max_bytes = config.rsm_fetch_chunk_cache_prefetch_max_size;
  ro.threads = config.remote_log_reader_threads;
  ro.index_cache_bytes = config.remote_log_index_file_cache_total_size_bytes;
  ro.fetch_quota = remote_fetch_quota_.get();
  remote_reader_ = std::make_unique<broker::RemoteLogReader>(ro);
  broker::TierStateMachineOptions to;
  to.remote_storage = remote_storage_.get();
  to.remote_segment_for = [store = store_](const std::string& topic_id, int32_t partition, int64_t offset) {
    return store->WithImage([&](const controller::MetadataImage& image) {
      std::optional<controller::RemoteLogSegments::Segment> out;
      const auto* segments = image.FindRemoteSegments(topic_id, partition);
      if (segments == nullptr) return out;
      // A copy that ends at offset first: its producer snapshot was taken right after it.
      for (const auto& [id, s] : segments->segments()) {
        if (s.state() == controller::RemoteLogSegments::Segment::COPY_SEGMENT_FINISHED && s.end_offset() == offset) {
          out = s;
          return out;
        }
      }
      if (const auto* s = segments->SegmentFor(offset, -1)) out = *s;
      return out;
    });
  };
  tier_state_machine_ = std::make_unique<broker::TierStateMachine>(std::move(to));
  return absl::OkStatus();
}

void BrokerRole::StartRemoteLogManager(const ServerConfig& config) {
  if (!config.remote_log_storage_system_enable) return;
  broker::RemoteLogManagerOptions mo;
  mo.broker_id = config.node_id;
  mo.remote_storage = remote_storage_.get();
  mo.controller = client_.get();
  mo.broker_epoch = [lifecycle = lifecycle_.get()] { return lifecycle->status().broker_epoch; };
  mo.partitions = [replicas = replicas_.get()] {
    std::vector<std::shared_ptr<broker::Partition>> out;
    for (const storage::TopicPartition& tp : replicas->partitions()) {
      if (auto p = replicas->GetPartition(tp)) out.push_back(std::move(p));
    }
    return out;
  };
  mo.remote_segments = [store = store_](const std::string& topic_id, int32_t partition) {
    return store->WithImage([&](const controller::MetadataImage& image) {
      std::map<std::string, controller::RemoteLogSegments::Segment> out;
      if (const auto* segments = image.FindRemoteSegments(topic_id, partition)) out = segments->segments();
      return out;
    });
  };
  mo.thread_pool_size = config.remote_log_manager_thread_pool_size;
  mo.task_interval = std::chrono::milliseconds(config.remote_log_manager_task_interval_ms);
  mo.retry_backoff = std::chrono::milliseconds(config.remote_log_manager_task_retry_backoff_ms);
  mo.retry_backoff_max = std::chrono::milliseconds(config.remote_log_manager_task_retry_backoff_max_ms);
  mo.copy_quota = remote_copy_quota_.get();
  remote_log_manager_ = std::make_unique<broker::RemoteLogManager>(std::move(mo));
  remote_log_manager_->Start();
  spdlog::info("broker {}: tiered storage on, remote segments in {}", config.node_id, remote_storage_description_);
}

void BrokerRole::ReconfigureRemoteQuotasLocked() {
  if (remote_copy_quota_ == nullptr) return;
  int64_t copy = static_copy_quota_, fetch = static_fetch_quota_;
  store_->WithImage([&](const controller::MetadataImage& image) {
    if (auto v = controller::DynamicBrokerLong(image, "remote.log.manager.copy.max.bytes.per.second", broker_id_)) {
      copy = *v;
    }
    if (auto v = controller::DynamicBrokerLong(image, "remote.log.manager.fetch.max.bytes.per.second", broker_id_)) {
      fetch = *v;
    }
  });
  auto bound = [](int64_t v) { return v == INT64_MAX ? std::nullopt : std::optional<int64_t>(v); };
  if (remote_copy_quota_->rate() != bound(copy) || remote_fetch_quota_->rate() != bound(fetch)) {
    spdlog::info("broker {}: remote tier quotas: copy {} bytes/s, fetch {} bytes/s", broker_id_,
                 copy == INT64_MAX ? std::string("unlimited") : absl::StrCat(copy),
                 fetch == INT64_MAX ? std::string("unlimited") : absl::StrCat(fetch));
  }
  remote_copy_quota_->SetRate(bound(copy));
  remote_fetch_quota_->SetRate(bound(fetch));
}

void BrokerRole::StartRemoteSweeper(const ServerConfig& config) {
  if (!config.remote_log_storage_system_enable) return;
  broker::RemoteSweeperOptions so;
  so.remote_storage = remote_storage_.get();
  // The unfenced broker with the lowest id sweeps.
  so.elected = [this, store = store_] {
    return store->WithImage([&](const controller::MetadataImage& image) {
      for (const auto& [id, state] : image.brokers()) {
        if (!state.fenced()) return id == broker_id_;
      }
      return false;
    });
  };
  so.topic_exists = [store = store_](const std::string& topic_id) {
    std::string raw;
    if (!absl::WebSafeBase64Unescape(topic_id, &raw)) return false;
    return store->WithImage(
        [&](const controller::MetadataImage& image) { return image.FindTopicById(raw) != nullptr; });
  };
  so.copy_known = [store = store_](const std::string& topic_id, int32_t partition, const std::string& segment_id) {
    std::string topic, segment;
    if (!absl::WebSafeBase64Unescape(topic_id, &topic) || !absl::WebSafeBase64Unescape(segment_id, &segment)) {
      return false;
    }
    return store->WithImage([&](const controller::MetadataImage& image) {
      const controller::RemoteLogSegments* copies = image.FindRemoteSegments(topic, partition);
      return copies != nullptr && copies->segments().count(segment) > 0;
    });
  };
  so.interval = std::chrono::milliseconds(config.remote_log_orphan_sweep_interval_ms);
  so.grace = std::chrono::milliseconds(config.remote_log_orphan_grace_ms);
  so.retry_backoff = std::chrono::milliseconds(config.remote_log_manager_task_retry_backoff_ms);
  so.retry_backoff_max = std::chrono::milliseconds(config.remote_log_manager_task_retry_backoff_max_ms);
  remote_sweeper_ = std::make_unique<broker::RemoteSweeper>(std::move(so));
  remote_sweeper_->Start();
}

}  // namespace strata::server
