#pragma once
// RaftMetrics: a node's Raft figures for Prometheus, read from RaftNode::status() at
// every scrape (no thread, no copies kept). strata-server registers it with the
// /metrics endpoint on metrics.listener. Names:
//   strata_raft_current_leader        the leader's node id (0: none known)
//   strata_raft_current_term          the term (Kafka calls it the epoch)
//   strata_raft_is_leader             1 on the leader
//   strata_raft_commit_index          the highest committed entry
//   strata_raft_last_applied_index    the highest entry applied to the state machine
//   strata_raft_snapshot_index        the latest snapshot's last entry
//   strata_raft_elections_total       elections this node started
//   strata_raft_snapshots_taken_total / strata_raft_snapshots_installed_total
//   strata_raft_voters                the configuration's voters (KIP-853)
//   strata_raft_is_voter              1 when this node is one of them
//   strata_raft_kraft_version         0 static quorum, 1 dynamic
//   strata_raft_voter_changes_total   voter changes completed while this node led
//   strata_raft_learner_lag           entries a voter being added still lacks
// each labelled node_id. Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "raft/raft_node.h"

namespace strata::raft {

class RaftMetrics final : public prometheus::Collectable {
 public:
  explicit RaftMetrics(const RaftNode& node) : node_(node) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const RaftNode& node_;
};

}  // namespace strata::raft
