// The cluster admin APIs' codecs: DescribeConfigs (v0-v4), DescribeCluster (v0-v1),
// ElectLeaders (v0-v2), UpdateFeatures (v0-v2) and UnregisterBroker (v0). Requests and
// responses round-trip at each boundary the broker serves (first version, last classic,
// first flexible, last) and where fields appear or go (is_default v0, synonyms v1,
// config_type and documentation v3, endpoint_type v1, election_type and the top-level
// error v1; allow_downgrade v0 and upgrade_type, validate_only v1+, the per-feature
// results gone in v2); null stays apart from empty; hand-built bytes pin the layout in
// both directions; every truncation is refused, and so are counts beyond the bytes and
// nulls where none may be.

#include <gtest/gtest.h>

#include "proto/kafka/api.h"
#include "proto/kafka/describe_cluster.h"
#include "proto/kafka/describe_configs.h"
#include "proto/kafka/elect_leaders.h"
#include "proto/kafka/unregister_broker.h"
#include "proto/kafka/update_features.h"
#include "proto/kafka/wire.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::DecodeWhole;
using testing::Encode;
using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;
using Strings = std::vector<std::string>;

// ---- DescribeConfigs ----

TEST(KafkaDescribeConfigs, RequestsRoundTripAtEveryBoundary) {
  DescribeConfigsRequest req;
  req.resources.push_back({2, "orders", std::nullopt});
  req.resources.push_back({4, "3", Strings{"log.dirs", "node.id"}});
  req.resources.push_back({4, "", Strings{}});
  req.include_synonyms = true;
  req.include_documentation = true;
  // v1 first served, v3 last classic, v4 first flexible and last; v0 and v2 too.
  for (int16_t version : {0, 1, 2, 3, 4}) {
    SCOPED_TRACE(version);
    auto back = DecodeWhole(Encode(req, version, WriteDescribeConfigsRequest), version, ReadDescribeConfigsRequest);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back->resources.size(), 3u);
    EXPECT_EQ(back->resources[0].resource_type, 2);
    EXPECT_EQ(back->resources[0].configuration_keys, std::nullopt);  // null: every key
    EXPECT_EQ(back->resources[1].resource_name, "3");
    EXPECT_EQ(back->resources[1].configuration_keys, std::optional<Strings>(Strings{"log.dirs", "node.id"}));
    EXPECT_EQ(back->resources[2].configuration_keys, std::optional<Strings>(Strings{}));  // empty is not null
    EXPECT_EQ(back->include_synonyms, version >= 1);
    EXPECT_EQ(back->include_documentation, version >= 3);
  }
}

DescribeConfigsResponse SampleDescribeConfigsResponse() {
  DescribeConfigsResponse resp;
  resp.throttle_time_ms = 2;
  DescribeConfigsResponse::Result topic;
  topic.resource_type = 2;
  topic.resource_name = "orders";
  DescribeConfigsResponse::Config set;
  set.name = "retention.ms";
  set.value = "1000";
  set.config_source = 1;
  set.synonyms = {{"retention.ms", std::string("1000"), 1}, {"retention.ms", std::string("604800000"), 5}};
  set.config_type = 5;
  set.documentation = "how long";
  DescribeConfigsResponse::Config secret;
  secret.name = "password";
  secret.value = std::nullopt;
  secret.read_only = true;
  secret.is_default = true;
  secret.config_source = 4;
  secret.is_sensitive = true;
  topic.configs = {set, secret};
  DescribeConfigsResponse::Result missing;
  missing.error_code = 3;
  missing.error_message = "topic 'gone' does not exist";
  missing.resource_type = 2;
  missing.resource_name = "gone";
  resp.results = {topic, missing};
  return resp;
}

