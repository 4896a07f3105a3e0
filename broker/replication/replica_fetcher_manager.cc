#include "broker/replication/replica_fetcher_manager.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::broker {

ReplicaFetcherManager::~ReplicaFetcherManager() { Shutdown(); }

void ReplicaFetcherManager::Shutdown() {
  std::map<Key, std::unique_ptr<ReplicaFetcher>> fetchers;
  {
    absl::MutexLock lock(&mu_);
    fetchers.swap(fetchers_);
    assigned_.clear();
  }
  fetchers.clear();  // joins their threads outside the lock
}

void ReplicaFetcherManager::AddPartition(const storage::TopicPartition& tp, int32_t leader_id, const std::string& host,
                                         int port, int32_t leader_epoch) {
  std::unique_ptr<ReplicaFetcher> idle;
  {
    absl::MutexLock lock(&mu_);
    int index = static_cast<int>(std::hash<std::string>()(tp.DirName()) % std::max(1, options_.num_fetchers));
    Key key{leader_id, absl::StrCat(host, ":", port), index};
    auto assigned = assigned_.find(tp);
    if (assigned != assigned_.end() && !(assigned->second == key)) {
      auto old = fetchers_.find(assigned->second);
      if (old != fetchers_.end()) {
        old->second->RemovePartition(tp);
        if (old->second->partition_count() == 0) {
          idle = std::move(old->second);
          fetchers_.erase(old);
        }
      }
    }
    auto& fetcher = fetchers_[key];
    if (!fetcher) {
      ReplicaFetcherOptions o = options_.fetcher;
      o.leader_id = leader_id;
      o.host = host;
      o.port = port;
      fetcher = std::make_unique<ReplicaFetcher>(o, partitions_);
    }
    fetcher->AddPartition(tp, leader_epoch);
    if (deferrals_ > 0) {
      added_.insert(key);
    } else {
      fetcher->CutShortForAdded();
    }
    assigned_[tp] = key;
  }
  idle.reset();
}

ReplicaFetcherManager::Deferral::Deferral(ReplicaFetcherManager* manager) : manager_(manager) {
  if (manager_ == nullptr) return;
  absl::MutexLock lock(&manager_->mu_);
  ++manager_->deferrals_;
}

ReplicaFetcherManager::Deferral::~Deferral() {
  if (manager_ == nullptr) return;
  absl::MutexLock lock(&manager_->mu_);
  ABSL_CHECK_GT(manager_->deferrals_, 0);
  if (--manager_->deferrals_ > 0) return;
  for (const Key& key : manager_->added_) {
    auto fetcher = manager_->fetchers_.find(key);
    if (fetcher != manager_->fetchers_.end()) fetcher->second->CutShortForAdded();
  }
  manager_->added_.clear();
}

void ReplicaFetcherManager::RemovePartition(const storage::TopicPartition& tp) {
  std::unique_ptr<ReplicaFetcher> idle;
  {
    absl::MutexLock lock(&mu_);
    auto assigned = assigned_.find(tp);
    if (assigned == assigned_.end()) return;
    auto fetcher = fetchers_.find(assigned->second);
    if (fetcher != fetchers_.end()) {
      fetcher->second->RemovePartition(tp);
      if (fetcher->second->partition_count() == 0) {
        idle = std::move(fetcher->second);
        fetchers_.erase(fetcher);
      }
    }
    assigned_.erase(assigned);
  }
  idle.reset();
}

int32_t ReplicaFetcherManager::LeaderOf(const storage::TopicPartition& tp) const {
  absl::MutexLock lock(&mu_);
  auto it = assigned_.find(tp);
  return it == assigned_.end() ? -1 : it->second.leader_id;
}

size_t ReplicaFetcherManager::fetcher_count() const {
  absl::MutexLock lock(&mu_);
  return fetchers_.size();
}

std::vector<ReplicaFetcherManager::PartitionLag> ReplicaFetcherManager::Lags() const {
  std::vector<PartitionLag> out;
  absl::MutexLock lock(&mu_);
  for (const auto& [key, fetcher] : fetchers_) {
    for (auto& [tp, lag] : fetcher->Lags()) out.push_back(PartitionLag{tp, key.leader_id, lag});
  }
  return out;
}

}  // namespace strata::broker
