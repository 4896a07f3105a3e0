// The one table of topic settings (storage::TopicSettings(), storage/log_config.h), walked
// whole: each setting at its lower and upper bound and one past each (each choice and one
// that is not), set through the controller (CreateTopics and AlterConfigs) and read back
// as a broker reads it (TopicLogConfig). A value is either refused with INVALID_CONFIG
// naming the setting, or taken by the controller and applied by the broker's log, never
// taken and then dropped. A setting added to the table is covered without a new test.

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "broker/replication/replica_manager.h"
#include "controller/cluster_control.h"
#include "storage/log_config.h"
#include "tests/support/metadata_records.h"

namespace strata::broker {
namespace {

using controller::ErrorCode;
using controller::MetadataImage;
using Type = storage::TopicSetting::Type;

struct Value {
  std::string text;
  bool valid;  // by the table's own range or choices
};

// Each setting's bounds and one past each, or each choice and one that is not.
std::vector<Value> ValuesOf(const storage::TopicSetting& s) {
  switch (s.type) {
    case Type::kInt:
    case Type::kLong: {
      EXPECT_GT(s.min, INT64_MIN) << s.name;  // one below it is a long
      // One past a long's upper bound is no long at all.
      std::string above = s.max == INT64_MAX ? "9223372036854775808" : absl::StrCat(s.max + 1);
      return {{absl::StrCat(s.min), true}, {absl::StrCat(s.max), true}, {absl::StrCat(s.min - 1), false},
              {above, false}};
    }
    case Type::kDouble:
      return {{absl::StrCat(s.min_double), true},
              {absl::StrCat(s.max_double), true},
              {absl::StrCat(s.min_double - 0.01), false},
              {absl::StrCat(s.max_double + 0.01), false}};
    case Type::kBoolean:
    case Type::kString: {
      std::vector<Value> out;
      for (const std::string& c : s.choices) out.push_back({c, true});
      out.push_back({"not-a-choice", false});
      return out;
    }
    case Type::kList: {
      if (s.check_list) {
        // The throttled replicas: '*', partition:broker lists, none; not those.
        return {{"*", true}, {"0:1,2:3", true}, {"", true}, {"1", false}, {"a:b", false}, {"0:1:2", false}};
      }
      std::vector<Value> out;
      for (const std::string& c : s.choices) out.push_back({c, true});
      std::vector<std::string> reversed(s.choices.rbegin(), s.choices.rend());
      out.push_back({absl::StrJoin(reversed, ","), true});
      out.push_back({absl::StrCat(s.choices.front(), ",not-a-choice"), false});
      out.push_back({"", false});
      return out;
    }
  }
  return {};
}

// A value as the log shows it back: a list as its sorted items, a number as a number.
std::string Normalized(const storage::TopicSetting& s, const std::string& text) {
  if (s.type == Type::kList) {
    std::vector<std::string> items = absl::StrSplit(text, ',');
    std::sort(items.begin(), items.end());
    return absl::StrJoin(items, ",");
  }
  if (s.type == Type::kDouble) {
    double d = 0;
    if (absl::SimpleAtod(text, &d)) return absl::StrCat(d);
  }
  return text;
}

MetadataImage Cluster() {
  MetadataImage image;
  EXPECT_TRUE(image.Apply(testing::RegisterBrokerRecord(1)).ok());
  return image;
}

controller::ControllerConfig Config() {
  controller::ControllerConfig config;
  config.remote_storage_system_enable = true;  // remote.storage.enable=true is then a value to take
  return config;
}

// Checks one outcome: refused naming the setting, or taken into the image and applied.
void Expect(const storage::TopicSetting& s, const Value& v, const controller::Plan& plan, MetadataImage image,
            const std::string& topic, const std::string& how) {
  SCOPED_TRACE(absl::StrCat(how, " ", s.name, "='", v.text, "'"));
  if (!v.valid) {
    EXPECT_EQ(plan.outcome.code, ErrorCode::kInvalidConfig) << plan.outcome.message;
    EXPECT_NE(plan.outcome.message.find(s.name), std::string::npos) << plan.outcome.message;
    return;
  }
  ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
  for (const auto& r : plan.records) ASSERT_TRUE(image.Apply(r).ok());
  ASSERT_EQ(image.TopicConfig(topic, s.name), v.text);
  if (!s.is_log_setting()) return;  // min.insync.replicas, unclean.leader.election.enable: read from the image
  std::vector<absl::Status> refused;
  storage::LogConfig applied = TopicLogConfig(image, topic, storage::LogConfig{}, &refused);
  EXPECT_TRUE(refused.empty()) << refused.front();
  EXPECT_EQ(Normalized(s, s.get(applied)), Normalized(s, v.text));
}

TEST(TopicSettings, EveryValueTheControllerTakesTheBrokersLogAppliesAndEveryOtherIsInvalidConfig) {
  int checked = 0;
  for (const storage::TopicSetting& s : storage::TopicSettings()) {
    for (const Value& v : ValuesOf(s)) {
      MetadataImage image = Cluster();
      admin::v1::CreateTopicsRequest::Topic create;
      create.set_name("t1");
      create.set_num_partitions(1);
      create.set_replication_factor(1);
      (*create.mutable_configs())[s.name] = v.text;
      controller::Plan created = controller::PlanCreateTopic(image, create, Config(), std::string(16, 'n'), {});
      Expect(s, v, created, image, "t1", "CreateTopics");

      create.mutable_configs()->clear();
      controller::Plan plain = controller::PlanCreateTopic(image, create, Config(), std::string(16, 'n'), {});
      ASSERT_TRUE(plain.outcome.ok()) << plain.outcome.message;
      for (const auto& r : plain.records) ASSERT_TRUE(image.Apply(r).ok());
      admin::v1::AlterConfigsRequest::Resource alter;
      alter.mutable_resource()->set_type(admin::v1::ConfigResource::TOPIC);
      alter.mutable_resource()->set_name("t1");
      auto* op = alter.add_ops();
      op->set_name(s.name);
      op->set_value(v.text);
      Expect(s, v, controller::PlanAlterConfigs(image, alter, Config()), image, "t1", "AlterConfigs");
      ++checked;
    }
  }
  EXPECT_GE(checked, 3 * static_cast<int>(storage::TopicSettings().size()));  // at least three values each
}

TEST(TopicSettings, TheDefaultsOfTheTableAreTheLogsDefaults) {
  for (const storage::TopicSetting& s : storage::TopicSettings()) {
    if (!s.is_log_setting()) continue;
    EXPECT_EQ(Normalized(s, s.get(storage::LogConfig{})), Normalized(s, s.default_value)) << s.name;
  }
}

// The case the issue found: the controller took segment.index.bytes=8, the log refused it
// and the broker ran the topic on its defaults, cleanup.policy=compact dropped with it.
TEST(TopicSettings, ASettingTheLogRefusesKeepsItsDefaultAndTheTopicsOtherSettingsApply) {
  MetadataImage image = Cluster();
  const std::string id(16, 't');
  ASSERT_TRUE(image.Apply(testing::TopicRecord("t1", id)).ok());
  for (auto [name, value] : {std::pair{"segment.index.bytes", "8"}, {"cleanup.policy", "compact"}}) {
    metadata::v1::MetadataRecord r;
    r.mutable_config()->set_resource_type(metadata::v1::Config::TOPIC);
    r.mutable_config()->set_resource_name("t1");
    r.mutable_config()->set_name(name);
    r.mutable_config()->set_value(value);
    ASSERT_TRUE(image.Apply(r).ok());
  }
  std::vector<absl::Status> refused;
  storage::LogConfig config = TopicLogConfig(image, "t1", storage::LogConfig{}, &refused);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].message().find("segment.index.bytes"), absl::string_view::npos) << refused[0];
  EXPECT_TRUE(config.cleanup_compact);
  EXPECT_FALSE(config.cleanup_delete);
  EXPECT_EQ(config.segment_index_bytes, storage::LogConfig{}.segment_index_bytes);
}

}  // namespace
}  // namespace strata::broker
