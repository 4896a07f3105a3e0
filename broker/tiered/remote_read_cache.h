#pragma once
// RemoteReadCache: what the remote tier returned, kept in memory up to a byte budget,
// least recently used out first: remote segments' indexes, whole (the .log objects'
// blocks are kept on disk: RemoteChunkCache). An entry larger than the budget is not kept.
// Thread-safe.

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace strata::broker {

class RemoteReadCache {
 public:
  using Key = std::pair<std::string, int64_t>;  // segment id, an index type
  using Value = std::shared_ptr<const std::string>;

  explicit RemoteReadCache(int64_t budget_bytes) : budget_(budget_bytes) {}

  // The entry (null: not cached); a hit makes it the most recent.
  Value Get(const Key& key) {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return nullptr;
    lru_.splice(lru_.begin(), lru_, it->second.at);
    return it->second.value;
  }

  void Put(const Key& key, Value value) {
    int64_t size = static_cast<int64_t>(value->size());
    absl::MutexLock lock(&mu_);
    if (size > budget_ || entries_.count(key)) return;
    lru_.push_front(key);
    entries_[key] = Entry{std::move(value), lru_.begin()};
    bytes_ += size;
    while (bytes_ > budget_) {
      auto victim = entries_.find(lru_.back());
      bytes_ -= static_cast<int64_t>(victim->second.value->size());
      entries_.erase(victim);
      lru_.pop_back();
    }
  }

 private:
  struct Entry {
    Value value;
    std::list<Key>::iterator at;
  };
  const int64_t budget_;
  absl::Mutex mu_;
  std::list<Key> lru_ ABSL_GUARDED_BY(mu_);  // most recent first
  std::map<Key, Entry> entries_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace strata::broker
