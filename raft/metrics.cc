#include "raft/metrics.h"

#include <algorithm>
#include <string>

namespace strata::raft {

std::vector<prometheus::MetricFamily> RaftMetrics::Collect() const {
  RaftNodeStatus st = node_.status();
  std::string id = std::to_string(node_.id());
  std::vector<prometheus::MetricFamily> out;
  auto add = [&](const char* name, const char* help, prometheus::MetricType type, double value) {
    prometheus::MetricFamily family;
    family.name = name;
    family.help = help;
    family.type = type;
    prometheus::ClientMetric metric;
    metric.label.push_back({"node_id", id});
    if (type == prometheus::MetricType::Counter) {
      metric.counter.value = value;
    } else {
      metric.gauge.value = value;
    }
    family.metric.push_back(std::move(metric));
    out.push_back(std::move(family));
  };
  using prometheus::MetricType;
  add("strata_raft_current_leader", "The leader's node id (0: none known)", MetricType::Gauge, st.leader);
  add("strata_raft_current_term", "The current Raft term", MetricType::Gauge, static_cast<double>(st.term));
  add("strata_raft_is_leader", "1 when this node leads", MetricType::Gauge, st.role == Role::kLeader ? 1 : 0);
  add("strata_raft_commit_index", "The highest committed entry", MetricType::Gauge, static_cast<double>(st.commit));
  add("strata_raft_last_applied_index", "The highest entry applied to the state machine", MetricType::Gauge,
      static_cast<double>(st.applied));
  add("strata_raft_snapshot_index", "The latest snapshot's last entry", MetricType::Gauge,
      static_cast<double>(st.snapshot_index));
  add("strata_raft_elections_total", "Elections this node started", MetricType::Counter,
      static_cast<double>(st.elections));
  add("strata_raft_snapshots_taken_total", "Snapshots this node took", MetricType::Counter,
      static_cast<double>(st.snapshots_taken));
  add("strata_raft_snapshots_installed_total", "Snapshots this node installed from a leader", MetricType::Counter,
      static_cast<double>(st.snapshots_installed));
  add("strata_raft_stopped", "1 once the node stopped on a metadata log failure or shutdown", MetricType::Gauge,
      st.stopped ? 1 : 0);
  add("strata_raft_voters", "The voters of the quorum's configuration as this node sees it", MetricType::Gauge,
      static_cast<double>(st.configuration.size()));
  add("strata_raft_is_voter", "1 when this node is a voter of its configuration", MetricType::Gauge,
      st.configuration.Contains(node_.id()) ? 1 : 0);
  add("strata_raft_kraft_version", "0: a static quorum (controller.quorum.voters), 1: a dynamic one (KIP-853)",
      MetricType::Gauge, st.kraft_version);
  add("strata_raft_voter_changes_total", "Voter changes completed while this node led", MetricType::Counter,
      static_cast<double>(st.voter_changes));
  add("strata_raft_learner_lag", "While this node leads and adds a voter: the entries it still lacks",
      MetricType::Gauge, st.learner == kNoNode ? 0 : static_cast<double>(std::max<Index>(0, st.commit - st.learner_match)));
  return out;
}

}  // namespace strata::raft