TEST(KafkaDescribeConfigs, ResponsesRoundTripAtEveryBoundary) {
  for (int16_t version : {0, 1, 2, 3, 4}) {
    SCOPED_TRACE(version);
    auto back = DecodeWhole(Encode(SampleDescribeConfigsResponse(), version, WriteDescribeConfigsResponse), version,
                            ReadDescribeConfigsResponse);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->throttle_time_ms, 2);
    ASSERT_EQ(back->results.size(), 2u);
    const auto& configs = back->results[0].configs;
    ASSERT_EQ(configs.size(), 2u);
    EXPECT_EQ(configs[0].value, std::optional<std::string>("1000"));
    EXPECT_EQ(configs[1].value, std::nullopt);
    EXPECT_TRUE(configs[1].read_only);
    EXPECT_TRUE(configs[1].is_sensitive);
    EXPECT_EQ(configs[1].is_default, version == 0);
    EXPECT_EQ(configs[0].config_source, version >= 1 ? 1 : -1);
    EXPECT_EQ(configs[0].synonyms.size(), version >= 1 ? 2u : 0u);
    if (version >= 1) {
      EXPECT_EQ(configs[0].synonyms[1].source, 5);
    }
    EXPECT_EQ(configs[0].config_type, version >= 3 ? 5 : 0);
    EXPECT_EQ(configs[0].documentation, version >= 3 ? std::optional<std::string>("how long") : std::nullopt);
    EXPECT_EQ(back->results[1].error_code, 3);
    EXPECT_EQ(back->results[1].error_message, std::optional<std::string>("topic 'gone' does not exist"));
    EXPECT_EQ(back->results[0].error_message, std::nullopt);
  }
}

TEST(KafkaDescribeConfigs, RequestBytesMatchTheProtocolLayout) {
  // v1: type, name, keys (nullable array of strings), then include_synonyms.
  std::string v1 = HandBytes().Array(2).I8(2).Str("t").Array(-1).I8(4).Str("1").Array(1).Str("k").Bool(true).str();
  auto a = DecodeWhole(v1, 1, ReadDescribeConfigsRequest);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->resources.size(), 2u);
  EXPECT_EQ(a->resources[0].configuration_keys, std::nullopt);
  EXPECT_EQ(a->resources[1].resource_type, 4);
  EXPECT_EQ(a->resources[1].configuration_keys, std::optional<Strings>(Strings{"k"}));
  EXPECT_TRUE(a->include_synonyms);
  EXPECT_EQ(Encode(*a, 1, WriteDescribeConfigsRequest), v1);
  // v4: compact, include_documentation, tagged sections.
  std::string v4 = HandBytes().CArray(1).I8(2).CStr("t").CNull().NoTags().Bool(false).Bool(true).NoTags().str();
  auto b = DecodeWhole(v4, 4, ReadDescribeConfigsRequest);
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->include_synonyms);
  EXPECT_TRUE(b->include_documentation);
  EXPECT_EQ(Encode(*b, 4, WriteDescribeConfigsRequest), v4);
}

TEST(KafkaDescribeConfigs, ResponseBytesMatchTheProtocolLayout) {
  DescribeConfigsResponse resp;
  DescribeConfigsResponse::Result r;
  r.resource_type = 2;
  r.resource_name = "t";
  DescribeConfigsResponse::Config c;
  c.name = "a";
  c.value = "1";
  c.config_source = 1;
  c.synonyms = {{"a", std::string("1"), 1}};
  r.configs = {c};
  resp.results = {r};
  // v1: throttle; error, message, type, name; per config name, value, read_only,
  // config_source, is_sensitive, synonyms (name, value, source).
  std::string v1 = HandBytes()
                       .I32(0)
                       .Array(1).I16(0).NullStr().I8(2).Str("t")
                       .Array(1).Str("a").Str("1").Bool(false).I8(1).Bool(false)
                       .Array(1).Str("a").Str("1").I8(1)
                       .str();
  EXPECT_EQ(Encode(resp, 1, WriteDescribeConfigsResponse), v1);
  // v4: compact, config_type and documentation (null) after the synonyms.
  std::string v4 = HandBytes()
                       .I32(0)
                       .CArray(1).I16(0).CNull().I8(2).CStr("t")
                       .CArray(1).CStr("a").CStr("1").Bool(false).I8(1).Bool(false)
                       .CArray(1).CStr("a").CStr("1").I8(1).NoTags()
                       .I8(0).CNull()
                       .NoTags()  // config
                       .NoTags()  // result
                       .NoTags()
                       .str();
  EXPECT_EQ(Encode(resp, 4, WriteDescribeConfigsResponse), v4);
  auto back = DecodeWhole(v4, 4, ReadDescribeConfigsResponse);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->results.at(0).configs.at(0).synonyms.at(0).source, 1);
  // v0: is_default in place of config_source, no synonyms.
  c.is_default = true;
  resp.results[0].configs = {c};
  EXPECT_EQ(Encode(resp, 0, WriteDescribeConfigsResponse),
            HandBytes().I32(0).Array(1).I16(0).NullStr().I8(2).Str("t").Array(1).Str("a").Str("1").Bool(false)
                .Bool(true).Bool(false).str());
}

// ---- DescribeCluster ----

