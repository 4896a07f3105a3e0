#include "broker/share/share_coordinator.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/check.h"
#include "base/logging.h"

namespace strata::broker {
namespace {

GroupLogRecord RecordOf(const ShareStateWrite& write) {
  GroupLogRecord r;
  r.key = EncodeShareStateKey(write.key);
  if (write.value) r.value = EncodeShareSnapshotValue(*write.value);
  return r;
}

}  // namespace

ShareCoordinator::ShareCoordinator(ShareCoordinatorOptions options, GroupLog* log)
    : options_(std::move(options)), log_(log) {
  ABSL_CHECK(log_ != nullptr);
  ABSL_CHECK_GT(options_.state_topic_partitions, 0);
  if (options_.start_thread) {
    worker_ = std::make_unique<PeriodicWorker>(absl::Milliseconds(100), [this] { RunDueTimers(); });
  }
}

ShareCoordinator::~ShareCoordinator() {
  worker_.reset();  // no tick after this
  lifetime_->Close();
}

bool ShareCoordinator::IsLoaded(int32_t partition) const {
  absl::MutexLock lock(&mu_);
  return partitions_.Reach(partition) == ErrorCode::kNone;
}

void ShareCoordinator::OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
  if (topic_partitions != options_.state_topic_partitions && topic_partitions > 0) {
    // Keys are placed by the configured count, as FindCoordinator tells brokers.
    spdlog::error("{} has {} partitions but share.coordinator.state.topic.num.partitions is {}: share partitions are "
                  "placed by the setting",
                  kShareGroupStateTopic, topic_partitions, options_.state_topic_partitions);
  }
  absl::MutexLock lock(&mu_);
  for (int32_t partition : partitions_.Update(led)) {
    spdlog::info("share coordinator: no longer leads {}-{}", kShareGroupStateTopic, partition);
    states_.erase(partition);
  }
}

void ShareCoordinator::LoadPartition(int32_t partition, int32_t leader_epoch) {
  ShareStates loaded;
  absl::Status status = log_->Read(partition, leader_epoch, [&](GroupLogRecord r) -> absl::Status {
    auto key = DecodeShareStateKey(r.key);
    if (!key.ok()) return key.status();
    ShareStateWrite write{*std::move(key), std::nullopt};
    if (r.value) {
      auto value = DecodeShareSnapshotValue(*r.value);
      if (!value.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("share partition ", ShareCoordinatorKey(write.key), ": ", value.status().message()));
      }
      write.value = *std::move(value);
    }
    ApplyShareStateWrite(loaded, write);
    return absl::OkStatus();
  });
  absl::MutexLock lock(&mu_);
  if (!partitions_.StillLoading(partition, leader_epoch)) return;  // moved on meanwhile
  if (!status.ok()) {
    // Retried: a partition that cannot be read is never served from a partial state.
    spdlog::error("share coordinator: loading {}-{}: {}", kShareGroupStateTopic, partition, status.message());
    partitions_.RetryLoad(partition, leader_epoch);
    return;
  }
  spdlog::info("share coordinator: loaded {}-{} in leader epoch {}: {} share partitions", kShareGroupStateTopic,
               partition, leader_epoch, loaded.size());
  states_[partition] = std::move(loaded);
  partitions_.Loaded(partition);
}

void ShareCoordinator::Submit(const ShareStateKey& key, Decide decide, Respond respond) {
  const int32_t partition = PartitionFor(key);
  ShareStateOutcome out;
  int32_t leader_epoch = -1;
  {
    absl::MutexLock lock(&mu_);
    out.error = partitions_.Reach(partition);
    if (out.error == ErrorCode::kNone) {
      auto busy = busy_.find(key);
      if (busy != busy_.end()) {
        busy->second.push_back([this, key, decide = std::move(decide), respond = std::move(respond)]() mutable {
          Submit(key, std::move(decide), std::move(respond));
        });
        return;
      }
      out = decide(states_[partition], options_.clock->NowMs());
      leader_epoch = partitions_.LeaderEpoch(partition);
      if (out.error == ErrorCode::kNone && out.write) busy_[key];
    }
  }
  if (out.error != ErrorCode::kNone || !out.write) return respond(std::move(out));
  std::vector<GroupLogRecord> records{RecordOf(*out.write)};
  log_->Append(partition, leader_epoch, std::move(records),
               [this, lifetime = lifetime_, key, partition, leader_epoch, out, respond](ErrorCode e) {
                 lifetime->IfAlive([&] { Written(key, partition, leader_epoch, out, respond, e); });
               });
}

