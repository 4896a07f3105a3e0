#include "tools/cli/reassignment_plan.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace strata::cli {

using json = nlohmann::json;

absl::StatusOr<std::vector<PlannedPartition>> ParsePlan(const std::string& text) {
  json plan = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (plan.is_discarded() || !plan.is_object()) return absl::InvalidArgumentError("the plan is not a JSON object");
  if (!plan.contains("version") || plan["version"] != 1) {
    return absl::InvalidArgumentError("the plan's \"version\" must be 1");
  }
  if (!plan.contains("partitions") || !plan["partitions"].is_array()) {
    return absl::InvalidArgumentError("the plan has no \"partitions\" array");
  }
  std::vector<PlannedPartition> out;
  std::set<std::pair<std::string, int32_t>> seen;
  for (const json& p : plan["partitions"]) {
    if (!p.is_object() || !p.contains("topic") || !p["topic"].is_string() || !p.contains("partition") ||
        !p["partition"].is_number_integer() || !p.contains("replicas") || !p["replicas"].is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat("each partition needs \"topic\", \"partition\" and \"replicas\": ", p.dump()));
    }
    PlannedPartition planned{p["topic"].get<std::string>(), p["partition"].get<int32_t>(), {}};
    for (const json& r : p["replicas"]) {
      if (!r.is_number_integer()) return absl::InvalidArgumentError(absl::StrCat("a replica is not a broker id: ", p.dump()));
      planned.replicas.push_back(r.get<int32_t>());
    }
    if (p.contains("log_dirs")) {
      for (const json& d : p["log_dirs"]) {
        if (d != "any") {
          return absl::InvalidArgumentError(absl::StrCat(
              planned.topic, "-", planned.partition, ": log dir ", d.dump(),
              ": a reassignment places replicas on brokers only (\"any\"); a replica moves between the dirs of its "
              "broker with AlterReplicaLogDirs"));
        }
      }
    }
    if (!seen.emplace(planned.topic, planned.partition).second) {
      return absl::InvalidArgumentError(absl::StrCat(planned.topic, "-", planned.partition, " is in the plan twice"));
    }
    out.push_back(std::move(planned));
  }
  return out;
}

absl::StatusOr<std::vector<PlannedPartition>> ReadPlan(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the plan ", path));
  std::stringstream text;
  text << in.rdbuf();
  auto plan = ParsePlan(text.str());
  if (!plan.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", plan.status().message()));
  return plan;
}

std::string PlanJson(const std::vector<PlannedPartition>& plan) {
  json partitions = json::array();
  for (const PlannedPartition& p : plan) {
    partitions.push_back({{"topic", p.topic},
                          {"partition", p.partition},
                          {"replicas", p.replicas},
                          {"log_dirs", std::vector<std::string>(p.replicas.size(), "any")}});
  }
  return json{{"version", 1}, {"partitions", partitions}}.dump();
}

std::vector<PlannedPartition> CurrentAssignment(const std::vector<PlannedPartition>& plan,
                                                const admin::v1::DescribeTopicsResponse& topics) {
  std::map<std::pair<std::string, int32_t>, std::vector<int32_t>> now;
  for (const auto& t : topics.topics()) {
    for (const auto& p : t.partitions()) {
      // A partition being reassigned: the replicas it had before (not those being added).
      std::vector<int32_t>& replicas = now[{t.name(), p.partition_id()}];
      for (int32_t b : p.replicas()) {
        if (std::find(p.adding_replicas().begin(), p.adding_replicas().end(), b) == p.adding_replicas().end()) {
          replicas.push_back(b);
        }
      }
    }
  }
  std::vector<PlannedPartition> out;
  for (const PlannedPartition& p : plan) {
    auto it = now.find({p.topic, p.partition});
    if (it != now.end()) out.push_back({p.topic, p.partition, it->second});
  }
  return out;
}

}  // namespace strata::cli