TEST(KafkaDescribeCluster, RequestsAndResponsesRoundTripInBothVersions) {
  DescribeClusterRequest req;
  req.include_cluster_authorized_operations = true;
  req.endpoint_type = 2;
  DescribeClusterResponse resp;
  resp.throttle_time_ms = 3;
  resp.error_code = 114;
  resp.error_message = "wrong endpoint";
  resp.endpoint_type = 2;
  resp.cluster_id = "cluster-1";
  resp.controller_id = 4;
  resp.brokers.push_back({4, "127.0.0.1", 9092, std::string("rack-a")});
  resp.brokers.push_back({5, "127.0.0.2", 9093, std::nullopt});
  resp.cluster_authorized_operations = 0x0f;
  for (int16_t version : {0, 1}) {
    SCOPED_TRACE(version);
    auto rq = DecodeWhole(Encode(req, version, WriteDescribeClusterRequest), version, ReadDescribeClusterRequest);
    ASSERT_TRUE(rq.ok());
    EXPECT_TRUE(rq->include_cluster_authorized_operations);
    EXPECT_EQ(rq->endpoint_type, version >= 1 ? 2 : 1);  // v0: brokers, always
    auto rs = DecodeWhole(Encode(resp, version, WriteDescribeClusterResponse), version, ReadDescribeClusterResponse);
    ASSERT_TRUE(rs.ok());
    EXPECT_EQ(rs->throttle_time_ms, 3);
    EXPECT_EQ(rs->error_code, 114);
    EXPECT_EQ(rs->error_message, std::optional<std::string>("wrong endpoint"));
    EXPECT_EQ(rs->endpoint_type, version >= 1 ? 2 : 1);
    EXPECT_EQ(rs->cluster_id, "cluster-1");
    EXPECT_EQ(rs->controller_id, 4);
    ASSERT_EQ(rs->brokers.size(), 2u);
    EXPECT_EQ(rs->brokers[0].rack, std::optional<std::string>("rack-a"));
    EXPECT_EQ(rs->brokers[1].rack, std::nullopt);
    EXPECT_EQ(rs->brokers[1].port, 9093);
    EXPECT_EQ(rs->cluster_authorized_operations, 0x0f);
  }
}

TEST(KafkaDescribeCluster, BytesMatchTheProtocolLayout) {
  // Requests: include_cluster_authorized_operations, endpoint_type (v1), tagged fields.
  std::string v1 = HandBytes().Bool(false).I8(1).NoTags().str();
  auto rq = DecodeWhole(v1, 1, ReadDescribeClusterRequest);
  ASSERT_TRUE(rq.ok());
  EXPECT_EQ(rq->endpoint_type, 1);
  EXPECT_EQ(Encode(*rq, 1, WriteDescribeClusterRequest), v1);
  EXPECT_EQ(Encode(*rq, 0, WriteDescribeClusterRequest), HandBytes().Bool(false).NoTags().str());
  // Response v1: throttle, error, message, endpoint_type, cluster id, controller id,
  // brokers (id, host, port, rack, tags), authorized operations, tags.
  DescribeClusterResponse resp;
  resp.cluster_id = "c";
  resp.controller_id = 2;
  resp.brokers.push_back({2, "h", 9092, std::nullopt});
  std::string r1 = HandBytes()
                       .I32(0)
                       .I16(0)
                       .CNull()
                       .I8(1)
                       .CStr("c")
                       .I32(2)
                       .CArray(1).I32(2).CStr("h").I32(9092).CNull().NoTags()
                       .I32(INT32_MIN)
                       .NoTags()
                       .str();
  EXPECT_EQ(Encode(resp, 1, WriteDescribeClusterResponse), r1);
  auto back = DecodeWhole(r1, 1, ReadDescribeClusterResponse);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->brokers.at(0).host, "h");
}

// ---- ElectLeaders ----

using ElectTopics = std::vector<ElectLeadersRequest::TopicPartitions>;

TEST(KafkaElectLeaders, TheApiTableKnowsIt) {
  int16_t key = static_cast<int16_t>(ApiKey::kElectLeaders);
  EXPECT_EQ(key, 43);
  EXPECT_EQ(ApiName(key), "ElectLeaders");
  EXPECT_EQ(FirstFlexibleVersion(key), std::optional<int16_t>(2));
  EXPECT_EQ(RequestHeaderVersion(key, 1), 1);
  EXPECT_EQ(RequestHeaderVersion(key, 2), 2);
  EXPECT_EQ(ResponseHeaderVersion(key, 2), 1);
}

