// The topic admin APIs' codecs: CreateTopics (v0-v7), DeleteTopics (v0-v6),
// AlterPartitionReassignments (v0-v1), ListPartitionReassignments (v0),
// CreatePartitions (v0-v3) and AlterReplicaLogDirs (v0-v2). Requests and responses
// round-trip at each boundary the broker serves (first version, last classic, first
// flexible, last) and at the versions where fields appear; nullable fields keep null apart
// from empty; hand-built bytes pin the layout in both directions; every truncation is
// refused, and so are counts beyond the bytes and nulls where none may be.

#include <gtest/gtest.h>

#include "proto/kafka/alter_configs.h"
#include "proto/kafka/alter_replica_log_dirs.h"
#include "proto/kafka/api.h"
#include "proto/kafka/create_partitions.h"
#include "proto/kafka/create_topics.h"
#include "proto/kafka/delete_records.h"
#include "proto/kafka/delete_topics.h"
#include "proto/kafka/describe_log_dirs.h"
#include "proto/kafka/partition_reassignments.h"
#include "proto/kafka/wire.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::DecodeWhole;
using testing::Encode;
using testing::HandBytes;
using Ids = std::vector<int32_t>;

// ---- CreateTopics ----

CreateTopicsRequest SampleCreateTopics() {
  CreateTopicsRequest req;
  req.topics.push_back({"orders", 6, 3, {}, {{"retention.ms", "1000"}, {"cleanup.policy", std::nullopt}}});
  req.topics.push_back({"manual", -1, -1, {{0, {1, 2}}, {1, {2, 3}}}, {}});
  req.timeout_ms = 5000;
  req.validate_only = true;
  return req;
}

TEST(KafkaCreateTopics, RequestsRoundTripAtEveryBoundary) {
  // v2 first served, v4 last classic, v5 first flexible, v7 last; v0/v1 for validate_only.
  for (int16_t version : {0, 1, 2, 4, 5, 7}) {
    SCOPED_TRACE(version);
    std::string bytes = Encode(SampleCreateTopics(), version, WriteCreateTopicsRequest);
    auto back = DecodeWhole(bytes, version, ReadCreateTopicsRequest);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back->topics.size(), 2u);
    const auto& orders = back->topics[0];
    EXPECT_EQ(orders.name, "orders");
    EXPECT_EQ(orders.num_partitions, 6);
    EXPECT_EQ(orders.replication_factor, 3);
    ASSERT_EQ(orders.configs.size(), 2u);
    EXPECT_EQ(orders.configs[0].value, std::optional<std::string>("1000"));
    EXPECT_EQ(orders.configs[1].name, "cleanup.policy");
    EXPECT_EQ(orders.configs[1].value, std::nullopt);  // null stays null
    const auto& manual = back->topics[1];
    EXPECT_EQ(manual.num_partitions, -1);
    EXPECT_EQ(manual.replication_factor, -1);
    ASSERT_EQ(manual.assignments.size(), 2u);
    EXPECT_EQ(manual.assignments[1].partition_index, 1);
    EXPECT_EQ(manual.assignments[1].broker_ids, (Ids{2, 3}));
    EXPECT_EQ(back->timeout_ms, 5000);
    EXPECT_EQ(back->validate_only, version >= 1);
  }
}

CreateTopicsResponse SampleCreateTopicsResponse() {
  CreateTopicsResponse resp;
  resp.throttle_time_ms = 9;
  CreateTopicsResponse::Topic created;
  created.name = "orders";
  created.topic_id = std::string(16, 'x');
  created.num_partitions = 6;
  created.replication_factor = 3;
  created.configs = std::vector<CreateTopicsResponse::Config>{{"retention.ms", "1000", false, 1, false},
                                                              {"secret", std::nullopt, true, 5, true}};
  CreateTopicsResponse::Topic refused;
  refused.name = "taken";
  refused.error_code = 36;
  refused.error_message = "topic 'taken' already exists";
  refused.topic_config_error_code = 29;
  refused.configs = std::nullopt;
  resp.topics = {created, refused};
  return resp;
}

