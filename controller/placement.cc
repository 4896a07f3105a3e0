#include "controller/placement.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"

namespace strata::controller {
namespace {

// Error messages list at most this many broker ids.
constexpr size_t kMaxIdsInMessage = 10;

std::string JoinIds(const std::vector<int32_t>& ids) {
  if (ids.size() <= kMaxIdsInMessage) return absl::StrJoin(ids, ", ");
  std::vector<int32_t> shown(ids.begin(), ids.begin() + kMaxIdsInMessage);
  return absl::StrCat(absl::StrJoin(shown, ", "), " and ", ids.size() - kMaxIdsInMessage, " more");
}

bool HasRack(const PlacementBroker& broker) { return broker.rack.has_value() && !broker.rack->empty(); }

// A usable broker while placing; its load grows as partitions are placed.
struct Slot {
  int32_t id = 0;
  int rack = 0;  // index into Placer::racks_; all 0 when no broker has a rack
  int64_t replicas = 0;
  int64_t leaders = 0;
};

struct Rack {
  int64_t brokers = 0;
  int64_t replicas = 0;  // over its brokers, existing ones included
};

// Which brokers the partitions placed by this request put together (by slot index). Used
// to spread the followers of a broker over many others: when it fails, its leaderships
// and the re-replication of its data then fall on many brokers rather than a fixed few.
class CoReplicas {
 public:
  // Partitions led by `leader` with `follower` among their followers.
  int64_t Followed(size_t leader, size_t follower) const { return Get(followed_, Key(leader, follower)); }
  // Partitions holding `slot` together with one of `others`, summed over `others`.
  int64_t Shared(size_t slot, const std::vector<size_t>& others) const {
    int64_t total = 0;
    for (size_t other : others) total += Get(shared_, Key(std::min(slot, other), std::max(slot, other)));
    return total;
  }
  // `replicas`: preferred leader first.
  void Add(const std::vector<size_t>& replicas) {
    for (size_t i = 0; i < replicas.size(); ++i) {
      if (i > 0) ++followed_[Key(replicas[0], replicas[i])];
      for (size_t j = i + 1; j < replicas.size(); ++j) {
        ++shared_[Key(std::min(replicas[i], replicas[j]), std::max(replicas[i], replicas[j]))];
      }
    }
  }

 private:
  using Counts = std::unordered_map<uint64_t, int64_t>;
  static uint64_t Key(size_t a, size_t b) { return (static_cast<uint64_t>(a) << 32) | static_cast<uint64_t>(b); }
  static int64_t Get(const Counts& counts, uint64_t key) {
    auto it = counts.find(key);
    return it == counts.end() ? 0 : it->second;
  }
  Counts followed_;
  Counts shared_;
};

absl::Status ValidateRequest(const PlacementRequest& request) {
  if (request.partition_count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the number of partitions must be at least 1, got ", request.partition_count));
  }
  if (request.replication_factor < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the replication factor must be at least 1, got ", request.replication_factor));
  }
  if (request.first_partition_id < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("the first partition id must not be negative, got ", request.first_partition_id));
  }
  if (request.partition_count - 1 > std::numeric_limits<int32_t>::max() - request.first_partition_id) {
    return absl::InvalidArgumentError(absl::StrCat(
        request.partition_count, " partitions starting at id ", request.first_partition_id,
        " would take partition ids past ", std::numeric_limits<int32_t>::max()));
  }
  std::vector<int32_t> ids;
  ids.reserve(request.brokers.size());
  for (const PlacementBroker& broker : request.brokers) ids.push_back(broker.id);
  std::sort(ids.begin(), ids.end());
  auto duplicate = std::adjacent_find(ids.begin(), ids.end());
  if (duplicate != ids.end()) {
    return absl::InvalidArgumentError(absl::StrCat("broker ", *duplicate, " is listed twice"));
  }
  const size_t available = request.brokers.size();
  if (static_cast<size_t>(request.replication_factor) > available) {
    return absl::FailedPreconditionError(absl::StrCat(
        "replication factor ", request.replication_factor, " is larger than the ", available,
        available == 1 ? " available broker" : " available brokers"));
  }
  std::vector<int32_t> without_rack;
  for (const PlacementBroker& broker : request.brokers) {
    if (!HasRack(broker)) without_rack.push_back(broker.id);
  }
  if (!without_rack.empty() && without_rack.size() < available) {
    std::sort(without_rack.begin(), without_rack.end());
    return absl::FailedPreconditionError(absl::StrCat(
        "rack-aware placement needs broker.rack on every broker or on none; ", without_rack.size(), " of the ",
        available, without_rack.size() == 1 ? " brokers has" : " brokers have", " no rack: ", JoinIds(without_rack)));
  }
  return absl::OkStatus();
}

// Places one partition after another, each against the load left by the ones before.
class Placer {
 public:
  explicit Placer(const PlacementRequest& request) {
    std::vector<std::string> rack_names;
    for (const PlacementBroker& broker : request.brokers) {
      if (HasRack(broker)) rack_names.push_back(*broker.rack);
    }
    std::sort(rack_names.begin(), rack_names.end());
    rack_names.erase(std::unique(rack_names.begin(), rack_names.end()), rack_names.end());
    racks_.resize(std::max<size_t>(1, rack_names.size()));

    for (const PlacementBroker& broker : request.brokers) {
      Slot slot;
      slot.id = broker.id;
      if (HasRack(broker)) {
        slot.rack = static_cast<int>(std::lower_bound(rack_names.begin(), rack_names.end(), *broker.rack) -
                                     rack_names.begin());
      }
      auto load = request.existing_load.find(broker.id);
      if (load != request.existing_load.end()) {
        slot.replicas = load->second.replicas;
        slot.leaders = load->second.leaders;
      }
      ++racks_[slot.rack].brokers;
      racks_[slot.rack].replicas += slot.replicas;
      slots_.push_back(slot);
    }
    // Ties go to the lowest broker id, whatever order the brokers came in.
    std::sort(slots_.begin(), slots_.end(), [](const Slot& a, const Slot& b) { return a.id < b.id; });
  }