TEST(KafkaElectLeaders, RequestsRoundTripInEveryVersion) {
  ElectLeadersRequest named;
  named.election_type = static_cast<int8_t>(ElectionType::kUnclean);
  named.topic_partitions = ElectTopics{{"orders", {0, 2, 5}}, {"empty", {}}};
  named.timeout_ms = 15000;
  ElectLeadersRequest every;  // null: every partition
  every.election_type = static_cast<int8_t>(ElectionType::kUnclean);
  ElectLeadersRequest none = named;
  none.topic_partitions = ElectTopics{};  // empty, not null
  for (int16_t v = 0; v <= 2; ++v) {
    for (const ElectLeadersRequest& req : {named, every, none}) {
      ElectLeadersRequest expected = req;
      if (v < 1) expected.election_type = static_cast<int8_t>(ElectionType::kPreferred);  // v0: always preferred
      ExpectRoundTrip(WriteElectLeadersRequest, ReadElectLeadersRequest, req, expected, v);
    }
  }
}

TEST(KafkaElectLeaders, ResponsesRoundTripInEveryVersion) {
  ElectLeadersResponse resp;
  resp.throttle_time_ms = 4;
  resp.error_code = 7;
  resp.replica_election_results = {
      {"orders", {{0, 0, std::nullopt}, {2, 84, std::string("the preferred replica leads already")}}},
      {"gone", {{1, 3, std::string("")}}},  // an empty message is not null
      {"none", {}}};
  for (int16_t v = 0; v <= 2; ++v) {
    ElectLeadersResponse expected = resp;
    if (v < 1) expected.error_code = 0;  // the top-level error is v1+
    ExpectRoundTrip(WriteElectLeadersResponse, ReadElectLeadersResponse, resp, expected, v);
  }
}

TEST(KafkaElectLeaders, BytesMatchTheProtocolLayout) {
  ElectLeadersRequest req;
  req.topic_partitions = ElectTopics{{"t", {1, 2}}};
  req.timeout_ms = 500;
  // v0: topic partitions (topic, partitions), timeout.
  ExpectLayout(WriteElectLeadersRequest, ReadElectLeadersRequest, req,
               HandBytes().Array(1).Str("t").Array(2).I32(1).I32(2).I32(500).str(), 0);
  req.election_type = 1;
  // v1: the election type first.
  ExpectLayout(WriteElectLeadersRequest, ReadElectLeadersRequest, req,
               HandBytes().I8(1).Array(1).Str("t").Array(2).I32(1).I32(2).I32(500).str(), 1);
  // v2: compact, with tagged fields per topic and at the end.
  ExpectLayout(WriteElectLeadersRequest, ReadElectLeadersRequest, req,
               HandBytes().I8(1).CArray(1).CStr("t").CArray(2).I32(1).I32(2).NoTags().I32(500).NoTags().str(), 2);
  ElectLeadersRequest every;
  every.timeout_ms = 500;
  ExpectLayout(WriteElectLeadersRequest, ReadElectLeadersRequest, every, HandBytes().I8(0).I32(-1).I32(500).str(), 1);
  ExpectLayout(WriteElectLeadersRequest, ReadElectLeadersRequest, every,
               HandBytes().I8(0).CNull().I32(500).NoTags().str(), 2);

  ElectLeadersResponse resp;
  resp.throttle_time_ms = 1;
  resp.replica_election_results = {{"t", {{1, 84, std::string("m")}, {2, 0, std::nullopt}}}};
  // v0: throttle, results (topic, partitions: id, error, nullable message).
  ExpectLayout(WriteElectLeadersResponse, ReadElectLeadersResponse, resp,
               HandBytes().I32(1).Array(1).Str("t").Array(2).I32(1).I16(84).Str("m").I32(2).I16(0).NullStr().str(),
               0);
  resp.error_code = 42;
  // v1: the top-level error after the throttle time.
  ExpectLayout(WriteElectLeadersResponse, ReadElectLeadersResponse, resp,
               HandBytes().I32(1).I16(42).Array(1).Str("t").Array(2).I32(1).I16(84).Str("m").I32(2).I16(0).NullStr().str(),
               1);
  ExpectLayout(WriteElectLeadersResponse, ReadElectLeadersResponse, resp,
               HandBytes()
                   .I32(1)
                   .I16(42)
                   .CArray(1)
                   .CStr("t")
                   .CArray(2).I32(1).I16(84).CStr("m").NoTags().I32(2).I16(0).CNull().NoTags()
                   .NoTags()
                   .NoTags()
                   .str(),
               2);
}

