#include "controller/topic_config.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "storage/log_config.h"

namespace strata::controller {

absl::Status ValidateTopicConfig(const std::string& name, const std::string& value) {
  const storage::TopicSetting* s = storage::FindTopicSetting(name);
  if (s == nullptr || s->name != name) {  // a broker-level name (log.retention.ms) is not a topic's
    return absl::InvalidArgumentError(absl::StrCat("unknown topic config '", name, "'"));
  }
  if (absl::Status checked = s->Check(name, value); !checked.ok()) {
    return absl::InvalidArgumentError(checked.message());
  }
  return absl::OkStatus();
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
    const storage::TopicSetting* s = storage::FindTopicSetting(name);
    return s != nullptr ? s->default_value : std::string();
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
