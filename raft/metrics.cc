#include "raft/metrics.h"

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
  return out;
}

}  // namespace strata::raft