TEST(KafkaElectLeaders, UnknownTaggedFieldsOfANewerClientAreSkipped) {
  // v2 with a tagged field (tag 3, 1 byte) inside the topic and one at the end.
  std::string bytes =
      HandBytes().I8(0).CArray(1).CStr("t").CArray(1).I32(0).I8(1).I8(3).I8(1).Raw("x").I32(9).I8(1).I8(4).I8(0).str();
  auto req = DecodeWhole(bytes, 2, ReadElectLeadersRequest);
  ASSERT_TRUE(req.ok());
  ASSERT_TRUE(req->topic_partitions.has_value());
  EXPECT_EQ(req->topic_partitions->at(0).partitions, std::vector<int32_t>{0});
  EXPECT_EQ(req->timeout_ms, 9);
}

// ---- UpdateFeatures ----

using FeatureUpdates = std::vector<UpdateFeaturesRequest::FeatureUpdate>;

TEST(KafkaUpdateFeatures, TheApiTableKnowsIt) {
  int16_t key = static_cast<int16_t>(ApiKey::kUpdateFeatures);
  EXPECT_EQ(key, 57);
  EXPECT_EQ(ApiName(key), "UpdateFeatures");
  EXPECT_EQ(FirstFlexibleVersion(key), std::optional<int16_t>(0));
  EXPECT_EQ(RequestHeaderVersion(key, 0), 2);
  EXPECT_EQ(ResponseHeaderVersion(key, 2), 1);
  EXPECT_EQ(ThrottleTimeOffset(key, 0), std::optional<size_t>(0));
}

TEST(KafkaUpdateFeatures, RequestsRoundTripWithTheFieldsOfEachVersion) {
  UpdateFeaturesRequest req;
  req.timeout_ms = 15000;
  req.feature_updates = FeatureUpdates{{"transaction.version", 2, false, 1}, {"other.version", 0, true, 3}};
  req.validate_only = true;
  for (int16_t v = 0; v <= 2; ++v) {
    UpdateFeaturesRequest expected = req;
    for (auto& u : expected.feature_updates) {
      if (v < 1) u.upgrade_type = 1;        // v0 has allow_downgrade instead
      if (v >= 1) u.allow_downgrade = false;
    }
    if (v < 1) expected.validate_only = false;
    ExpectRoundTrip(WriteUpdateFeaturesRequest, ReadUpdateFeaturesRequest, req, expected, v);
  }
}

TEST(KafkaUpdateFeatures, V0AllowDowngradeIsASafeDowngradeAndV1TakesTheTypeAsSent) {
  UpdateFeaturesRequest::FeatureUpdate down{"f", 1, true, 1};
  UpdateFeaturesRequest::FeatureUpdate up{"f", 2, false, 3};
  EXPECT_EQ(UpgradeTypeOf(down, 0), FeatureUpgradeType::kSafeDowngrade);
  EXPECT_EQ(UpgradeTypeOf(up, 0), FeatureUpgradeType::kUpgrade);
  EXPECT_EQ(UpgradeTypeOf(up, 1), FeatureUpgradeType::kUnsafeDowngrade);
  EXPECT_EQ(UpgradeTypeOf(down, 2), FeatureUpgradeType::kUpgrade) << "v1+ reads upgrade_type only";
}

TEST(KafkaUpdateFeatures, ResponsesRoundTripAndV2HasNoResults) {
  UpdateFeaturesResponse resp;
  resp.throttle_time_ms = 3;
  resp.error_code = 95;
  resp.error_message = "level 9 of feature transaction.version: refused";
  resp.results = {{"transaction.version", 0, std::nullopt}, {"other.version", 95, std::string("")}};
  for (int16_t v = 0; v <= 2; ++v) {
    UpdateFeaturesResponse expected = resp;
    if (v >= 2) expected.results.clear();
    ExpectRoundTrip(WriteUpdateFeaturesResponse, ReadUpdateFeaturesResponse, resp, expected, v);
  }
}

