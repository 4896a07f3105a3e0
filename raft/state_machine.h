#pragma once
// What a Raft node applies committed entries to. The controller plugs its RocksDB
// metadata image in here (issue 4); AppliedLog keeps the applied entries in memory,
// which is what the controller process serves until then.
// Thread-safe: Apply is called on the driver thread, the readers from any thread.

#include <cstdint>
#include <mutex>
#include <vector>

#include "raft/types.h"

namespace strata::raft {

class StateMachine {
 public:
  virtual ~StateMachine() = default;
  // Called for each committed entry in index order; after a restart from index 1 again.
  virtual void Apply(const Entry& entry) = 0;
};

class AppliedLog final : public StateMachine {
 public:
  void Apply(const Entry& entry) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (entry.index == static_cast<Index>(entries_.size()) + 1) {
      entries_.push_back(entry);
    } else if (entry.index <= static_cast<Index>(entries_.size())) {
      entries_[entry.index - 1] = entry;  // re-applied after a restart: the same entry
    }
  }
  // Up to max entries from index `from` (1-based).
  std::vector<Entry> Read(Index from, size_t max) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Entry> out;
    for (Index i = std::max<Index>(from, 1); i <= static_cast<Index>(entries_.size()) && out.size() < max; ++i) {
      out.push_back(entries_[i - 1]);
    }
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
};

}  // namespace strata::raft