TEST(KafkaCreateTopics, ResponsesRoundTripAtEveryBoundary) {
  for (int16_t version : {0, 1, 2, 4, 5, 6, 7}) {
    SCOPED_TRACE(version);
    std::string bytes = Encode(SampleCreateTopicsResponse(), version, WriteCreateTopicsResponse);
    auto back = DecodeWhole(bytes, version, ReadCreateTopicsResponse);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->throttle_time_ms, version >= 2 ? 9 : 0);
    ASSERT_EQ(back->topics.size(), 2u);
    const auto& created = back->topics[0];
    const auto& refused = back->topics[1];
    EXPECT_EQ(created.topic_id, version >= 7 ? std::string(16, 'x') : std::string(16, '\0'));
    EXPECT_EQ(created.error_message, std::nullopt);
    EXPECT_EQ(refused.error_code, 36);
    EXPECT_EQ(refused.error_message,
              version >= 1 ? std::optional<std::string>("topic 'taken' already exists") : std::nullopt);
    if (version >= 5) {
      EXPECT_EQ(created.num_partitions, 6);
      EXPECT_EQ(created.replication_factor, 3);
      ASSERT_TRUE(created.configs.has_value());
      ASSERT_EQ(created.configs->size(), 2u);
      EXPECT_EQ((*created.configs)[0].config_source, 1);
      EXPECT_EQ((*created.configs)[1].value, std::nullopt);
      EXPECT_TRUE((*created.configs)[1].read_only);
      EXPECT_TRUE((*created.configs)[1].is_sensitive);
      EXPECT_EQ(refused.configs, std::nullopt);  // a null array stays null
      EXPECT_EQ(refused.topic_config_error_code, std::optional<int16_t>(29));
      EXPECT_EQ(created.topic_config_error_code, std::nullopt);
    } else {
      EXPECT_EQ(created.num_partitions, -1);
      EXPECT_TRUE(created.configs.has_value() && created.configs->empty());
      EXPECT_EQ(refused.topic_config_error_code, std::nullopt);
    }
  }
}

TEST(KafkaCreateTopics, RequestBytesMatchTheProtocolLayout) {
  // v2 (classic): a manual assignment, defaults for the counts, no configs.
  std::string v2 = HandBytes()
                       .Array(1)
                       .Str("t1")
                       .I32(-1)  // num_partitions
                       .I16(-1)  // replication_factor
                       .Array(1).I32(0).Array(2).I32(1).I32(2)  // partition 0 on brokers 1, 2
                       .Array(0)                                // configs
                       .I32(30000)                              // timeout_ms
                       .Bool(false)                             // validate_only
                       .str();
  auto a = DecodeWhole(v2, 2, ReadCreateTopicsRequest);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->topics.size(), 1u);
  EXPECT_EQ(a->topics[0].assignments.at(0).broker_ids, (Ids{1, 2}));
  EXPECT_EQ(a->timeout_ms, 30000);
  CreateTopicsRequest manual;
  manual.topics.push_back({"t1", -1, -1, {{0, {1, 2}}}, {}});
  manual.timeout_ms = 30000;
  EXPECT_EQ(Encode(manual, 2, WriteCreateTopicsRequest), v2);

  // v5 (flexible): compact strings and arrays, a null config value, tagged sections.
  std::string v5 = HandBytes()
                       .CArray(1)
                       .CStr("t1")
                       .I32(3)
                       .I16(2)
                       .CArray(0)  // assignments
                       .CArray(2).CStr("a").CStr("1").NoTags().CStr("b").CNull().NoTags()
                       .NoTags()  // topic
                       .I32(5000)
                       .Bool(true)
                       .NoTags()
                       .str();
  auto b = DecodeWhole(v5, 5, ReadCreateTopicsRequest);
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(b->topics.size(), 1u);
  EXPECT_EQ(b->topics[0].num_partitions, 3);
  EXPECT_EQ(b->topics[0].replication_factor, 2);
  ASSERT_EQ(b->topics[0].configs.size(), 2u);
  EXPECT_EQ(b->topics[0].configs[1].value, std::nullopt);
  EXPECT_TRUE(b->validate_only);
  CreateTopicsRequest flexible;
  flexible.topics.push_back({"t1", 3, 2, {}, {{"a", "1"}, {"b", std::nullopt}}});
  flexible.timeout_ms = 5000;
  flexible.validate_only = true;
  EXPECT_EQ(Encode(flexible, 5, WriteCreateTopicsRequest), v5);
}

TEST(KafkaCreateTopics, ResponseBytesMatchTheProtocolLayout) {
  CreateTopicsResponse resp;
  CreateTopicsResponse::Topic t;
  t.name = "t1";
  t.topic_id = std::string(16, '\x11');
  t.num_partitions = 3;
  t.replication_factor = 1;
  t.configs = std::vector<CreateTopicsResponse::Config>{{"a", "1", false, 1, false}};
  t.topic_config_error_code = 29;
  resp.topics.push_back(t);
  // v7: throttle, then per topic name, id, error, message, partitions, replication,
  // configs and a tagged section holding topic_config_error_code (tag 0, 2 bytes).
  std::string v7 = HandBytes()
                       .I32(0)
                       .CArray(1)
                       .CStr("t1")
                       .Uuid('\x11')
                       .I16(0)
                       .CNull()
                       .I32(3)
                       .I16(1)
                       .CArray(1).CStr("a").CStr("1").Bool(false).I8(1).Bool(false).NoTags()
                       .I8(1).I8(0).I8(2).I16(29)  // one tagged field: tag 0, size 2, value 29
                       .NoTags()
                       .str();
  EXPECT_EQ(Encode(resp, 7, WriteCreateTopicsResponse), v7);
  auto back = DecodeWhole(v7, 7, ReadCreateTopicsResponse);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->topics.at(0).topic_config_error_code, std::optional<int16_t>(29));
  // v4 (classic): throttle, name, error, nullable message; nothing of v5's.
  std::string v4 = HandBytes().I32(0).Array(1).Str("t1").I16(0).NullStr().str();
  EXPECT_EQ(Encode(resp, 4, WriteCreateTopicsResponse), v4);
}

