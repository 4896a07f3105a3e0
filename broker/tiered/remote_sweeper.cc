#include "broker/tiered/remote_sweeper.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::broker {
namespace {

// DeleteObjects takes this many names a call (S3's DeleteObjects limit).
constexpr size_t kDeleteBatch = 1000;

absl::StatusOr<int64_t> DeleteAll(storage::RemoteStorageManager& store, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); i += kDeleteBatch) {
    std::vector<std::string> batch(names.begin() + static_cast<std::ptrdiff_t>(i),
                                   names.begin() + static_cast<std::ptrdiff_t>(std::min(names.size(), i + kDeleteBatch)));
    if (absl::Status s = store.DeleteObjects(batch); !s.ok()) return s;
  }
  return static_cast<int64_t>(names.size());
}

}  // namespace

bool ParseRemoteObjectName(const std::string& name, std::string* topic_id, int32_t* partition,
                           std::string* segment_id) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) return false;
  const std::string dir = name.substr(0, slash);
  const size_t dash = dir.rfind('-');
  if (dash == std::string::npos || dash == 0 || !absl::SimpleAtoi(dir.substr(dash + 1), partition)) return false;
  *topic_id = dir.substr(0, dash);
  const std::string file = name.substr(slash + 1);
  const size_t dot = file.find('.');
  if (dot == std::string::npos || dot == 0) return false;
  *segment_id = file.substr(0, dot);
  return true;
}

RemoteSweeper::RemoteSweeper(RemoteSweeperOptions options) : options_(std::move(options)) {
  ABSL_CHECK(options_.remote_storage != nullptr);
  ABSL_CHECK(options_.elected != nullptr);
  ABSL_CHECK(options_.topic_exists != nullptr);
  ABSL_CHECK(options_.copy_known != nullptr);
}

RemoteSweeper::~RemoteSweeper() { Shutdown(); }

void RemoteSweeper::Start() { thread_ = std::thread([this] { Loop(); }); }

void RemoteSweeper::Shutdown() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void RemoteSweeper::TopicDeleted(const std::string& topic_id) {
  absl::MutexLock lock(&mu_);
  pending_topics_.insert(topic_id);
}

absl::StatusOr<int64_t> RemoteSweeper::DeleteTopicObjects(const std::string& topic_id) {
  std::vector<std::string> names;
  absl::Status listed = options_.remote_storage->ListObjects(
      absl::StrCat(topic_id, "-"), [&](const storage::RemoteObject& o) { names.push_back(o.name); });
  if (!listed.ok()) return listed;
  auto deleted = DeleteAll(*options_.remote_storage, names);
  if (deleted.ok()) topic_objects_deleted_ += *deleted;
  return deleted;
}

absl::StatusOr<int64_t> RemoteSweeper::Sweep() {
  ++sweeps_;
  const absl::Time old_enough = Now() - absl::FromChrono(options_.grace);
  std::vector<std::string> orphans;
  absl::Status listed = options_.remote_storage->ListObjects("", [&](const storage::RemoteObject& o) {
    if (o.modified > old_enough) return;  // perhaps a copy this broker's image has not heard of yet
    std::string topic_id, segment_id;
    int32_t partition = 0;
    // A failed copy's leftover (a .tmp file, an upload never completed) goes even when
    // its copy is known: the copy was retried under the same name, or will be deleted.
    const bool leftover = absl::EndsWith(o.name, ".tmp") || o.name.find("#upload=") != std::string::npos;
    const bool named = ParseRemoteObjectName(o.name, &topic_id, &partition, &segment_id) &&
                       options_.topic_exists(topic_id) && options_.copy_known(topic_id, partition, segment_id);
    if (leftover || !named) orphans.push_back(o.name);
  });
  if (!listed.ok()) return listed;
  auto deleted = DeleteAll(*options_.remote_storage, orphans);
  if (!deleted.ok()) return deleted.status();
  orphans_deleted_ += *deleted;
  if (*deleted > 0) spdlog::info("remote tier sweep: deleted {} objects that no metadata names", *deleted);
  return deleted;
}

void RemoteSweeper::Loop() {
  absl::Time next_sweep = Now() + absl::FromChrono(options_.interval);
  std::chrono::milliseconds backoff(0);
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      // Backing off: the backoff; else until the next sweep, or a deleted topic.
      const bool backing_off = backoff.count() > 0;
      const absl::Duration wait = backing_off ? absl::FromChrono(backoff)
                                              : std::max(next_sweep - Now(), absl::ZeroDuration());
      auto woken = [this, backing_off]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || (!backing_off && !pending_topics_.empty());
      };
      mu_.AwaitWithTimeout(absl::Condition(&woken), wait);
      if (stopping_) return;
    }
    if (!options_.elected()) {
      // Another broker deletes (and, should it fail, a later sweep finds what is left).
      absl::MutexLock lock(&mu_);
      pending_topics_.clear();
      backoff = options_.retry_backoff;  // look again later
      next_sweep = Now() + absl::FromChrono(options_.interval);
      continue;
    }
    std::set<std::string> topics;
    {
      absl::MutexLock lock(&mu_);
      topics = pending_topics_;
    }
    bool failed = false;
    for (const std::string& topic : topics) {
      auto deleted = DeleteTopicObjects(topic);
      if (!deleted.ok()) {
        ++errors_;
        failed = true;
        spdlog::warn("remote tier: deleting the objects of deleted topic {} failed (retried): {}", topic,
                     deleted.status().ToString());
        continue;
      }
      spdlog::info("remote tier: deleted the {} objects of deleted topic {}", *deleted, topic);
      absl::MutexLock lock(&mu_);
      pending_topics_.erase(topic);
    }
    if (Now() >= next_sweep) {
      if (auto swept = Sweep(); !swept.ok()) {
        ++errors_;
        failed = true;
        spdlog::warn("remote tier sweep failed (retried): {}", swept.status().ToString());
      } else {
        next_sweep = Now() + absl::FromChrono(options_.interval);
      }
    }
    backoff = !failed ? std::chrono::milliseconds(0)
                      : std::min(options_.retry_backoff_max,
                                 backoff.count() == 0 ? options_.retry_backoff : backoff * 2);
  }
}

RemoteSweeperStats RemoteSweeper::stats() const {
  RemoteSweeperStats out;
  out.sweeps = sweeps_;
  out.orphans_deleted = orphans_deleted_;
  out.topic_objects_deleted = topic_objects_deleted_;
  out.errors = errors_;
  absl::MutexLock lock(&mu_);
  out.topics_pending = static_cast<int64_t>(pending_topics_.size());
  return out;
}

}  // namespace strata::broker
