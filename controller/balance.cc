#include "controller/balance.h"

#include <algorithm>
#include <set>

namespace strata::controller {
namespace {

struct Counts {
  std::map<int32_t, int64_t> replicas;
  std::map<int32_t, int64_t> leaders;
};

Counts CountOf(const std::vector<PlacementBroker>& brokers, const ClusterAssignment& a) {
  Counts c;
  for (const PlacementBroker& b : brokers) {
    c.replicas[b.id] = 0;
    c.leaders[b.id] = 0;
  }
  for (const auto& [key, replicas] : a) {
    for (size_t i = 0; i < replicas.size(); ++i) {
      if (!c.replicas.count(replicas[i])) continue;
      ++c.replicas[replicas[i]];
      if (i == 0) ++c.leaders[replicas[i]];
    }
  }
  return c;
}

// Brokers by count, fewest first (ties: lowest id).
std::vector<int32_t> Ascending(const std::map<int32_t, int64_t>& counts) {
  std::vector<int32_t> ids;
  for (const auto& [id, n] : counts) ids.push_back(id);
  std::stable_sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) { return counts.at(a) < counts.at(b); });
  return ids;
}

class Balancer {
 public:
  Balancer(const std::vector<PlacementBroker>& brokers, ClusterAssignment assignment)
      : assignment_(std::move(assignment)) {
    for (const PlacementBroker& b : brokers) rack_[b.id] = b.rack.value_or("");
    counts_ = CountOf(brokers, assignment_);
  }

  // A replica on a broker that is not usable moves to the usable broker holding fewest
  // that the partition lacks.
  void MoveOffUnusable() {
    for (auto& [key, replicas] : assignment_) {
      for (int32_t& r : replicas) {
        if (rack_.count(r)) continue;
        for (int32_t to : Ascending(counts_.replicas)) {
          if (std::find(replicas.begin(), replicas.end(), to) != replicas.end()) continue;
          const bool first = &r == &replicas[0];
          r = to;
          ++counts_.replicas[to];
          if (first) ++counts_.leaders[to];
          break;
        }
      }
    }
  }

  void EvenReplicas() {
    while (MoveOneReplica()) {
    }
  }

  void EvenLeaders() {
    while (SwapOneLeader()) {
    }
  }

  const ClusterAssignment& assignment() const { return assignment_; }

 private:
  size_t RacksOf(const std::vector<int32_t>& replicas) const {
    std::set<std::string> racks;
    for (int32_t r : replicas) racks.insert(rack_.count(r) ? rack_.at(r) : "");
    return racks.size();
  }

  // One replica from the broker holding most to one holding fewer (by two or more), on a
  // partition whose rack count does not drop; false when none can move.
  bool MoveOneReplica() {
    std::vector<int32_t> order = Ascending(counts_.replicas);
    for (auto from = order.rbegin(); from != order.rend(); ++from) {
      for (int32_t to : order) {
        if (counts_.replicas[*from] - counts_.replicas[to] < 2) break;
        if (TryMove(*from, to)) return true;
      }
    }
    return false;
  }

  bool TryMove(int32_t from, int32_t to) {
    for (auto& [key, replicas] : assignment_) {
      auto at = std::find(replicas.begin(), replicas.end(), from);
      if (at == replicas.end() || std::find(replicas.begin(), replicas.end(), to) != replicas.end()) continue;
      std::vector<int32_t> moved = replicas;
      moved[static_cast<size_t>(at - replicas.begin())] = to;
      if (RacksOf(moved) < RacksOf(replicas)) continue;
      const bool first = at == replicas.begin();
      replicas = std::move(moved);
      --counts_.replicas[from];
      ++counts_.replicas[to];
      if (first) {
        --counts_.leaders[from];
        ++counts_.leaders[to];
      }
      return true;
    }
    return false;
  }

  // The broker first in most partitions swaps places with a replica of one of them that
  // is first in fewer (by two or more); false when none can.
  bool SwapOneLeader() {
    std::vector<int32_t> order = Ascending(counts_.leaders);
    for (auto from = order.rbegin(); from != order.rend(); ++from) {
      for (int32_t to : order) {
        if (counts_.leaders[*from] - counts_.leaders[to] < 2) break;
        for (auto& [key, replicas] : assignment_) {
          if (replicas.empty() || replicas[0] != *from) continue;
          auto at = std::find(replicas.begin(), replicas.end(), to);
          if (at == replicas.end()) continue;
          std::iter_swap(replicas.begin(), at);
          --counts_.leaders[*from];
          ++counts_.leaders[to];
          return true;
        }
      }
    }
    return false;
  }

  std::map<int32_t, std::string> rack_;  // usable brokers
  ClusterAssignment assignment_;
  Counts counts_;
};

}  // namespace

ClusterAssignment PlanBalance(const std::vector<PlacementBroker>& brokers, const ClusterAssignment& current) {
  Balancer balancer(brokers, current);
  balancer.MoveOffUnusable();
  balancer.EvenReplicas();
  balancer.EvenLeaders();
  ClusterAssignment changed;
  for (const auto& [key, replicas] : balancer.assignment()) {
    if (current.at(key) != replicas) changed.emplace(key, replicas);
  }
  return changed;
}

}  // namespace strata::controller