TEST(KafkaCreateTopics, ATaggedFieldOfTheWrongSizeIsRefused) {
  // topic_config_error_code declared with 3 bytes: the int16 leaves one unread.
  std::string bad = HandBytes()
                        .I32(0)
                        .CArray(1).CStr("t1").I16(0).CNull().I32(1).I16(1).CArray(0)
                        .I8(1).I8(0).I8(3).I16(29).I8(0)
                        .NoTags()
                        .str();
  Reader r(bad);
  EXPECT_FALSE(ReadCreateTopicsResponse(r, 5).ok());
}

// ---- DeleteTopics ----

TEST(KafkaDeleteTopics, RequestsRoundTripAtEveryBoundary) {
  DeleteTopicsRequest req;
  req.topics.push_back({std::string("orders"), std::string(16, '\0')});
  req.timeout_ms = 15000;
  // v1 first served, v3 last classic, v4 first flexible, v5, v6 last (topics by id).
  for (int16_t version : {0, 1, 3, 4, 5, 6}) {
    SCOPED_TRACE(version);
    DeleteTopicsRequest sent = req;
    if (version >= 6) sent.topics.push_back({std::nullopt, std::string(16, '\x42')});
    auto back = DecodeWhole(Encode(sent, version, WriteDeleteTopicsRequest), version, ReadDeleteTopicsRequest);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back->topics.size(), version >= 6 ? 2u : 1u);
    EXPECT_EQ(back->topics[0].name, std::optional<std::string>("orders"));
    EXPECT_EQ(back->topics[0].topic_id, std::string(16, '\0'));
    if (version >= 6) {
      EXPECT_EQ(back->topics[1].name, std::nullopt);
      EXPECT_EQ(back->topics[1].topic_id, std::string(16, '\x42'));
    }
    EXPECT_EQ(back->timeout_ms, 15000);
  }
}

TEST(KafkaDeleteTopics, ResponsesRoundTripAtEveryBoundary) {
  DeleteTopicsResponse resp;
  resp.throttle_time_ms = 4;
  resp.topics.push_back({std::string("orders"), std::string(16, '\x07'), 0, std::nullopt});
  resp.topics.push_back({std::nullopt, std::string(16, '\x09'), 100, std::string("no topic with that id")});
  for (int16_t version : {0, 1, 3, 4, 5, 6}) {
    SCOPED_TRACE(version);
    auto back = DecodeWhole(Encode(resp, version, WriteDeleteTopicsResponse), version, ReadDeleteTopicsResponse);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->throttle_time_ms, version >= 1 ? 4 : 0);
    ASSERT_EQ(back->topics.size(), 2u);
    EXPECT_EQ(back->topics[0].name, std::optional<std::string>("orders"));
    // Before v6 a name is not nullable: a topic known only by id is sent as "".
    EXPECT_EQ(back->topics[1].name, version >= 6 ? std::nullopt : std::optional<std::string>(""));
    EXPECT_EQ(back->topics[1].topic_id, version >= 6 ? std::string(16, '\x09') : std::string(16, '\0'));
    EXPECT_EQ(back->topics[1].error_code, 100);
    EXPECT_EQ(back->topics[1].error_message,
              version >= 5 ? std::optional<std::string>("no topic with that id") : std::nullopt);
    EXPECT_EQ(back->topics[0].error_message, std::nullopt);
  }
}

