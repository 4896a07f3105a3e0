#include "controller/metrics.h"

#include <map>
#include <string>

#include "controller/cluster_control.h"
#include "controller/metric_families.h"

namespace strata::controller {

std::vector<prometheus::MetricFamily> MetadataMetrics::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  auto applied = Family("strata_metadata_applied_index", "The last metadata entry applied", MetricType::Gauge);
  Add(applied, static_cast<double>(store_.applied().index));
  out.push_back(std::move(applied));
  auto errors = Family("strata_metadata_apply_errors_total", "Metadata records skipped because they did not fit",
                       MetricType::Counter);
  Add(errors, static_cast<double>(store_.apply_errors()));
  out.push_back(std::move(errors));
  store_.WithImage([&](const MetadataImage& image) {
    std::map<std::string, int> states = {{"unfenced", 0}, {"fenced", 0}, {"shutting_down", 0}};
    for (const auto& [id, b] : image.brokers()) {
      ++states[b.fenced() ? "fenced" : (b.in_controlled_shutdown() ? "shutting_down" : "unfenced")];
    }
    auto brokers = Family("strata_metadata_brokers", "Registered brokers by state", MetricType::Gauge);
    for (const auto& [state, n] : states) Add(brokers, n, {{"state", state}});
    out.push_back(std::move(brokers));
    auto topics = Family("strata_metadata_topics", "Topics", MetricType::Gauge);
    Add(topics, static_cast<double>(image.topics().size()));
    out.push_back(std::move(topics));
    auto partitions = Family("strata_metadata_partitions", "Partitions", MetricType::Gauge);
    Add(partitions, static_cast<double>(image.partition_count()));
    out.push_back(std::move(partitions));
    int offline = 0;
    for (const auto& [tid, t] : image.topics()) {
      for (const auto& [pid, p] : t.partitions) offline += p.leader() == kNoLeader;
    }
    auto off = Family("strata_metadata_offline_partitions", "Partitions without a leader", MetricType::Gauge);
    Add(off, offline);
    out.push_back(std::move(off));
    auto leaders = Family("strata_metadata_leaders", "Partitions led by each broker", MetricType::Gauge);
    for (const auto& [b, n] : LeaderCounts(image)) Add(leaders, n, {{"broker", std::to_string(b)}});
    out.push_back(std::move(leaders));
    return 0;
  });
  return out;
}

}  // namespace strata::controller
