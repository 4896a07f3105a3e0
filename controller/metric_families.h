#pragma once
// Building Prometheus metric families by hand, for the Collectables that read their
// figures at each scrape (controller/metrics.h, server/storage_metrics.h).

#include <limits>
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

// One sample of a histogram family from fixed microsecond buckets: H has
// kBucketMicros (upper bounds; the bucket after them is +Inf), bucket(i) (that bucket's
// count alone) and total_micros() (base/latency_histogram.h, storage/flush_stats.h).
template <typename H>
void AddHistogram(prometheus::MetricFamily& f, const H& h, std::vector<prometheus::ClientMetric::Label> labels = {}) {
  prometheus::ClientMetric m;
  m.label = std::move(labels);
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= H::kBucketMicros.size(); ++i) {
    cumulative += static_cast<uint64_t>(h.bucket(i));
    prometheus::ClientMetric::Bucket b;
    b.cumulative_count = cumulative;
    b.upper_bound = i < H::kBucketMicros.size() ? static_cast<double>(H::kBucketMicros[i]) / 1e6
                                                : std::numeric_limits<double>::infinity();
    m.histogram.bucket.push_back(b);
  }
  m.histogram.sample_count = cumulative;
  m.histogram.sample_sum = static_cast<double>(h.total_micros()) / 1e6;
  f.metric.push_back(std::move(m));
}

}  // namespace strata::controller
