#include "controller/topic_name.h"

#include <gtest/gtest.h>

#include <string>

namespace strata::controller {
namespace {

TEST(ValidateTopicName, AcceptsLegalNames) {
  for (const std::string& name : {std::string("orders"), std::string("a"), std::string("Orders-2024_eu.v1"),
                                  std::string("..."), std::string(".hidden"), std::string("__consumer_offsets"),
                                  std::string(249, 'x')}) {
    EXPECT_TRUE(ValidateTopicName(name).ok()) << name << ": " << ValidateTopicName(name);
  }
}

TEST(ValidateTopicName, RefusesAnEmptyName) {
  absl::Status status = ValidateTopicName("");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "topic name is empty");
}

TEST(ValidateTopicName, RefusesDotAndDotDot) {
  EXPECT_EQ(ValidateTopicName(".").message(), "topic name cannot be \".\"");
  EXPECT_EQ(ValidateTopicName("..").message(), "topic name cannot be \"..\"");
  EXPECT_EQ(ValidateTopicName("..").code(), absl::StatusCode::kInvalidArgument);
}

TEST(ValidateTopicName, RefusesMoreThan249Characters) {
  absl::Status status = ValidateTopicName(std::string(250, 'x'));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "topic name is 250 characters long; at most 249 are allowed");
}

TEST(ValidateTopicName, NamesTheFirstIllegalCharacterAndItsPosition) {
  EXPECT_EQ(ValidateTopicName("my topic").message(),
            "topic name \"my topic\" contains ' ' (0x20) at position 2; only ASCII letters, digits, '.', '_' and "
            "'-' are allowed");
  EXPECT_EQ(ValidateTopicName("a/b:c").message(),
            "topic name \"a/b:c\" contains '/' (0x2f) at position 1; only ASCII letters, digits, '.', '_' and '-' "
            "are allowed");
  // Bytes that do not print are shown by value, and escaped in the quoted name.
  EXPECT_EQ(ValidateTopicName("a\nb").message(),
            "topic name \"a\\nb\" contains byte 0x0a at position 1; only ASCII letters, digits, '.', '_' and '-' "
            "are allowed");
  EXPECT_EQ(ValidateTopicName("caf\xc3\xa9").message(),
            "topic name \"caf\\xc3\\xa9\" contains byte 0xc3 at position 3; only ASCII letters, digits, '.', '_' "
            "and '-' are allowed");
  EXPECT_EQ(ValidateTopicName(std::string("a\0b", 3)).code(), absl::StatusCode::kInvalidArgument);
}

TEST(TopicNamesCollide, DotAndUnderscoreAreTreatedAlike) {
  EXPECT_TRUE(TopicNamesCollide("metrics.eu", "metrics_eu"));
  EXPECT_TRUE(TopicNamesCollide("a_b.c", "a.b_c"));
  EXPECT_TRUE(TopicNamesCollide("same", "same"));
  EXPECT_FALSE(TopicNamesCollide("metrics.eu", "metrics-eu"));
  EXPECT_FALSE(TopicNamesCollide("metrics.eu", "metricseu"));
  EXPECT_FALSE(TopicNamesCollide("Metrics_eu", "metrics_eu"));
  EXPECT_EQ(TopicCollisionKey("a.b_c.d"), "a_b_c_d");
}

TEST(IsInternalTopicName, NamesStartingWithTwoUnderscores) {
  EXPECT_TRUE(IsInternalTopicName("__consumer_offsets"));
  EXPECT_TRUE(IsInternalTopicName("__transaction_state"));
  EXPECT_TRUE(IsInternalTopicName("__"));
  EXPECT_FALSE(IsInternalTopicName("_single"));
  EXPECT_FALSE(IsInternalTopicName("orders__"));
  EXPECT_FALSE(IsInternalTopicName(""));
}

}  // namespace
}  // namespace strata::controller
