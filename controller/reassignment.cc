#include "controller/reassignment.h"

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::controller {
namespace {

using Ids = google::protobuf::RepeatedField<int32_t>;

Plan Refuse(ErrorCode code, std::string message) { return Plan{{code, std::move(message)}, {}}; }

bool Has(const Ids& ids, BrokerId b) { return std::find(ids.begin(), ids.end(), b) != ids.end(); }

bool Same(const Ids& a, const Ids& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

int IndexOf(const pb::Partition& p, BrokerId b) {
  for (int i = 0; i < p.replicas_size(); ++i) {
    if (p.replicas(i) == b) return i;
  }
  return -1;
}

// Keeps the replicas of p (with their log dirs) for which keep holds, in order.
void KeepReplicas(pb::Partition& p, const std::function<bool(BrokerId)>& keep) {
  pb::Partition kept;
  for (int i = 0; i < p.replicas_size(); ++i) {
    if (!keep(p.replicas(i))) continue;
    kept.add_replicas(p.replicas(i));
    if (i < p.directories_size()) kept.add_directories(p.directories(i));
  }
  p.mutable_replicas()->Swap(kept.mutable_replicas());
  p.mutable_directories()->Swap(kept.mutable_directories());
}

void RemoveIf(Ids* ids, const std::function<bool(BrokerId)>& drop) {
  ids->erase(std::remove_if(ids->begin(), ids->end(), drop), ids->end());
}

// The first replica of p, in replica order, that is available and in its ISR.
BrokerId FirstAvailableInIsr(const MetadataImage& image, const pb::Partition& p) {
  for (int i = 0; i < p.replicas_size(); ++i) {
    if (Has(p.isr(), p.replicas(i)) && ReplicaAvailable(image, p, p.replicas(i), i)) return p.replicas(i);
  }
  return kNoLeader;
}

// The leader moves when it is no longer in the ISR (it was being added or removed).
void KeepLeaderInIsr(const MetadataImage& image, pb::Partition& p) {
  if (p.leader() != kNoLeader && !Has(p.isr(), p.leader())) p.set_leader(FirstAvailableInIsr(image, p));
}

Plan Change(const pb::Partition& from, const pb::Partition& to) {
  Plan plan;
  pb::MetadataRecord r;
  *r.mutable_partition_change() = ChangeBetween(from, to);
  plan.records.push_back(std::move(r));
  return plan;
}

Plan PlanCancel(const MetadataImage& image, const std::string& name, const pb::Partition& p) {
  if (!Reassigning(p)) {
    return Refuse(ErrorCode::kNoReassignmentInProgress, absl::StrCat("no reassignment of ", name, " is in progress"));
  }
  pb::Partition next = p;
  auto adding = [&](BrokerId b) { return Has(p.adding_replicas(), b); };
  KeepReplicas(next, [&](BrokerId b) { return !adding(b); });
  RemoveIf(next.mutable_isr(), adding);
  if (next.isr().empty()) {
    return Refuse(ErrorCode::kInvalidReplicaAssignment,
                  absl::StrCat("cancelling the reassignment of ", name,
                               " would leave no in-sync replica (all of them are being added)"));
  }
  next.clear_adding_replicas();
  next.clear_removing_replicas();
  KeepLeaderInIsr(image, next);
  return Change(p, next);
}

// Why `target` cannot be p's replicas; OK outcome when it can.
Outcome CheckTarget(const MetadataImage& image, const std::string& name, const pb::Partition& p,
                    const std::vector<BrokerId>& target) {
  auto refuse = [&](const auto&... why) {
    return Outcome{ErrorCode::kInvalidReplicaAssignment, absl::StrCat(name, ": ", why...)};
  };
  if (target.empty()) return refuse("the target replicas are empty");
  std::set<BrokerId> seen;
  for (BrokerId b : target) {
    if (!seen.insert(b).second) return refuse("broker ", b, " is named twice");
    auto broker = image.brokers().find(b);
    if (broker == image.brokers().end()) return refuse("broker ", b, " is not registered");
    if (Has(p.replicas(), b)) continue;  // a replica already: it stays as it is
    if (broker->second.fenced()) return refuse("broker ", b, " is fenced");
    if (broker->second.in_controlled_shutdown()) return refuse("broker ", b, " is shutting down");
    if (p.directories_size() != 0 && !LogDirFor(image, b, p.partition_id())) {
      return refuse("broker ", b, " has no online log dir");
    }
  }
  return {};
}

}  // namespace

bool Reassigning(const pb::Partition& p) { return p.adding_replicas_size() != 0 || p.removing_replicas_size() != 0; }

Plan PlanReassignment(const MetadataImage& image, const TopicState& topic, const pb::Partition& p,
                      const std::optional<std::vector<BrokerId>>& target, bool allow_replication_factor_change) {
  const std::string name = absl::StrCat(topic.name, "-", p.partition_id());
  if (!target) return PlanCancel(image, name, p);
  if (Outcome o = CheckTarget(image, name, p, *target); !o.ok()) return Plan{o, {}};
  const size_t factor = static_cast<size_t>(p.replicas_size() - p.adding_replicas_size());
  if (!allow_replication_factor_change && target->size() != factor) {
    return Refuse(ErrorCode::kInvalidReplicationFactor,
                  absl::StrCat(name, ": the replication factor would change from ", factor, " to ", target->size(),
                               " and the request does not allow it"));
  }
  pb::Partition next = p;
  next.clear_replicas();
  next.clear_directories();
  next.clear_adding_replicas();
  next.clear_removing_replicas();
  auto place = [&](BrokerId b) {
    next.add_replicas(b);
    if (p.directories_size() == 0) return;
    int i = IndexOf(p, b);
    next.add_directories(i >= 0 ? p.directories(i) : *LogDirFor(image, b, p.partition_id()));
  };
  for (BrokerId b : *target) {
    place(b);
    if (!Has(p.replicas(), b)) next.add_adding_replicas(b);
  }
  for (BrokerId b : p.replicas()) {
    if (std::find(target->begin(), target->end(), b) != target->end()) continue;
    place(b);
    next.add_removing_replicas(b);
  }
  CompleteReassignment(image, p, next);  // nothing to wait for: done in the same change
  if (Same(next.replicas(), p.replicas()) && Same(next.isr(), p.isr()) && next.leader() == p.leader() &&
      Same(next.adding_replicas(), p.adding_replicas()) && Same(next.removing_replicas(), p.removing_replicas())) {
    return Plan{};
  }
  return Change(p, next);
}

std::optional<pb::PartitionChange> CompleteReassignment(const MetadataImage& image, const pb::Partition& p,
                                                        pb::Partition& next) {
  if (!Reassigning(next)) return std::nullopt;
  for (BrokerId b : next.adding_replicas()) {
    if (!Has(next.isr(), b)) return std::nullopt;
  }
  pb::Partition done = next;
  auto removing = [&](BrokerId b) { return Has(next.removing_replicas(), b); };
  RemoveIf(done.mutable_isr(), removing);
  if (done.isr().empty()) return std::nullopt;
  KeepReplicas(done, [&](BrokerId b) { return !removing(b); });
  done.clear_adding_replicas();
  done.clear_removing_replicas();
  KeepLeaderInIsr(image, done);
  // A partition that had a leader keeps one: wait until a replica of the target can lead.
  if (next.leader() != kNoLeader && done.leader() == kNoLeader) return std::nullopt;
  next = std::move(done);
  return ChangeBetween(p, next);
}

pb::PartitionChange ChangeBetween(const pb::Partition& from, const pb::Partition& to) {
  ABSL_CHECK(from.topic_id() == to.topic_id() && from.partition_id() == to.partition_id());
  pb::PartitionChange c;
  c.set_topic_id(to.topic_id());
  c.set_partition_id(to.partition_id());
  const bool replicas_differ = !Same(from.replicas(), to.replicas());
  // (A change of replicas without directories clears them: so only replicas clear them.)
  ABSL_CHECK(replicas_differ || to.directories_size() != 0 || from.directories_size() == 0);
  if (replicas_differ) *c.mutable_replicas()->mutable_ids() = to.replicas();
  if (replicas_differ || !std::equal(from.directories().begin(), from.directories().end(), to.directories().begin(),
                                     to.directories().end())) {
    *c.mutable_directories() = to.directories();
  }
  if (!Same(from.isr(), to.isr())) *c.mutable_isr()->mutable_ids() = to.isr();
  if (from.leader() != to.leader()) c.set_leader(to.leader());
  if (!Same(from.adding_replicas(), to.adding_replicas())) *c.mutable_adding_replicas()->mutable_ids() = to.adding_replicas();
  if (!Same(from.removing_replicas(), to.removing_replicas())) {
    *c.mutable_removing_replicas()->mutable_ids() = to.removing_replicas();
  }
  return c;
}

}  // namespace strata::controller
