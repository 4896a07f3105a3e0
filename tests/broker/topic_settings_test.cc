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
#include "controller/broker_config.h"
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
  storage::LogConfig applied = TopicLogConfig(image, topic, /*broker_id=*/1, storage::LogConfig{}, &refused);
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

// The broker-level names of the same settings (log.retention.ms...), set as dynamic broker
// configs: the cluster-wide default and a broker's own, refused as the topic-level name
// is (INVALID_CONFIG naming the broker-level name), and applied to every topic of that
// broker under the topic's own settings.
TEST(TopicSettings, EveryBrokerLevelLogDefaultIsCheckedAndAppliedUnderTheTopicsOwn) {
  int checked = 0;
  for (const storage::TopicSetting& s : storage::TopicSettings()) {
    if (s.broker_key.empty() || !s.is_log_setting()) continue;
    for (const Value& v : ValuesOf(s)) {
      for (const std::string broker : {"", "1"}) {
        SCOPED_TRACE(absl::StrCat(s.broker_key, "='", v.text, "' on broker '", broker, "'"));
        MetadataImage image = Cluster();
        ASSERT_TRUE(image.Apply(testing::TopicRecord("t1", std::string(16, 't'))).ok());
        admin::v1::AlterConfigsRequest::Resource alter;
        alter.mutable_resource()->set_type(admin::v1::ConfigResource::BROKER);
        alter.mutable_resource()->set_name(broker);
        auto* op = alter.add_ops();
        op->set_name(s.broker_key);
        op->set_value(v.text);
        controller::Plan plan = controller::PlanAlterConfigs(image, alter, Config());
        if (!v.valid) {
          EXPECT_EQ(plan.outcome.code, ErrorCode::kInvalidConfig) << plan.outcome.message;
          EXPECT_NE(plan.outcome.message.find(s.broker_key), std::string::npos) << plan.outcome.message;
          continue;
        }
        ASSERT_TRUE(plan.outcome.ok()) << plan.outcome.message;
        for (const auto& r : plan.records) ASSERT_TRUE(image.Apply(r).ok());
        std::vector<absl::Status> refused;
        storage::LogConfig on_1 = TopicLogConfig(image, "t1", /*broker_id=*/1, storage::LogConfig{}, &refused);
        EXPECT_TRUE(refused.empty());
        EXPECT_EQ(Normalized(s, s.get(on_1)), Normalized(s, v.text));
        // Broker 2 has it only from the cluster-wide default.
        storage::LogConfig on_2 = TopicLogConfig(image, "t1", /*broker_id=*/2, storage::LogConfig{}, nullptr);
        EXPECT_EQ(Normalized(s, s.get(on_2)), Normalized(s, broker.empty() ? v.text : s.default_value));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(TopicSettings, ATopicsOwnSettingOutranksTheBrokersAndTheBrokersTheClusterDefault) {
  MetadataImage image = Cluster();
  ASSERT_TRUE(image.Apply(testing::TopicRecord("t1", std::string(16, 't'))).ok());
  auto set = [&](metadata::v1::Config::ResourceType type, const std::string& resource, const std::string& name,
                 const std::string& value) {
    metadata::v1::MetadataRecord r;
    r.mutable_config()->set_resource_type(type);
    r.mutable_config()->set_resource_name(resource);
    r.mutable_config()->set_name(name);
    r.mutable_config()->set_value(value);
    ASSERT_TRUE(image.Apply(r).ok());
  };
  set(metadata::v1::Config::BROKER, "", "log.retention.ms", "1000");
  set(metadata::v1::Config::BROKER, "", "log.segment.bytes", "2000000");
  set(metadata::v1::Config::BROKER, "1", "log.segment.bytes", "3000000");
  set(metadata::v1::Config::BROKER, "1", "retention.ms", "5");  // a topic-level name on a broker: not a log default
  set(metadata::v1::Config::TOPIC, "t1", "retention.ms", "9000");
  storage::LogConfig on_1 = TopicLogConfig(image, "t1", 1, storage::LogConfig{}, nullptr);
  EXPECT_EQ(on_1.retention_ms, 9000);
  EXPECT_EQ(on_1.segment_bytes, 3000000);
  storage::LogConfig on_2 = TopicLogConfig(image, "t1", 2, storage::LogConfig{}, nullptr);
  EXPECT_EQ(on_2.segment_bytes, 2000000);
  storage::LogConfig other = TopicLogConfig(image, "t2", 2, storage::LogConfig{}, nullptr);
  EXPECT_EQ(other.retention_ms, 1000);
}

TEST(TopicSettings, ReplicationThrottleRatesAreWholeBytesPerSecondAndOtherBrokerConfigsAreKept) {
  MetadataImage image = Cluster();
  auto plan = [&](const std::string& name, const std::string& value) {
    admin::v1::AlterConfigsRequest::Resource alter;
    alter.mutable_resource()->set_type(admin::v1::ConfigResource::BROKER);
    alter.mutable_resource()->set_name("1");
    auto* op = alter.add_ops();
    op->set_name(name);
    op->set_value(value);
    return controller::PlanAlterConfigs(image, alter, Config());
  };
  for (const char* bad : {"abc", "-1", "1.5"}) {
    controller::Plan p = plan("leader.replication.throttled.rate", bad);
    EXPECT_EQ(p.outcome.code, ErrorCode::kInvalidConfig) << bad;
    EXPECT_NE(p.outcome.message.find("leader.replication.throttled.rate"), std::string::npos) << p.outcome.message;
  }
  EXPECT_TRUE(plan("follower.replication.throttled.rate", "1048576").outcome.ok());
  EXPECT_TRUE(plan("num.io.threads", "8").outcome.ok()) << "kept as given";
  // The cleaner's dynamic settings, in their ranges.
  for (auto [name, bad] : {std::pair{"log.cleaner.threads", "0"}, {"log.cleaner.threads", "65"},
                           {"log.cleaner.io.max.bytes.per.second", "0.5"}, {"log.cleaner.io.max.bytes.per.second", "x"},
                           {"log.cleaner.dedupe.buffer.size", "1024"}, {"log.cleaner.backoff.ms", "0"}}) {
    controller::Plan p = plan(name, bad);
    EXPECT_EQ(p.outcome.code, ErrorCode::kInvalidConfig) << name << "=" << bad;
    EXPECT_NE(p.outcome.message.find(name), std::string::npos) << p.outcome.message;
  }
  for (auto [name, good] : {std::pair{"log.cleaner.threads", "4"}, {"log.cleaner.io.max.bytes.per.second", "1.5e6"},
                            {"log.cleaner.dedupe.buffer.size", "16777216"}, {"log.cleaner.backoff.ms", "100"}}) {
    EXPECT_TRUE(plan(name, good).outcome.ok()) << name << "=" << good;
  }
}

// What a broker reads of them: its own value, else the cluster default's; one the table
// refuses (an older controller's) leaves the static setting.
TEST(TopicSettings, ABrokersDynamicSettingIsItsOwnElseTheClusterDefaultAndOnlyInRange) {
  MetadataImage image = Cluster();
  auto set = [&](const std::string& broker, const std::string& name, const std::string& value) {
    metadata::v1::MetadataRecord r;
    r.mutable_config()->set_resource_type(metadata::v1::Config::BROKER);
    r.mutable_config()->set_resource_name(broker);
    r.mutable_config()->set_name(name);
    r.mutable_config()->set_value(value);
    ASSERT_TRUE(image.Apply(r).ok());
  };
  EXPECT_EQ(controller::DynamicBrokerLong(image, "log.cleaner.threads", 1), std::nullopt);
  set("", "log.cleaner.threads", "2");
  set("1", "log.cleaner.threads", "3");
  EXPECT_EQ(controller::DynamicBrokerLong(image, "log.cleaner.threads", 1), 3);
  EXPECT_EQ(controller::DynamicBrokerLong(image, "log.cleaner.threads", 2), 2);
  set("2", "log.cleaner.threads", "99");
  EXPECT_EQ(controller::DynamicBrokerLong(image, "log.cleaner.threads", 2), 2) << "the cluster default's";
  set("", "log.cleaner.io.max.bytes.per.second", "2.5e6");
  EXPECT_EQ(controller::DynamicBrokerDouble(image, "log.cleaner.io.max.bytes.per.second", 1), 2.5e6);
  EXPECT_EQ(controller::DynamicBrokerLong(image, "num.io.threads", 1), std::nullopt) << "not in the table";
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
  storage::LogConfig config = TopicLogConfig(image, "t1", /*broker_id=*/1, storage::LogConfig{}, &refused);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].message().find("segment.index.bytes"), absl::string_view::npos) << refused[0];
  EXPECT_TRUE(config.cleanup_compact);
  EXPECT_FALSE(config.cleanup_delete);
  EXPECT_EQ(config.segment_index_bytes, storage::LogConfig{}.segment_index_bytes);
}

}  // namespace
}  // namespace strata::broker