TEST(KafkaUpdateFeatures, BytesMatchTheProtocolLayout) {
  // v0: timeout, updates (feature, max level, allow_downgrade), all compact.
  ExpectLayout(WriteUpdateFeaturesRequest, ReadUpdateFeaturesRequest,
               UpdateFeaturesRequest{500, FeatureUpdates{{"tv", 1, true, 1}}, false},
               HandBytes().I32(500).CArray(1).CStr("tv").I16(1).Bool(true).NoTags().NoTags().str(), 0);
  // v1: upgrade_type in place of allow_downgrade, then validate_only.
  ExpectLayout(WriteUpdateFeaturesRequest, ReadUpdateFeaturesRequest,
               UpdateFeaturesRequest{500, FeatureUpdates{{"tv", 1, false, 2}}, true},
               HandBytes().I32(500).CArray(1).CStr("tv").I16(1).I8(2).NoTags().Bool(true).NoTags().str(), 1);

  UpdateFeaturesResponse resp;
  resp.throttle_time_ms = 1;
  resp.results = {{"tv", 0, std::nullopt}};
  // v1: throttle, error, nullable message, results (feature, error, nullable message).
  ExpectLayout(WriteUpdateFeaturesResponse, ReadUpdateFeaturesResponse, resp,
               HandBytes().I32(1).I16(0).CNull().CArray(1).CStr("tv").I16(0).CNull().NoTags().NoTags().str(), 1);
  // v2: no results.
  UpdateFeaturesResponse refused;
  refused.error_code = 95;
  refused.error_message = "no";
  ExpectLayout(WriteUpdateFeaturesResponse, ReadUpdateFeaturesResponse, refused,
               HandBytes().I32(0).I16(95).CStr("no").NoTags().str(), 2);
}

TEST(KafkaUpdateFeatures, MalformedRequestsAreRefused) {
  auto refused = [](const std::string& bytes, int16_t version) {
    Reader r(bytes);
    return !ReadUpdateFeaturesRequest(r, version).ok();
  };
  // More updates than bytes remain; a null update list; a null feature name.
  EXPECT_TRUE(refused(HandBytes().I32(0).I8(100).CStr("tv").str(), 1));
  EXPECT_TRUE(refused(HandBytes().I32(0).CNull().Bool(false).NoTags().str(), 1));
  EXPECT_TRUE(refused(HandBytes().I32(0).CArray(1).CNull().I16(1).I8(1).NoTags().Bool(false).NoTags().str(), 1));
  // A tagged field claiming more bytes than follow.
  EXPECT_TRUE(refused(HandBytes().I32(0).CArray(0).Bool(false).I8(1).I8(0).I8(9).Raw("x").str(), 1));
  // An unknown tagged field of a newer client is skipped.
  EXPECT_FALSE(refused(HandBytes().I32(0).CArray(0).Bool(false).I8(1).I8(5).I8(1).Raw("x").str(), 1));
}

// ---- UnregisterBroker ----

TEST(KafkaUnregisterBroker, TheApiTableKnowsIt) {
  int16_t key = static_cast<int16_t>(ApiKey::kUnregisterBroker);
  EXPECT_EQ(key, 64);
  EXPECT_EQ(ApiName(key), "UnregisterBroker");
  EXPECT_EQ(FirstFlexibleVersion(key), std::optional<int16_t>(0));
  EXPECT_EQ(ResponseHeaderVersion(key, 0), 1);
  EXPECT_EQ(ThrottleTimeOffset(key, 0), std::optional<size_t>(0));
}

TEST(KafkaUnregisterBroker, RequestAndResponseRoundTripAndMatchTheLayout) {
  ExpectRoundTrip(WriteUnregisterBrokerRequest, ReadUnregisterBrokerRequest, UnregisterBrokerRequest{7},
                  UnregisterBrokerRequest{7}, 0);
  UnregisterBrokerResponse resp{2, 102, std::string("broker 7 is not registered")};
  ExpectRoundTrip(WriteUnregisterBrokerResponse, ReadUnregisterBrokerResponse, resp, resp, 0);
  // Request: broker id, tags. Response: throttle, error, nullable message, tags.
  ExpectLayout(WriteUnregisterBrokerRequest, ReadUnregisterBrokerRequest, UnregisterBrokerRequest{258},
               HandBytes().I32(258).NoTags().str(), 0);
  ExpectLayout(WriteUnregisterBrokerResponse, ReadUnregisterBrokerResponse, UnregisterBrokerResponse{0, 0, std::nullopt},
               HandBytes().I32(0).I16(0).CNull().NoTags().str(), 0);
  // A tagged field claiming more bytes than follow is refused.
  const std::string bad = HandBytes().I32(1).I8(1).I8(0).I8(4).Raw("x").str();
  Reader r(bad);
  EXPECT_FALSE(ReadUnregisterBrokerRequest(r, 0).ok());
}

}  // namespace
}  // namespace strata::proto::kafka