TEST(KafkaDeleteTopics, BytesMatchTheProtocolLayout) {
  // v1 request: an array of classic strings, then timeout_ms.
  std::string v1 = HandBytes().Array(2).Str("a").Str("bc").I32(1000).str();
  auto a = DecodeWhole(v1, 1, ReadDeleteTopicsRequest);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->topics.size(), 2u);
  EXPECT_EQ(a->topics[1].name, std::optional<std::string>("bc"));
  EXPECT_EQ(Encode(*a, 1, WriteDeleteTopicsRequest), v1);
  // v4 request: compact array of compact strings (no tagged fields per string).
  std::string v4 = HandBytes().CArray(1).CStr("a").I32(1000).NoTags().str();
  auto b = DecodeWhole(v4, 4, ReadDeleteTopicsRequest);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->topics.at(0).name, std::optional<std::string>("a"));
  // v6 request: structs of nullable name and id.
  std::string v6 = HandBytes()
                       .CArray(2)
                       .CStr("a").Uuid('\0').NoTags()
                       .CNull().Uuid('\x33').NoTags()
                       .I32(1000)
                       .NoTags()
                       .str();
  auto c = DecodeWhole(v6, 6, ReadDeleteTopicsRequest);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->topics.size(), 2u);
  EXPECT_EQ(c->topics[1].name, std::nullopt);
  EXPECT_EQ(c->topics[1].topic_id, std::string(16, '\x33'));
  EXPECT_EQ(Encode(*c, 6, WriteDeleteTopicsRequest), v6);

  // v6 response: throttle, then name (nullable), id, error, message (nullable).
  DeleteTopicsResponse resp;
  resp.topics.push_back({std::nullopt, std::string(16, '\x33'), 100, std::string("gone")});
  std::string r6 = HandBytes().I32(0).CArray(1).CNull().Uuid('\x33').I16(100).CStr("gone").NoTags().NoTags().str();
  EXPECT_EQ(Encode(resp, 6, WriteDeleteTopicsResponse), r6);
  // v3 response: classic, no message.
  resp.topics[0].name = std::string("t");
  EXPECT_EQ(Encode(resp, 3, WriteDeleteTopicsResponse), HandBytes().I32(0).Array(1).Str("t").I16(100).str());
}

// ---- CreatePartitions ----

// AlterConfigs (33) and IncrementalAlterConfigs (44) share one codec, told apart by the
// api key: the operation is IncrementalAlterConfigs' only, and their flexible versions
// differ (2 and 1).
constexpr int16_t kAlter = static_cast<int16_t>(ApiKey::kAlterConfigs);
constexpr int16_t kIncremental = static_cast<int16_t>(ApiKey::kIncrementalAlterConfigs);
void WriteAlterRequest(const AlterConfigsRequest& r, int16_t v, Writer& w) { WriteAlterConfigsRequest(r, kAlter, v, w); }
absl::StatusOr<AlterConfigsRequest> ReadAlterRequest(Reader& r, int16_t v) { return ReadAlterConfigsRequest(r, kAlter, v); }
void WriteIncRequest(const AlterConfigsRequest& r, int16_t v, Writer& w) {
  WriteAlterConfigsRequest(r, kIncremental, v, w);
}
absl::StatusOr<AlterConfigsRequest> ReadIncRequest(Reader& r, int16_t v) {
  return ReadAlterConfigsRequest(r, kIncremental, v);
}
void WriteIncResponse(const AlterConfigsResponse& r, int16_t v, Writer& w) {
  WriteAlterConfigsResponse(r, kIncremental, v, w);
}
absl::StatusOr<AlterConfigsResponse> ReadIncResponse(Reader& r, int16_t v) {
  return ReadAlterConfigsResponse(r, kIncremental, v);
}
void WriteAlterResponse(const AlterConfigsResponse& r, int16_t v, Writer& w) {
  WriteAlterConfigsResponse(r, kAlter, v, w);
}
absl::StatusOr<AlterConfigsResponse> ReadAlterResponse(Reader& r, int16_t v) {
  return ReadAlterConfigsResponse(r, kAlter, v);
}

TEST(KafkaAlterConfigs, RequestsAndResponsesRoundTripAtEveryVersion) {
  AlterConfigsRequest inc;
  inc.resources.push_back({2, "orders", {{"cleanup.policy", 2, std::string("compact")}, {"retention.ms", 1, std::nullopt}}});
  inc.resources.push_back({4, "", {{"log.retention.ms", 0, std::string("1000")}}});
  inc.validate_only = true;
  AlterConfigsResponse resp;
  resp.throttle_time_ms = 3;
  resp.responses.push_back({0, std::nullopt, 2, "orders"});
  resp.responses.push_back({40, std::string("retention.ms: not a number"), 4, "1"});
  for (int16_t v : {0, 1}) {
    SCOPED_TRACE(v);
    auto back = DecodeWhole(Encode(inc, v, WriteIncRequest), v, ReadIncRequest);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, inc);
    auto r = DecodeWhole(Encode(resp, v, WriteIncResponse), v, ReadIncResponse);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, resp);
  }
  AlterConfigsRequest alter = inc;
  for (auto& res : alter.resources) {
    for (auto& c : res.configs) c.operation = 0;  // AlterConfigs carries no operation
  }
  for (int16_t v : {0, 1, 2}) {
    SCOPED_TRACE(v);
    auto back = DecodeWhole(Encode(alter, v, WriteAlterRequest), v, ReadAlterRequest);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, alter);
    auto r = DecodeWhole(Encode(resp, v, WriteAlterResponse), v, ReadAlterResponse);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, resp);
  }
}

