#pragma once
// A Prometheus collectable's figures as a map for tests: name{label=value}... -> value;
// histograms as name_count / name_sum, summaries as name_count and name{quantile=q}.
// Not thread-safe (a test's own values).

#include <map>
#include <string>

#include <prometheus/collectable.h>

namespace strata::testing {

inline std::map<std::string, double> Scrape(const prometheus::Collectable& metrics) {
  std::map<std::string, double> out;
  for (const auto& family : metrics.Collect()) {
    for (const auto& m : family.metric) {
      std::string key = family.name;
      for (const auto& l : m.label) key += "{" + l.name + "=" + l.value + "}";
      switch (family.type) {
        case prometheus::MetricType::Counter:
          out[key] = m.counter.value;
          break;
        case prometheus::MetricType::Histogram:
          out[key + "_count"] = static_cast<double>(m.histogram.sample_count);
          out[key + "_sum"] = m.histogram.sample_sum;
          break;
        case prometheus::MetricType::Summary:
          out[key + "_count"] = static_cast<double>(m.summary.sample_count);
          for (const auto& q : m.summary.quantile) out[key + "{quantile=" + std::to_string(q.quantile) + "}"] = q.value;
          break;
        default:
          out[key] = m.gauge.value;
      }
    }
  }
  return out;
}

}  // namespace strata::testing