void ShareCoordinator::Written(const ShareStateKey& key, int32_t partition, int32_t leader_epoch,
                               ShareStateOutcome out, const Respond& respond, ErrorCode e) {
  std::deque<std::function<void()>> waiting;
  {
    absl::MutexLock lock(&mu_);
    if (e == ErrorCode::kNone && partitions_.LeaderEpoch(partition) != leader_epoch) {
      e = ErrorCode::kNotCoordinator;  // dropped meanwhile: its successor loads what was committed
    }
    if (e == ErrorCode::kNone) {
      ApplyShareStateWrite(states_[partition], *out.write);
      ++writes_;
    }
    auto busy = busy_.find(key);
    ABSL_CHECK(busy != busy_.end()) << "a write completed for " << ShareCoordinatorKey(key) << " with none in flight";
    waiting.swap(busy->second);
    busy_.erase(busy);
  }
  if (e != ErrorCode::kNone) {
    out = ShareStateOutcome{};
    out.error = e;
  }
  respond(std::move(out));
  for (auto& next : waiting) next();  // in order: the first that writes queues the rest again
}

void ShareCoordinator::Initialize(const ShareStateKey& key, int32_t state_epoch, int64_t start_offset,
                                  Respond respond) {
  Submit(
      key,
      [key, state_epoch, start_offset](const ShareStates& states, int64_t now_ms) {
        return InitializeShareState(states, key, state_epoch, start_offset, now_ms);
      },
      std::move(respond));
}

void ShareCoordinator::Write(const ShareStateKey& key, int32_t state_epoch, int32_t leader_epoch,
                             SharePartitionState state, Respond respond) {
  Submit(
      key,
      [key, state_epoch, leader_epoch, state = std::move(state)](const ShareStates& states, int64_t now_ms) {
        return WriteShareState(states, key, state_epoch, leader_epoch, state, now_ms);
      },
      std::move(respond));
}

void ShareCoordinator::Read(const ShareStateKey& key, int32_t leader_epoch, Respond respond) {
  Submit(
      key,
      [key, leader_epoch](const ShareStates& states, int64_t now_ms) {
        return ReadShareState(states, key, leader_epoch, now_ms);
      },
      std::move(respond));
}

void ShareCoordinator::ReadSummary(const ShareStateKey& key, int32_t leader_epoch, Respond respond) {
  Submit(
      key,
      [key, leader_epoch](const ShareStates& states, int64_t) { return ReadShareStateSummary(states, key, leader_epoch); },
      std::move(respond));
}

void ShareCoordinator::Delete(const ShareStateKey& key, Respond respond) {
  Submit(
      key, [key](const ShareStates& states, int64_t) { return DeleteShareState(states, key); }, std::move(respond));
}

void ShareCoordinator::RunDueTimers() {
  std::deque<std::pair<int32_t, int32_t>> loads;
  {
    absl::MutexLock lock(&mu_);
    loads = partitions_.TakeLoads();
  }
  for (const auto& [partition, epoch] : loads) LoadPartition(partition, epoch);
  log_->Poll();
}

ShareCoordinatorStats ShareCoordinator::stats() const {
  absl::MutexLock lock(&mu_);
  ShareCoordinatorStats s;
  s.partitions_owned = static_cast<int64_t>(partitions_.size());
  for (const auto& [partition, states] : states_) s.share_partitions += static_cast<int64_t>(states.size());
  s.writes = writes_;
  return s;
}

}  // namespace strata::broker
