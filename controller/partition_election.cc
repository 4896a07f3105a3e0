#include "controller/partition_election.h"

#include <algorithm>
#include <vector>

namespace strata::controller {
namespace {

int ReplicaIndex(const pb::Partition& p, BrokerId b) {
  for (int i = 0; i < p.replicas_size(); ++i) {
    if (p.replicas(i) == b) return i;
  }
  return -1;
}

bool InIsr(const std::vector<BrokerId>& isr, BrokerId b) { return std::find(isr.begin(), isr.end(), b) != isr.end(); }

pb::PartitionChange ChangeFor(const pb::Partition& p) {
  pb::PartitionChange c;
  c.set_topic_id(p.topic_id());
  c.set_partition_id(p.partition_id());
  return c;
}

// Fills the change's ISR and leader when they differ from the partition's; nullopt when
// neither does.
std::optional<pb::PartitionChange> Diff(const pb::Partition& p, const std::vector<BrokerId>& isr, BrokerId leader) {
  bool isr_changed = !std::equal(isr.begin(), isr.end(), p.isr().begin(), p.isr().end());
  if (!isr_changed && leader == p.leader()) return std::nullopt;
  pb::PartitionChange c = ChangeFor(p);
  if (isr_changed) {
    for (BrokerId b : isr) c.mutable_isr()->add_ids(b);
  }
  if (leader != p.leader()) c.set_leader(leader);
  return c;
}

}  // namespace

std::optional<pb::PartitionChange> ElectAfterUnavailability(const pb::Partition& p, const AvailabilityFn& available,
                                                            bool unclean) {
  auto up = [&](BrokerId b) { return available(b, ReplicaIndex(p, b)); };
  std::vector<BrokerId> isr;
  for (BrokerId b : p.isr()) {
    if (up(b)) isr.push_back(b);
  }
  if (isr.empty() && !p.isr().empty()) {
    // The last ISR member stays named: it holds every committed record.
    isr.push_back(p.leader() != kNoLeader && std::find(p.isr().begin(), p.isr().end(), p.leader()) != p.isr().end()
                      ? p.leader()
                      : p.isr(0));
  }
  BrokerId leader = kNoLeader;
  if (p.leader() != kNoLeader && up(p.leader()) && InIsr(isr, p.leader())) {
    leader = p.leader();
  } else {
    for (BrokerId b : p.replicas()) {
      if (up(b) && InIsr(isr, b)) {
        leader = b;
        break;
      }
    }
  }
  if (leader == kNoLeader && unclean) {
    for (BrokerId b : p.replicas()) {
      if (up(b)) {
        leader = b;
        isr = {b};
        break;
      }
    }
  }
  return Diff(p, isr, leader);
}

std::optional<pb::PartitionChange> ElectPreferred(const pb::Partition& p, const AvailabilityFn& available) {
  if (p.replicas().empty()) return std::nullopt;
  BrokerId preferred = p.replicas(0);
  std::vector<BrokerId> isr(p.isr().begin(), p.isr().end());
  if (p.leader() == preferred || !available(preferred, 0) || !InIsr(isr, preferred)) return std::nullopt;
  return Diff(p, isr, preferred);
}

std::optional<pb::PartitionChange> ElectOfflinePartition(const pb::Partition& p, const AvailabilityFn& available,
                                                         bool unclean) {
  if (p.leader() != kNoLeader) return std::nullopt;
  return ElectAfterUnavailability(p, available, unclean);
}

}  // namespace strata::controller
