#pragma once
// Building Prometheus metric families by hand, for the Collectables that read their
// figures at each scrape (controller/metrics.h, server/storage_metrics.h).

#include <string>
#include <utility>
#include <vector>

#include <prometheus/client_metric.h>
#include <prometheus/metric_family.h>

namespace strata::controller {

inline prometheus::MetricFamily Family(const char* name, const char* help, prometheus::MetricType type) {
  prometheus::MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

// One sample of a counter or gauge family.
inline void Add(prometheus::MetricFamily& f, double value, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  if (f.type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(std::move(m));
}

// A family of one unlabelled sample, appended to out.
inline void AddSingle(std::vector<prometheus::MetricFamily>& out, const char* name, const char* help,
                      prometheus::MetricType type, double value) {
  prometheus::MetricFamily f = Family(name, help, type);
  Add(f, value);
  out.push_back(std::move(f));
}

}  // namespace strata::controller