TEST(KafkaAlterConfigs, BytesMatchTheProtocolLayout) {
  AlterConfigsRequest req;
  req.resources.push_back({2, "t", {{"a", 2, std::string("x")}}});
  // IncrementalAlterConfigs v0: resources (type, name, configs: name, operation, value),
  // validate_only.
  std::string v0 =
      HandBytes().Array(1).I8(2).Str("t").Array(1).Str("a").I8(2).Str("x").Bool(false).str();
  EXPECT_EQ(Encode(req, 0, WriteIncRequest), v0);
  // v1 is flexible: compact arrays and strings, a tag section after each struct.
  std::string v1 = HandBytes()
                       .CArray(1).I8(2).CStr("t").CArray(1).CStr("a").I8(2).CStr("x").NoTags()
                       .NoTags().Bool(false).NoTags().str();
  EXPECT_EQ(Encode(req, 1, WriteIncRequest), v1);
  // AlterConfigs v0 has no operation byte.
  std::string alter_v0 = HandBytes().Array(1).I8(2).Str("t").Array(1).Str("a").Str("x").Bool(false).str();
  EXPECT_EQ(Encode(req, 0, WriteAlterRequest), alter_v0);
}

TEST(KafkaDeleteRecords, RequestsAndResponsesRoundTripAtEveryVersion) {
  DeleteRecordsRequest req;
  req.topics.push_back({"orders", {{0, 10}, {3, -1}}});
  req.topics.push_back({"empty", {}});
  req.timeout_ms = 30000;
  DeleteRecordsResponse resp;
  resp.throttle_time_ms = 5;
  resp.topics.push_back({"orders", {{0, 10, 0}, {3, -1, 1}}});
  for (int16_t v = 0; v <= 2; ++v) {
    SCOPED_TRACE(v);
    auto back = DecodeWhole(Encode(req, v, WriteDeleteRecordsRequest), v, ReadDeleteRecordsRequest);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, req);
    auto r = DecodeWhole(Encode(resp, v, WriteDeleteRecordsResponse), v, ReadDeleteRecordsResponse);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, resp);
  }
}

TEST(KafkaDeleteRecords, BytesMatchTheProtocolLayout) {
  DeleteRecordsRequest req;
  req.topics.push_back({"t", {{1, 7}}});
  req.timeout_ms = 9;
  // v0-v1: topics (name, partitions: index, offset), timeout_ms.
  EXPECT_EQ(Encode(req, 1, WriteDeleteRecordsRequest),
            HandBytes().Array(1).Str("t").Array(1).I32(1).I64(7).I32(9).str());
  // v2 is flexible.
  EXPECT_EQ(Encode(req, 2, WriteDeleteRecordsRequest),
            HandBytes().CArray(1).CStr("t").CArray(1).I32(1).I64(7).NoTags().NoTags().I32(9).NoTags().str());
  DeleteRecordsResponse resp;
  resp.topics.push_back({"t", {{1, 7, 1}}});
  // throttle_time_ms, topics (name, partitions: index, low_watermark, error_code).
  EXPECT_EQ(Encode(resp, 0, WriteDeleteRecordsResponse),
            HandBytes().I32(0).Array(1).Str("t").Array(1).I32(1).I64(7).I16(1).str());
}

TEST(KafkaPartitionReassignments, RequestsAndResponsesRoundTripAtEveryVersion) {
  AlterPartitionReassignmentsRequest alter;
  alter.timeout_ms = 5000;
  alter.allow_replication_factor_change = false;
  alter.topics.push_back({"orders", {{0, Ids{4, 5, 6}}, {1, std::nullopt}, {2, Ids{}}}});
  AlterPartitionReassignmentsResponse altered;
  altered.throttle_time_ms = 3;
  altered.allow_replication_factor_change = false;
  altered.error_code = 0;
  altered.responses.push_back({"orders", {{0, 0, std::nullopt}, {1, 85, std::string("none in progress")}}});
  for (int16_t v = 0; v <= 1; ++v) {
    SCOPED_TRACE(v);
    // v0 has no allow flag: it reads back as its default (true).
    AlterPartitionReassignmentsRequest want = alter;
    AlterPartitionReassignmentsResponse want_response = altered;
    if (v == 0) want.allow_replication_factor_change = want_response.allow_replication_factor_change = true;
    auto back = DecodeWhole(Encode(alter, v, WriteAlterPartitionReassignmentsRequest), v,
                            ReadAlterPartitionReassignmentsRequest);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, want);
    auto r = DecodeWhole(Encode(altered, v, WriteAlterPartitionReassignmentsResponse), v,
                         ReadAlterPartitionReassignmentsResponse);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, want_response);
  }
  ListPartitionReassignmentsRequest all;
  ListPartitionReassignmentsRequest named;
  named.topics.emplace();
  named.topics->push_back({"orders", {0, 2}});
  for (const auto* req : {&all, &named}) {
    auto back = DecodeWhole(Encode(*req, 0, WriteListPartitionReassignmentsRequest), 0,
                            ReadListPartitionReassignmentsRequest);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, *req);
  }
  ListPartitionReassignmentsResponse listed;
  listed.topics.push_back({"orders", {{0, {4, 5, 6, 1}, {4}, {1}}}});
  auto r = DecodeWhole(Encode(listed, 0, WriteListPartitionReassignmentsResponse), 0,
                       ReadListPartitionReassignmentsResponse);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, listed);
}

