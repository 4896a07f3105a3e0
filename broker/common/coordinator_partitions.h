#pragma once
// CoordinatorPartitions: the partitions of a coordinator's internal topic this broker
// leads (`__transaction_state`, `__share_group_state`), in which leader epoch, and whether
// each is loaded, with what a request for a key there is answered (NOT_COORDINATOR while
// it is not led here, COORDINATOR_LOAD_IN_PROGRESS until loaded). A coordinator keeps one
// under its own mutex: leadership comes from the broker after each metadata image
// (Update), loads run on the coordinator's thread (TakeLoads, then Loaded or RetryLoad).
// Not thread-safe.

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "proto/kafka/error_code.h"

namespace strata::broker {

class CoordinatorPartitions {
 public:
  // The partitions led now (partition -> leader epoch). A partition no longer led, or led
  // in another epoch, is dropped (returned, for the coordinator to forget its keys); a new
  // one (or a new epoch) is to be loaded.
  std::vector<int32_t> Update(const std::map<int32_t, int32_t>& led) {
    std::vector<int32_t> dropped;
    for (auto it = owned_.begin(); it != owned_.end();) {
      auto now = led.find(it->first);
      if (now != led.end() && now->second == it->second.leader_epoch) {
        ++it;
        continue;
      }
      dropped.push_back(it->first);
      it = owned_.erase(it);
    }
    for (const auto& [partition, epoch] : led) {
      if (owned_.emplace(partition, Owned{epoch, false}).second) loads_.emplace_back(partition, epoch);
    }
    return dropped;
  }

  proto::kafka::ErrorCode Reach(int32_t partition) const {
    auto it = owned_.find(partition);
    if (it == owned_.end()) return proto::kafka::ErrorCode::kNotCoordinator;
    if (!it->second.loaded) return proto::kafka::ErrorCode::kCoordinatorLoadInProgress;
    return proto::kafka::ErrorCode::kNone;
  }

  // The partition's leader epoch; -1 when it is not led here.
  int32_t LeaderEpoch(int32_t partition) const {
    auto it = owned_.find(partition);
    return it == owned_.end() ? -1 : it->second.leader_epoch;
  }

  // The loads to run: (partition, leader epoch), in the order they came.
  std::deque<std::pair<int32_t, int32_t>> TakeLoads() { return std::exchange(loads_, {}); }
  // Whether a load of partition in leader_epoch still counts (not dropped, not reloaded).
  bool StillLoading(int32_t partition, int32_t leader_epoch) const {
    auto it = owned_.find(partition);
    return it != owned_.end() && it->second.leader_epoch == leader_epoch && !it->second.loaded;
  }
  // REQUIRES: StillLoading(partition, its epoch).
  void Loaded(int32_t partition) { owned_.at(partition).loaded = true; }
  void RetryLoad(int32_t partition, int32_t leader_epoch) { loads_.emplace_back(partition, leader_epoch); }

  size_t size() const { return owned_.size(); }
  // Whether a led partition is not loaded yet (a listing of every key answers
  // COORDINATOR_LOAD_IN_PROGRESS).
  bool AnyLoading() const {
    for (const auto& [partition, owned] : owned_) {
      if (!owned.loaded) return true;
    }
    return false;
  }

 private:
  struct Owned {
    int32_t leader_epoch = -1;
    bool loaded = false;
  };
  std::map<int32_t, Owned> owned_;
  std::deque<std::pair<int32_t, int32_t>> loads_;
};

}  // namespace strata::broker
