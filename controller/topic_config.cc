#include "controller/topic_config.h"

#include <algorithm>
#include <functional>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace strata::controller {
namespace {

using Check = std::function<bool(const std::string&)>;

Check LongAtLeast(int64_t min) {
  return [min](const std::string& v) {
    int64_t n;
    return absl::SimpleAtoi(v, &n) && n >= min;
  };
}

Check IntBetween(int64_t min, int64_t max) {
  return [min, max](const std::string& v) {
    int64_t n;
    return absl::SimpleAtoi(v, &n) && n >= min && n <= max;
  };
}

Check OneOf(std::set<std::string> allowed) {
  return [allowed](const std::string& v) { return allowed.count(v) > 0; };
}

bool CleanupPolicy(const std::string& v) {
  std::set<std::string> parts;
  for (absl::string_view p : absl::StrSplit(v, ',')) parts.insert(std::string(absl::StripAsciiWhitespace(p)));
  return !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const std::string& p) {
    return p == "delete" || p == "compact";
  });
}

struct Rule {
  TopicConfigSpec spec;
  Check check;
  std::string allowed;  // for the error message
};

const std::vector<Rule>& Rules() {
  static const auto* rules = new std::vector<Rule>{
      {{"cleanup.policy", "delete"}, CleanupPolicy, "delete, compact or compact,delete"},
      {{"compression.type", "producer"},
       OneOf({"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"}),
       "producer, uncompressed, gzip, snappy, lz4 or zstd"},
      {{"delete.retention.ms", "86400000"}, LongAtLeast(0), "a long >= 0"},
      {{"file.delete.delay.ms", "60000"}, LongAtLeast(0), "a long >= 0"},
      {{"flush.messages", "9223372036854775807"}, LongAtLeast(1), "a long >= 1"},
      {{"follower.fetch.last.tiered.offset.enable", "false"}, OneOf({"true", "false"}), "true or false"},
      {{"flush.ms", "9223372036854775807"}, LongAtLeast(0), "a long >= 0"},
      {{"index.interval.bytes", "4096"}, IntBetween(0, INT32_MAX), "an int >= 0"},
      {{"local.retention.bytes", "-2"}, LongAtLeast(-2), "a long >= -2"},
      {{"local.retention.ms", "-2"}, LongAtLeast(-2), "a long >= -2"},
      {{"max.compaction.lag.ms", "9223372036854775807"}, LongAtLeast(1), "a long >= 1"},
      {{"max.message.bytes", "1048588"}, IntBetween(0, INT32_MAX), "an int >= 0"},
      {{"message.timestamp.type", "CreateTime"}, OneOf({"CreateTime", "LogAppendTime"}), "CreateTime or LogAppendTime"},
      {{"min.cleanable.dirty.ratio", "0.5"},
       [](const std::string& v) {
         double d;
         return absl::SimpleAtod(v, &d) && d >= 0 && d <= 1;
       },
       "a number in [0, 1]"},
      {{"min.compaction.lag.ms", "0"}, LongAtLeast(0), "a long >= 0"},
      {{"min.insync.replicas", "1"}, IntBetween(1, INT32_MAX), "an int >= 1"},
      {{"remote.storage.enable", "false"}, OneOf({"true", "false"}), "true or false"},
      {{"retention.bytes", "-1"}, LongAtLeast(-1), "a long >= -1"},
      {{"retention.ms", "604800000"}, LongAtLeast(-1), "a long >= -1"},
      {{"segment.bytes", "1073741824"}, IntBetween(14, INT32_MAX), "an int >= 14"},
      {{"segment.index.bytes", "10485760"}, IntBetween(4, INT32_MAX), "an int >= 4"},
      {{"segment.ms", "604800000"}, LongAtLeast(1), "a long >= 1"},
      {{"unclean.leader.election.enable", "false"}, OneOf({"true", "false"}), "true or false"},
  };
  return *rules;
}

}  // namespace

const std::vector<TopicConfigSpec>& TopicConfigSpecs() {
  static const auto* specs = [] {
    auto* out = new std::vector<TopicConfigSpec>;
    for (const Rule& r : Rules()) out->push_back(r.spec);
    return out;
  }();
  return *specs;
}

absl::Status ValidateTopicConfig(const std::string& name, const std::string& value) {
  for (const Rule& r : Rules()) {
    if (r.spec.name != name) continue;
    if (r.check(value)) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("invalid value '", value, "' for topic config '", name, "': must be ", r.allowed));
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown topic config '", name, "'"));
}

absl::Status ValidateTopicConfigs(const std::map<std::string, std::string>& configs) {
  for (const auto& [name, value] : configs) {
    if (absl::Status s = ValidateTopicConfig(name, value); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ValidateTopicConfigsTogether(const std::map<std::string, std::string>& configs,
                                          bool remote_storage_system_enable) {
  auto value = [&](const std::string& name) {
    auto it = configs.find(name);
    if (it != configs.end()) return it->second;
    for (const Rule& r : Rules()) {
      if (r.spec.name == name) return r.spec.default_value;
    }
    return std::string();
  };
  if (value("remote.storage.enable") != "true") return absl::OkStatus();
  if (!remote_storage_system_enable) {
    return absl::InvalidArgumentError(
        "remote.storage.enable=true needs remote.log.storage.system.enable=true on the cluster");
  }
  for (absl::string_view p : absl::StrSplit(value("cleanup.policy"), ',')) {
    if (absl::StripAsciiWhitespace(p) == "compact") {
      return absl::InvalidArgumentError(
          "remote.storage.enable=true cannot be set on a topic with cleanup.policy=compact");
    }
  }
  for (const char* kind : {"ms", "bytes"}) {
    int64_t local = 0;
    int64_t total = 0;
    if (!absl::SimpleAtoi(value(absl::StrCat("local.retention.", kind)), &local) ||
        !absl::SimpleAtoi(value(absl::StrCat("retention.", kind)), &total)) {
      continue;  // refused one by one already
    }
    if (local == -2 || total == -1) continue;
    if (local == -1 || local > total) {
      return absl::InvalidArgumentError(absl::StrCat("local.retention.", kind, " = ", local,
                                                     " must not exceed retention.", kind, " = ", total));
    }
  }
  return absl::OkStatus();
}

}  // namespace strata::controller