TEST(KafkaPartitionReassignments, BytesMatchTheProtocolLayout) {
  AlterPartitionReassignmentsRequest alter;
  alter.timeout_ms = 9;
  alter.topics.push_back({"t", {{1, Ids{2}}, {3, std::nullopt}}});
  // timeout_ms, (v1) allow_replication_factor_change, topics (name, partitions (index,
  // nullable replicas)); flexible.
  EXPECT_EQ(Encode(alter, 1, WriteAlterPartitionReassignmentsRequest),
            HandBytes().I32(9).Bool(true).CArray(1).CStr("t").CArray(2).I32(1).CArray(1).I32(2).NoTags()
                .I32(3).CArray(-1).NoTags().NoTags().NoTags().str());
  EXPECT_EQ(Encode(alter, 0, WriteAlterPartitionReassignmentsRequest),
            HandBytes().I32(9).CArray(1).CStr("t").CArray(2).I32(1).CArray(1).I32(2).NoTags()
                .I32(3).CArray(-1).NoTags().NoTags().NoTags().str());
  ListPartitionReassignmentsResponse listed;
  listed.topics.push_back({"t", {{1, {2, 3}, {3}, {}}}});
  // throttle, error_code, error_message, topics (name, partitions (index, replicas,
  // adding, removing)).
  EXPECT_EQ(Encode(listed, 0, WriteListPartitionReassignmentsResponse),
            HandBytes().I32(0).I16(0).CNull().CArray(1).CStr("t").CArray(1).I32(1).CArray(2).I32(2).I32(3)
                .CArray(1).I32(3).CArray(0).NoTags().NoTags().NoTags().str());
  // ListPartitionReassignments' topics: null for every one.
  EXPECT_EQ(Encode(ListPartitionReassignmentsRequest{9, std::nullopt}, 0, WriteListPartitionReassignmentsRequest),
            HandBytes().I32(9).CArray(-1).NoTags().str());
}

TEST(KafkaDescribeLogDirs, RequestsAndResponsesRoundTripAtEveryVersion) {
  DescribeLogDirsRequest all;
  DescribeLogDirsRequest named;
  named.topics.emplace();
  named.topics->push_back({"orders", {0, 2}});
  for (int16_t v = 0; v <= 5; ++v) {
    SCOPED_TRACE(v);
    DescribeLogDirsResponse resp;
    resp.throttle_time_ms = 1;
    if (v >= 3) resp.error_code = 31;
    DescribeLogDirsResponse::Result& online = resp.results.emplace_back();
    online.log_dir = "/data/a";
    online.topics.push_back({"orders", {{0, 4096, 0, false}, {2, 10, 3, true}}});
    if (v >= 4) {
      online.total_bytes = 1 << 30;
      online.usable_bytes = 1 << 20;
    }
    resp.results.push_back({56, "/data/b", {}, -1, -1, false});
    for (const auto* req : {&all, &named}) {
      auto back = DecodeWhole(Encode(*req, v, WriteDescribeLogDirsRequest), v, ReadDescribeLogDirsRequest);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(*back, *req);
    }
    auto r = DecodeWhole(Encode(resp, v, WriteDescribeLogDirsResponse), v, ReadDescribeLogDirsResponse);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(*r, resp);
  }
}

TEST(KafkaDescribeLogDirs, BytesMatchTheProtocolLayout) {
  // The request: a nullable array of topics (null: all), flexible from v2.
  EXPECT_EQ(Encode(DescribeLogDirsRequest{}, 1, WriteDescribeLogDirsRequest), HandBytes().Array(-1).str());
  EXPECT_EQ(Encode(DescribeLogDirsRequest{}, 2, WriteDescribeLogDirsRequest), HandBytes().CArray(-1).NoTags().str());
  DescribeLogDirsResponse resp;
  resp.results.push_back({0, "/d", {{"t", {{1, 9, 0, false}}}}, 100, 50, false});
  // v4: throttle, error_code (v3+), results (error, dir, topics (name, partitions (index,
  // size, lag, future)), total and usable bytes (v4+)).
  EXPECT_EQ(Encode(resp, 4, WriteDescribeLogDirsResponse),
            HandBytes().I32(0).I16(0).CArray(1).I16(0).CStr("/d").CArray(1).CStr("t").CArray(1).I32(1).I64(9).I64(0)
                .Bool(false).NoTags().NoTags().I64(100).I64(50).NoTags().NoTags().str());
  // v1: none of those, not flexible.
  EXPECT_EQ(Encode(resp, 1, WriteDescribeLogDirsResponse),
            HandBytes().I32(0).Array(1).I16(0).Str("/d").Array(1).Str("t").Array(1).I32(1).I64(9).I64(0).Bool(false).str());
}

