#pragma once
// MetadataMetrics: figures of the metadata image for Prometheus, read at every scrape
// (strata-server registers it on metrics.listener for controllers and brokers alike):
//   strata_metadata_applied_index            the last metadata entry applied
//   strata_metadata_apply_errors_total       records skipped because they did not fit
//   strata_metadata_brokers{state="unfenced"|"fenced"|"shutting_down"}
//   strata_metadata_topics, strata_metadata_partitions
//   strata_metadata_offline_partitions       partitions without a leader
//   strata_metadata_leaders{broker="N"}      partitions led by each broker
// Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "controller/metadata_store.h"

namespace strata::controller {

class MetadataMetrics final : public prometheus::Collectable {
 public:
  explicit MetadataMetrics(const MetadataStore& store) : store_(store) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const MetadataStore& store_;
};

}  // namespace strata::controller