  // The replicas of the next partition, preferred leader first.
  std::vector<int32_t> PlaceNext(int replication_factor) {
    ABSL_CHECK_LE(static_cast<size_t>(replication_factor), slots_.size());
    std::vector<size_t> chosen;
    std::vector<bool> taken(slots_.size(), false);
    std::vector<int> replicas_in_rack(racks_.size(), 0);
    while (chosen.size() < static_cast<size_t>(replication_factor)) {
      size_t pick = chosen.empty() ? PickLeader() : PickFollower(chosen, taken, replicas_in_rack);
      taken[pick] = true;
      ++replicas_in_rack[slots_[pick].rack];
      chosen.push_back(pick);
    }
    co_replicas_.Add(chosen);
    std::vector<int32_t> replicas;
    for (size_t pick : chosen) {
      ++slots_[pick].replicas;
      ++racks_[slots_[pick].rack].replicas;
      replicas.push_back(slots_[pick].id);
    }
    ++slots_[chosen.front()].leaders;
    return replicas;
  }

 private:
  // The broker leading fewest partitions, then holding fewest replicas.
  size_t PickLeader() const {
    size_t best = 0;
    for (size_t i = 1; i < slots_.size(); ++i) {
      if (std::tie(slots_[i].leaders, slots_[i].replicas) < std::tie(slots_[best].leaders, slots_[best].replicas)) {
        best = i;
      }
    }
    return best;
  }

  // In order: a rack this partition uses least (so it reaches as many racks as it can);
  // the broker holding fewest replicas; the rack holding fewest replicas per broker (so
  // racks fill evenly when a partition has more replicas than there are racks); the
  // broker leading most (one that leads few will take a leadership, and with it a
  // replica, soon); following this partition's leader in fewest partitions; sharing
  // fewest partitions with the replicas chosen so far.
  size_t PickFollower(const std::vector<size_t>& chosen, const std::vector<bool>& taken,
                      const std::vector<int>& replicas_in_rack) const {
    using Rank = std::tuple<int, int64_t, double, int64_t>;
    std::optional<size_t> best;
    Rank best_rank;
    std::pair<int64_t, int64_t> best_spread;
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (taken[i]) continue;
      const Slot& slot = slots_[i];
      const Rack& rack = racks_[slot.rack];
      Rank rank{replicas_in_rack[slot.rack], slot.replicas,
                static_cast<double>(rack.replicas) / static_cast<double>(rack.brokers), -slot.leaders};
      if (best && best_rank < rank) continue;
      std::pair<int64_t, int64_t> spread{co_replicas_.Followed(chosen.front(), i), co_replicas_.Shared(i, chosen)};
      if (!best || rank < best_rank || spread < best_spread) {
        best = i;
        best_rank = rank;
        best_spread = spread;
      }
    }
    ABSL_CHECK(best.has_value());
    return *best;
  }

  std::vector<Slot> slots_;  // sorted by broker id
  std::vector<Rack> racks_;  // sorted by name
  CoReplicas co_replicas_;
};

}  // namespace

absl::StatusOr<ReplicaAssignment> PlaceReplicas(const PlacementRequest& request) {
  if (absl::Status status = ValidateRequest(request); !status.ok()) return status;
  Placer placer(request);
  ReplicaAssignment assignment;
  for (int32_t n = 0; n < request.partition_count; ++n) {
    assignment.emplace(request.first_partition_id + n, placer.PlaceNext(request.replication_factor));
  }
  return assignment;
}

absl::Status ValidateReplicaAssignment(const ReplicaAssignment& assignment,
                                       const std::set<int32_t>& known_broker_ids,
                                       int32_t first_partition_id) {
  if (assignment.empty()) return absl::InvalidArgumentError("the replica assignment names no partitions");
  const auto& [reference_partition, reference_replicas] = *assignment.begin();
  int64_t expected_id = first_partition_id;
  for (const auto& [partition, replicas] : assignment) {
    if (partition != expected_id) {
      if (partition < first_partition_id) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the replica assignment names partition ", partition, " but new partition ids start at ",
            first_partition_id));
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "partition ids in the replica assignment must be consecutive from ", first_partition_id,
          ", but partition ", expected_id, " is missing"));
    }
    ++expected_id;
    if (replicas.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("partition ", partition, " is assigned no replicas"));
    }
    if (replicas.size() != reference_replicas.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "partition ", partition, " is assigned ", replicas.size(), " replicas but partition ",
          reference_partition, " has ", reference_replicas.size(), "; every partition needs the same number"));
    }
    for (size_t i = 0; i < replicas.size(); ++i) {
      if (std::find(replicas.begin(), replicas.begin() + i, replicas[i]) != replicas.begin() + i) {
        return absl::InvalidArgumentError(
            absl::StrCat("partition ", partition, " lists broker ", replicas[i], " more than once"));
      }
      if (!known_broker_ids.contains(replicas[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("partition ", partition, " is assigned to unknown broker ", replicas[i]));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::controller