// ---- AlterReplicaLogDirs ----

TEST(KafkaAlterReplicaLogDirs, TheApiTableKnowsIt) {
  int16_t key = static_cast<int16_t>(ApiKey::kAlterReplicaLogDirs);
  EXPECT_EQ(key, 34);
  EXPECT_EQ(ApiName(key), "AlterReplicaLogDirs");
  EXPECT_EQ(FirstFlexibleVersion(key), std::optional<int16_t>(2));
  EXPECT_EQ(RequestHeaderVersion(key, 1), 1);
  EXPECT_EQ(ResponseHeaderVersion(key, 2), 1);
  EXPECT_EQ(ThrottleTimeOffset(key, 0), std::optional<size_t>(0));
}

TEST(KafkaAlterReplicaLogDirs, RequestsAndResponsesRoundTripAtEveryVersion) {
  AlterReplicaLogDirsRequest req;
  req.dirs.push_back({"/data/a", {{"orders", {0, 2}}, {"audit", {1}}}});
  req.dirs.push_back({"/data/b", {{"orders", {1}}, {"empty", {}}}});
  req.dirs.push_back({"/data/c", {}});
  AlterReplicaLogDirsResponse resp;
  resp.throttle_time_ms = 5;
  resp.results.push_back({"orders", {{0, 0}, {1, 57}, {2, 56}}});
  resp.results.push_back({"audit", {{1, 9}}});
  resp.results.push_back({"empty", {}});
  // v0 and v1 the same layout, v2 flexible.
  for (int16_t v = 0; v <= 2; ++v) {
    testing::ExpectRoundTrip(WriteAlterReplicaLogDirsRequest, ReadAlterReplicaLogDirsRequest, req, req, v);
    testing::ExpectRoundTrip(WriteAlterReplicaLogDirsResponse, ReadAlterReplicaLogDirsResponse, resp, resp, v);
  }
}

TEST(KafkaAlterReplicaLogDirs, BytesMatchTheProtocolLayout) {
  AlterReplicaLogDirsRequest req;
  req.dirs.push_back({"/d", {{"t", {1, 2}}}});
  // dirs (path, topics (name, partitions)).
  testing::ExpectLayout(WriteAlterReplicaLogDirsRequest, ReadAlterReplicaLogDirsRequest, req,
                        HandBytes().Array(1).Str("/d").Array(1).Str("t").Array(2).I32(1).I32(2).str(), 1);
  testing::ExpectLayout(
      WriteAlterReplicaLogDirsRequest, ReadAlterReplicaLogDirsRequest, req,
      HandBytes().CArray(1).CStr("/d").CArray(1).CStr("t").CArray(2).I32(1).I32(2).NoTags().NoTags().NoTags().str(), 2);
  AlterReplicaLogDirsResponse resp;
  resp.throttle_time_ms = 7;
  resp.results.push_back({"t", {{1, 57}}});
  // throttle, results (topic name, partitions (index, error code)).
  testing::ExpectLayout(WriteAlterReplicaLogDirsResponse, ReadAlterReplicaLogDirsResponse, resp,
                        HandBytes().I32(7).Array(1).Str("t").Array(1).I32(1).I16(57).str(), 0);
  testing::ExpectLayout(
      WriteAlterReplicaLogDirsResponse, ReadAlterReplicaLogDirsResponse, resp,
      HandBytes().I32(7).CArray(1).CStr("t").CArray(1).I32(1).I16(57).NoTags().NoTags().NoTags().str(), 2);
}

TEST(KafkaAlterReplicaLogDirs, MalformedRequestsAreRefused) {
  auto refused = [](const std::string& bytes, int16_t version) {
    Reader r(bytes);
    return !ReadAlterReplicaLogDirsRequest(r, version).ok();
  };
  // More dirs, or partitions, than bytes remain: refused before anything is reserved.
  EXPECT_TRUE(refused(HandBytes().Array(1 << 30).Str("/d").str(), 1));
  EXPECT_TRUE(refused(HandBytes().Array(1).Str("/d").Array(1).Str("t").Array(100).I32(1).str(), 1));
  // A count below -1.
  EXPECT_TRUE(refused(HandBytes().Array(-2).str(), 1));
  // A null path or topic name.
  EXPECT_TRUE(refused(HandBytes().Array(1).NullStr().Array(0).str(), 1));
  EXPECT_TRUE(
      refused(HandBytes().CArray(1).CStr("/d").CArray(1).CNull().CArray(0).NoTags().NoTags().NoTags().str(), 2));
  // A tagged field claiming more bytes than follow.
  EXPECT_TRUE(refused(HandBytes().CArray(1).CStr("/d").CArray(0).I8(1).I8(0).I8(9).Raw("x").NoTags().str(), 2));
  // An unknown tagged field of a newer client is skipped.
  EXPECT_FALSE(refused(HandBytes().CArray(1).CStr("/d").CArray(0).I8(1).I8(5).I8(1).Raw("x").NoTags().str(), 2));
}

TEST(KafkaCreatePartitions, RequestsRoundTripAtEveryBoundary) {
  CreatePartitionsRequest req;
  req.topics.push_back({"placed", 8, std::nullopt});
  req.topics.push_back({"manual", 3, std::vector<Ids>{{1, 2}, {2, 3}}});
  req.topics.push_back({"empty", 2, std::vector<Ids>{}});
  req.timeout_ms = 2500;
  req.validate_only = true;
  // v0 first, v1 last classic, v2 first flexible, v3 last.
  for (int16_t version : {0, 1, 2, 3}) {
    SCOPED_TRACE(version);
    auto back = DecodeWhole(Encode(req, version, WriteCreatePartitionsRequest), version, ReadCreatePartitionsRequest);
    ASSERT_TRUE(back.ok());
    ASSERT_EQ(back->topics.size(), 3u);
    EXPECT_EQ(back->topics[0].count, 8);
    EXPECT_EQ(back->topics[0].assignments, std::nullopt);  // null: the controller places
    ASSERT_TRUE(back->topics[1].assignments.has_value());
    EXPECT_EQ(*back->topics[1].assignments, (std::vector<Ids>{{1, 2}, {2, 3}}));
    ASSERT_TRUE(back->topics[2].assignments.has_value());  // empty is not null
    EXPECT_TRUE(back->topics[2].assignments->empty());
    EXPECT_EQ(back->timeout_ms, 2500);
    EXPECT_TRUE(back->validate_only);
  }
}

TEST(KafkaCreatePartitions, ResponsesRoundTripAtEveryBoundary) {
  CreatePartitionsResponse resp;
  resp.throttle_time_ms = 1;
  resp.results.push_back({"placed", 0, std::nullopt});
  resp.results.push_back({"small", 37, std::string("the new count must be larger")});
  for (int16_t version : {0, 1, 2, 3}) {
    SCOPED_TRACE(version);
    auto back =
        DecodeWhole(Encode(resp, version, WriteCreatePartitionsResponse), version, ReadCreatePartitionsResponse);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->throttle_time_ms, 1);
    ASSERT_EQ(back->results.size(), 2u);
    EXPECT_EQ(back->results[0].error_message, std::nullopt);
    EXPECT_EQ(back->results[1].error_code, 37);
    EXPECT_EQ(back->results[1].error_message, std::optional<std::string>("the new count must be larger"));
  }
}

TEST(KafkaCreatePartitions, BytesMatchTheProtocolLayout) {
  // v0 request: name, count, assignments (nullable array of broker-id arrays), timeout,
  // validate_only.
  std::string v0 = HandBytes()
                       .Array(2)
                       .Str("a").I32(4).Array(1).Array(2).I32(1).I32(2)
                       .Str("b").I32(2).Array(-1)
                       .I32(100)
                       .Bool(false)
                       .str();
  auto a = DecodeWhole(v0, 0, ReadCreatePartitionsRequest);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->topics.size(), 2u);
  EXPECT_EQ(a->topics[0].assignments, std::optional<std::vector<Ids>>(std::vector<Ids>{{1, 2}}));
  EXPECT_EQ(a->topics[1].assignments, std::nullopt);
  EXPECT_EQ(Encode(*a, 0, WriteCreatePartitionsRequest), v0);
  // v2 request: compact, a tagged section after each assignment and topic.
  std::string v2 = HandBytes()
                       .CArray(2)
                       .CStr("a").I32(4).CArray(1).CArray(2).I32(1).I32(2).NoTags().NoTags()
                       .CStr("b").I32(2).CNull().NoTags()
                       .I32(100)
                       .Bool(true)
                       .NoTags()
                       .str();
  auto b = DecodeWhole(v2, 2, ReadCreatePartitionsRequest);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->topics.at(1).assignments, std::nullopt);
  EXPECT_TRUE(b->validate_only);
  EXPECT_EQ(Encode(*b, 2, WriteCreatePartitionsRequest), v2);
  // Responses: throttle, then name, error, nullable message.
  CreatePartitionsResponse resp;
  resp.results.push_back({"a", 37, std::string("no")});
  resp.results.push_back({"b", 0, std::nullopt});
  EXPECT_EQ(Encode(resp, 1, WriteCreatePartitionsResponse),
            HandBytes().I32(0).Array(2).Str("a").I16(37).Str("no").Str("b").I16(0).NullStr().str());
  EXPECT_EQ(Encode(resp, 3, WriteCreatePartitionsResponse),
            HandBytes()
                .I32(0)
                .CArray(2).CStr("a").I16(37).CStr("no").NoTags().CStr("b").I16(0).CNull().NoTags()
                .NoTags()
                .str());
}

}  // namespace
}  // namespace strata::proto::kafka
