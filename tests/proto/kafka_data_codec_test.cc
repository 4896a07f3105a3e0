// The data-path codecs: Produce v3-v9, Fetch v4-v13, ListOffsets v1-v10 and
// OffsetForLeaderEpoch v2-v4. Every version round-trips with the fields it does not carry
// at their defaults; hand-built byte sequences (from the protocol's schemas) pin the
// layout so a reader and writer that agree on a wrong layout cannot pass; every
// truncation is refused; Fetch's record data can be spliced; tagged fields are read by
// tag, unknown ones skipped, and written only when set.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/list_offsets.h"
#include "proto/kafka/offset_for_leader_epoch.h"
#include "proto/kafka/produce.h"
#include "proto/kafka/wire.h"
#include "tests/proto/codec_checks.h"

namespace strata::proto::kafka {
namespace {

using testing::B;
using testing::Encode;
using testing::ExpectLayout;
using testing::ExpectRoundTrip;

const std::string kMinusOne64 = B("\xff\xff\xff\xff\xff\xff\xff\xff");
const std::string kZero64 = B("\x00\x00\x00\x00\x00\x00\x00\x00");
const std::string kTopicId = "0123456789abcdef";

// ---- Produce ----

ProduceRequest SampleProduceRequest() {
  ProduceRequest req;
  req.transactional_id = "tx-1";
  req.acks = -1;
  req.timeout_ms = 30000;
  req.topic_data = {{"orders", {{0, std::string("batch-0")}, {3, std::nullopt}}}, {"audit", {{1, std::string()}}}};
  return req;
}

TEST(KafkaProduce, RequestsRoundTripInEveryVersion) {
  ProduceRequest req = SampleProduceRequest();
  ProduceRequest non_transactional = req;
  non_transactional.transactional_id.reset();
  for (int16_t v = kProduceMinVersion; v <= kProduceMaxVersion; ++v) {
    // transactional_id arrived with v3.
    ExpectRoundTrip(WriteProduceRequest, ReadProduceRequest, req, v >= 3 ? req : non_transactional, v);
    ExpectRoundTrip(WriteProduceRequest, ReadProduceRequest, non_transactional, non_transactional, v);
  }
}

ProduceResponse SampleProduceResponse() {
  ProduceResponse resp;
  ProduceResponse::Partition ok{0, 0, 100, 1700000000000, 10, {}, std::nullopt};
  ProduceResponse::Partition invalid{1, 87, -1, -1, 0, {{2, std::string("bad key")}, {5, std::nullopt}}, std::string("2 bad")};
  resp.responses = {{"orders", {ok, invalid}}};
  resp.throttle_time_ms = 25;
  return resp;
}

// The response as a version carries it: throttle time from v1, log_append_time from
// v2, log_start_offset from v5, record errors and the error message from v8.
ProduceResponse ProduceResponseAt(ProduceResponse resp, int16_t version) {
  if (version < 1) resp.throttle_time_ms = 0;
  for (auto& t : resp.responses) {
    for (auto& p : t.partition_responses) {
      if (version < 2) p.log_append_time_ms = -1;
      if (version < 5) p.log_start_offset = -1;
      if (version < 8) {
        p.record_errors.clear();
        p.error_message.reset();
      }
    }
  }
  return resp;
}

TEST(KafkaProduce, ResponsesRoundTripInEveryVersion) {
  ProduceResponse resp = SampleProduceResponse();
  for (int16_t v = kProduceMinVersion; v <= kProduceMaxVersion; ++v) {
    ExpectRoundTrip(WriteProduceResponse, ReadProduceResponse, resp, ProduceResponseAt(resp, v), v);
  }
}

TEST(KafkaProduce, RequestsHaveTheProtocolsLayout) {
  ProduceRequest v3;
  v3.acks = -1;
  v3.timeout_ms = 1000;
  v3.topic_data = {{"t", {{2, std::string("abc")}}}};
  ExpectLayout(WriteProduceRequest, ReadProduceRequest, v3,
               B("\xff\xff"                          // transactional_id: null
                 "\xff\xff"                          // acks -1
                 "\x00\x00\x03\xe8"                  // timeout_ms 1000
                 "\x00\x00\x00\x01"                  // topic_data: 1
                 "\x00\x01" "t"                      // name
                 "\x00\x00\x00\x01"                  // partition_data: 1
                 "\x00\x00\x00\x02"                  // index 2
                 "\x00\x00\x00\x03" "abc"),          // records
               3);
  ProduceRequest v9;
  v9.transactional_id = "tx";
  v9.acks = 1;
  v9.timeout_ms = 1000;
  v9.topic_data = {{"t", {{2, std::nullopt}}}};
  ExpectLayout(WriteProduceRequest, ReadProduceRequest, v9,
               B("\x03" "tx"            // transactional_id, compact
                 "\x00\x01"             // acks 1
                 "\x00\x00\x03\xe8"     // timeout_ms
                 "\x02"                 // topic_data: 1 (compact: n + 1)
                 "\x02" "t"             // name
                 "\x02"                 // partition_data: 1
                 "\x00\x00\x00\x02"     // index 2
                 "\x00"                 // records: null
                 "\x00"                 // partition tagged fields
                 "\x00"                 // topic tagged fields
                 "\x00"),               // request tagged fields
               9);
}

TEST(KafkaProduce, ResponsesHaveTheProtocolsLayout) {
  ProduceResponse resp;
  resp.responses = {{"t", {{2, 0, 5, -1, 0, {{3, std::string("bad")}}, std::nullopt}}}};
  resp.throttle_time_ms = 7;
  ExpectLayout(WriteProduceResponse, ReadProduceResponse, resp,
               B("\x00\x00\x00\x01"                    // responses: 1
                 "\x00\x01" "t"                        // name
                 "\x00\x00\x00\x01"                    // partition_responses: 1
                 "\x00\x00\x00\x02"                    // index
                 "\x00\x00"                            // error_code
                 "\x00\x00\x00\x00\x00\x00\x00\x05") +  // base_offset 5
                   kMinusOne64 +                       // log_append_time_ms -1
                   kZero64 +                           // log_start_offset 0
                   B("\x00\x00\x00\x01"                // record_errors: 1
                     "\x00\x00\x00\x03"                // batch_index 3
                     "\x00\x03" "bad"                  // batch_index_error_message
                     "\xff\xff"                        // error_message: null
                     "\x00\x00\x00\x07"),              // throttle_time_ms, last
               8);
  ExpectLayout(WriteProduceResponse, ReadProduceResponse, resp,
               B("\x02"
                 "\x02" "t"
                 "\x02"
                 "\x00\x00\x00\x02"
                 "\x00\x00"
                 "\x00\x00\x00\x00\x00\x00\x00\x05") +
                   kMinusOne64 + kZero64 +
                   B("\x02"                  // record_errors: 1
                     "\x00\x00\x00\x03"
                     "\x04" "bad"
                     "\x00"                  // record error tagged fields
                     "\x00"                  // error_message: null
                     "\x00"                  // partition tagged fields
                     "\x00"                  // topic tagged fields
                     "\x00\x00\x00\x07"      // throttle_time_ms
                     "\x00"),                // response tagged fields
               9);
  // v3/v4: no log_start_offset, no record errors.
  ProduceResponse v3;
  v3.responses = {{"t", {{2, 6, -1, -1, -1, {}, std::nullopt}}}};
  ExpectLayout(WriteProduceResponse, ReadProduceResponse, v3,
               B("\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01" "\x00\x00\x00\x02" "\x00\x06") + kMinusOne64 +
                   kMinusOne64 + B("\x00\x00\x00\x00"),
               4);
}

TEST(KafkaProduce, RecordsClaimingMoreBytesThanArePresentAreRefused) {
  std::string classic = B("\xff\xff" "\xff\xff" "\x00\x00\x03\xe8" "\x00\x00\x00\x01" "\x00\x01" "t"
                          "\x00\x00\x00\x01" "\x00\x00\x00\x02"
                          "\x7f\xff\xff\xff" "abc");  // 2^31-1 bytes claimed, 3 present
  Reader r(classic);
  auto req = ReadProduceRequest(r, 3);
  ASSERT_FALSE(req.ok());
  EXPECT_NE(req.status().message().find("'records'"), absl::string_view::npos) << req.status();
  std::string compact = B("\x00" "\xff\xff" "\x00\x00\x03\xe8" "\x02" "\x02" "t" "\x02" "\x00\x00\x00\x02"
                          "\xff\xff\xff\xff\x0f" "abc");  // a compact length of 2^32-1
  Reader c(compact);
  EXPECT_FALSE(ReadProduceRequest(c, 9).ok());
}

// ---- Fetch ----

FetchRequest SampleFetchRequest() {
  FetchRequest req;
  req.cluster_id = "cluster-a";
  req.replica_id = 2;
  req.max_wait_ms = 500;
  req.min_bytes = 1;
  req.max_bytes = 52428800;
  req.isolation_level = 1;
  req.session_id = 77;
  req.session_epoch = 3;
  FetchRequest::Topic orders{"orders", kTopicId, {{0, 5, 1000, 4, 10, 1048576}, {1, 5, 0, -1, 0, 65536}}};
  req.topics = {orders};
  req.forgotten_topics_data = {{"old", std::string(15, '\0') + "\x01", {4, 5}}};
  req.rack_id = "rack-1";
  return req;
}

// The request as a version carries it.
FetchRequest FetchRequestAt(FetchRequest req, int16_t version) {
  if (version < 12) req.cluster_id.reset();
  if (version < 7) {
    req.session_id = 0;
    req.session_epoch = -1;
    req.forgotten_topics_data.clear();
  }
  if (version < 11) req.rack_id.clear();
  auto names = [version](std::string& topic, std::string& topic_id) {
    if (version >= 13) {
      topic.clear();
    } else {
      topic_id = std::string(16, '\0');
    }
  };
  for (auto& t : req.topics) {
    names(t.topic, t.topic_id);
    for (auto& p : t.partitions) {
      if (version < 9) p.current_leader_epoch = -1;
      if (version < 12) p.last_fetched_epoch = -1;
      if (version < 5) p.log_start_offset = -1;
    }
  }
  for (auto& t : req.forgotten_topics_data) names(t.topic, t.topic_id);
  return req;
}

TEST(KafkaFetch, RequestsRoundTripInEveryVersion) {
  FetchRequest req = SampleFetchRequest();
  FetchRequest without_cluster_id = req;
  without_cluster_id.cluster_id.reset();
  for (int16_t v = kFetchMinVersion; v <= kFetchMaxVersion; ++v) {
    ExpectRoundTrip(WriteFetchRequest, ReadFetchRequest, req, FetchRequestAt(req, v), v);
    ExpectRoundTrip(WriteFetchRequest, ReadFetchRequest, without_cluster_id, FetchRequestAt(without_cluster_id, v), v);
  }
}

FetchResponse SampleFetchResponse() {
  FetchResponse resp;
  resp.throttle_time_ms = 3;
  resp.error_code = 0;
  resp.session_id = 77;
  FetchResponse::Partition data;
  data.partition_index = 0;
  data.high_watermark = 120;
  data.last_stable_offset = 110;
  data.log_start_offset = 5;
  data.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{9, 100}, {11, 104}};
  data.preferred_read_replica = 4;
  data.records = std::string("record-batches");
  FetchResponse::Partition diverged;
  diverged.partition_index = 1;
  diverged.high_watermark = 50;
  diverged.last_stable_offset = 50;
  diverged.log_start_offset = 0;
  diverged.diverging_epoch = FetchResponse::EpochEndOffset{6, 42};
  diverged.current_leader = FetchResponse::LeaderIdAndEpoch{3, 8};
  diverged.snapshot_id = FetchResponse::SnapshotId{40, 5};
  FetchResponse::Partition not_leader;
  not_leader.partition_index = 2;
  not_leader.error_code = 6;
  not_leader.current_leader = FetchResponse::LeaderIdAndEpoch{1, 9};
  resp.responses = {{"orders", kTopicId, {data, diverged, not_leader}}};
  return resp;
}

FetchResponse FetchResponseAt(FetchResponse resp, int16_t version) {
  if (version < 7) {
    resp.error_code = 0;
    resp.session_id = 0;
  }
  for (auto& t : resp.responses) {
    if (version >= 13) {
      t.topic.clear();
    } else {
      t.topic_id = std::string(16, '\0');
    }
    for (auto& p : t.partitions) {
      if (version < 5) p.log_start_offset = -1;
      if (version < 11) p.preferred_read_replica = -1;
      if (version < 12) {
        p.diverging_epoch.reset();
        p.current_leader.reset();
        p.snapshot_id.reset();
      }
    }
  }
  return resp;
}

TEST(KafkaFetch, ResponsesRoundTripInEveryVersion) {
  FetchResponse resp = SampleFetchResponse();
  for (int16_t v = kFetchMinVersion; v <= kFetchMaxVersion; ++v) {
    ExpectRoundTrip(WriteFetchResponse, ReadFetchResponse, resp, FetchResponseAt(resp, v), v);
  }
}

TEST(KafkaFetch, RequestsHaveTheProtocolsLayout) {
  FetchRequest v4;
  v4.replica_id = -1;
  v4.max_wait_ms = 500;
  v4.min_bytes = 1;
  v4.isolation_level = 1;
  v4.topics = {{"t", std::string(16, '\0'), {{0, -1, 42, -1, -1, 1048576}}}};
  ExpectLayout(WriteFetchRequest, ReadFetchRequest, v4,
               B("\xff\xff\xff\xff"                        // replica_id -1
                 "\x00\x00\x01\xf4"                        // max_wait_ms 500
                 "\x00\x00\x00\x01"                        // min_bytes
                 "\x7f\xff\xff\xff"                        // max_bytes
                 "\x01"                                    // isolation_level
                 "\x00\x00\x00\x01"                        // topics: 1
                 "\x00\x01" "t"                            // topic
                 "\x00\x00\x00\x01"                        // partitions: 1
                 "\x00\x00\x00\x00"                        // partition
                 "\x00\x00\x00\x00\x00\x00\x00\x2a"        // fetch_offset 42
                 "\x00\x10\x00\x00"),                      // partition_max_bytes
               4);
  FetchRequest v12 = v4;
  v12.replica_id = 3;
  v12.isolation_level = 0;
  v12.topics[0].partitions[0] = {0, 5, 42, 4, 0, 1048576};
  v12.forgotten_topics_data = {{"u", std::string(16, '\0'), {1, 2}}};
  v12.rack_id = "r1";
  v12.cluster_id = "c";
  ExpectLayout(WriteFetchRequest, ReadFetchRequest, v12,
               B("\x00\x00\x00\x03"                        // replica_id 3
                 "\x00\x00\x01\xf4" "\x00\x00\x00\x01" "\x7f\xff\xff\xff"
                 "\x00"                                    // isolation_level
                 "\x00\x00\x00\x00"                        // session_id
                 "\xff\xff\xff\xff"                        // session_epoch -1
                 "\x02"                                    // topics: 1
                 "\x02" "t"
                 "\x02"                                    // partitions: 1
                 "\x00\x00\x00\x00"                        // partition
                 "\x00\x00\x00\x05"                        // current_leader_epoch
                 "\x00\x00\x00\x00\x00\x00\x00\x2a"        // fetch_offset
                 "\x00\x00\x00\x04"                        // last_fetched_epoch
                 "\x00\x00\x00\x00\x00\x00\x00\x00"        // log_start_offset
                 "\x00\x10\x00\x00"                        // partition_max_bytes
                 "\x00"                                    // partition tagged fields
                 "\x00"                                    // topic tagged fields
                 "\x02"                                    // forgotten_topics_data: 1
                 "\x02" "u"
                 "\x03" "\x00\x00\x00\x01" "\x00\x00\x00\x02"
                 "\x00"
                 "\x03" "r1"                               // rack_id
                 "\x01"                                    // one tagged field:
                 "\x00" "\x02" "\x02" "c"),                // cluster_id (tag 0, 2 bytes)
               12);
  FetchRequest v13 = v12;
  v13.cluster_id.reset();
  v13.topics[0].topic.clear();
  v13.topics[0].topic_id = kTopicId;
  v13.forgotten_topics_data.clear();
  v13.rack_id.clear();
  ExpectLayout(WriteFetchRequest, ReadFetchRequest, v13,
               B("\x00\x00\x00\x03" "\x00\x00\x01\xf4" "\x00\x00\x00\x01" "\x7f\xff\xff\xff" "\x00"
                 "\x00\x00\x00\x00" "\xff\xff\xff\xff"
                 "\x02"
                 "0123456789abcdef"                        // topic_id instead of the name
                 "\x02" "\x00\x00\x00\x00" "\x00\x00\x00\x05" "\x00\x00\x00\x00\x00\x00\x00\x2a"
                 "\x00\x00\x00\x04" "\x00\x00\x00\x00\x00\x00\x00\x00" "\x00\x10\x00\x00" "\x00"
                 "\x00"
                 "\x01"                                    // forgotten_topics_data: 0
                 "\x01"                                    // rack_id ""
                 "\x00"),                                  // no tagged fields
               13);
}

TEST(KafkaFetch, ResponsesHaveTheProtocolsLayout) {
  FetchResponse v11;
  v11.session_id = 9;
  FetchResponse::Partition p;
  p.high_watermark = 10;
  p.last_stable_offset = 10;
  p.log_start_offset = 0;
  p.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{{7, 3}};
  p.records = "xy";
  v11.responses = {{"t", std::string(16, '\0'), {p}}};
  ExpectLayout(WriteFetchResponse, ReadFetchResponse, v11,
               B("\x00\x00\x00\x00"                        // throttle_time_ms
                 "\x00\x00"                                // error_code
                 "\x00\x00\x00\x09"                        // session_id
                 "\x00\x00\x00\x01"                        // responses: 1
                 "\x00\x01" "t"
                 "\x00\x00\x00\x01"                        // partitions: 1
                 "\x00\x00\x00\x00"                        // partition_index
                 "\x00\x00"                                // error_code
                 "\x00\x00\x00\x00\x00\x00\x00\x0a"        // high_watermark
                 "\x00\x00\x00\x00\x00\x00\x00\x0a"        // last_stable_offset
                 "\x00\x00\x00\x00\x00\x00\x00\x00"        // log_start_offset
                 "\x00\x00\x00\x01"                        // aborted_transactions: 1
                 "\x00\x00\x00\x00\x00\x00\x00\x07"        // producer_id
                 "\x00\x00\x00\x00\x00\x00\x00\x03"        // first_offset
                 "\xff\xff\xff\xff"                        // preferred_read_replica
                 "\x00\x00\x00\x02" "xy"),                 // records
               11);
  FetchResponse v12;
  FetchResponse::Partition diverged;
  diverged.partition_index = 1;
  diverged.high_watermark = 10;
  diverged.last_stable_offset = 10;
  diverged.log_start_offset = 0;
  diverged.diverging_epoch = FetchResponse::EpochEndOffset{3, 8};
  v12.responses = {{"t", std::string(16, '\0'), {diverged}}};
  ExpectLayout(WriteFetchResponse, ReadFetchResponse, v12,
               B("\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x00"
                 "\x02" "\x02" "t" "\x02"
                 "\x00\x00\x00\x01" "\x00\x00"
                 "\x00\x00\x00\x00\x00\x00\x00\x0a" "\x00\x00\x00\x00\x00\x00\x00\x0a"
                 "\x00\x00\x00\x00\x00\x00\x00\x00"
                 "\x00"                                    // aborted_transactions: null
                 "\xff\xff\xff\xff"                        // preferred_read_replica
                 "\x00"                                    // records: null
                 "\x01"                                    // one tagged field:
                 "\x00" "\x0d"                             // diverging_epoch (tag 0), 13 bytes
                 "\x00\x00\x00\x03"                        //   epoch
                 "\x00\x00\x00\x00\x00\x00\x00\x08"        //   end_offset
                 "\x00"                                    //   its tagged fields
                 "\x00"                                    // topic tagged fields
                 "\x00"),                                  // response tagged fields
               12);
}

TEST(KafkaFetch, TaggedFieldsAreWrittenOnlyWhenSet) {
  FetchResponse resp;
  resp.responses = {{"t", std::string(16, '\0'), {FetchResponse::Partition{}}}};
  std::string plain = Encode(resp, 12, WriteFetchResponse);
  // partition tagged fields, topic tagged fields, response tagged fields: all empty
  EXPECT_EQ(absl::CHexEscape(plain.substr(plain.size() - 4)), absl::CHexEscape(B("\x00" "\x00" "\x00" "\x00")));
  resp.responses[0].partitions[0].current_leader = FetchResponse::LeaderIdAndEpoch{5, 2};
  std::string with_leader = Encode(resp, 12, WriteFetchResponse);
  EXPECT_EQ(absl::CHexEscape(with_leader.substr(plain.size() - 3)),
            absl::CHexEscape(B("\x01" "\x01" "\x09" "\x00\x00\x00\x05" "\x00\x00\x00\x02" "\x00" "\x00" "\x00")));
  FetchRequest req;
  std::string no_cluster = Encode(req, 12, WriteFetchRequest);
  EXPECT_EQ(no_cluster.back(), '\0');
}

TEST(KafkaFetch, DivergingEpochRoundTripsAlone) {
  FetchResponse resp;
  FetchResponse::Partition p;
  p.diverging_epoch = FetchResponse::EpochEndOffset{12, 3456789012345};
  resp.responses = {{"t", std::string(16, '\0'), {p}}};
  for (int16_t v : {int16_t{12}, int16_t{13}}) {
    std::string bytes = Encode(resp, v, WriteFetchResponse);
    Reader r(bytes);
    auto back = ReadFetchResponse(r, v);
    ASSERT_TRUE(back.ok()) << back.status();
    const auto& bp = back->responses.at(0).partitions.at(0);
    ASSERT_TRUE(bp.diverging_epoch.has_value());
    EXPECT_EQ(bp.diverging_epoch->epoch, 12);
    EXPECT_EQ(bp.diverging_epoch->end_offset, 3456789012345);
    EXPECT_FALSE(bp.current_leader.has_value());
    EXPECT_FALSE(bp.snapshot_id.has_value());
  }
  // Before v12 there are no tagged fields: the divergence is not sent.
  std::string v11 = Encode(resp, 11, WriteFetchResponse);
  Reader r(v11);
  auto back = ReadFetchResponse(r, 11);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->responses.at(0).partitions.at(0).diverging_epoch.has_value());
}

// A v12 response with one partition whose tagged-field section is `tags`.
std::string FetchV12ResponseWithPartitionTags(const std::string& tags, const std::string& response_tags) {
  return B("\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x00" "\x02" "\x02" "t" "\x02"
           "\x00\x00\x00\x01" "\x00\x00") +
         kZero64 + kZero64 + kZero64 + B("\x00" "\xff\xff\xff\xff" "\x00") + tags + B("\x00") + response_tags;
}

TEST(KafkaFetch, UnknownTaggedFieldsAreSkipped) {
  std::string bytes = FetchV12ResponseWithPartitionTags(
      B("\x04"                                                                        // four tagged fields:
        "\x00" "\x0d" "\x00\x00\x00\x03" "\x00\x00\x00\x00\x00\x00\x00\x08" "\x00"   // diverging_epoch
        "\x01" "\x0b" "\x00\x00\x00\x02" "\x00\x00\x00\x07" "\x01" "\x05" "\x00"     // current_leader, with
                                                                                      // an unknown tag inside
        "\x07" "\x03" "zzz"                                                           // unknown tag 7
        "\x80\x01" "\x01" "q"),                                                       // unknown tag 128
      B("\x01" "\x04" "\x02" "hi"));                                                  // unknown response tag
  Reader r(bytes);
  auto back = ReadFetchResponse(r, 12);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(r.remaining(), 0u);
  const auto& p = back->responses.at(0).partitions.at(0);
  ASSERT_TRUE(p.diverging_epoch.has_value());
  EXPECT_EQ(*p.diverging_epoch, (FetchResponse::EpochEndOffset{3, 8}));
  ASSERT_TRUE(p.current_leader.has_value());
  EXPECT_EQ(*p.current_leader, (FetchResponse::LeaderIdAndEpoch{2, 7}));
  EXPECT_FALSE(p.snapshot_id.has_value());

  // The request's cluster_id among unknown tags.
  FetchRequest req;
  std::string request = Encode(req, 12, WriteFetchRequest);
  request.pop_back();  // the empty tagged-field section
  request += B("\x03" "\x00" "\x03" "\x03" "c1" "\x01" "\x00" "\x05" "\x01" "x");
  Reader rr(request);
  auto back_req = ReadFetchRequest(rr, 12);
  ASSERT_TRUE(back_req.ok()) << back_req.status();
  EXPECT_EQ(back_req->cluster_id, std::optional<std::string>("c1"));
}

TEST(KafkaFetch, ATaggedFieldWhoseSizeDisagreesWithItsContentIsRefused) {
  // diverging_epoch needs 13 bytes but its size says 5.
  std::string too_short = FetchV12ResponseWithPartitionTags(
      B("\x01" "\x00" "\x05" "\x00\x00\x00\x03" "\x00") + std::string(8, '\0'), B("\x00"));
  Reader a(too_short);
  auto short_read = ReadFetchResponse(a, 12);
  ASSERT_FALSE(short_read.ok());
  EXPECT_NE(short_read.status().message().find("diverging_epoch.end_offset"), absl::string_view::npos)
      << short_read.status();
  // Its size says 14: a byte would be left over.
  std::string too_long = FetchV12ResponseWithPartitionTags(
      B("\x01" "\x00" "\x0e" "\x00\x00\x00\x03" "\x00\x00\x00\x00\x00\x00\x00\x08" "\x00" "\x00"), B("\x00"));
  Reader b(too_long);
  EXPECT_FALSE(ReadFetchResponse(b, 12).ok());
  // A tag whose size runs past the input.
  std::string past_end = FetchV12ResponseWithPartitionTags(B("\x01" "\x09" "\x7f" "abc"), "");
  Reader c(past_end);
  EXPECT_FALSE(ReadFetchResponse(c, 12).ok());
}

TEST(KafkaFetch, SplicedRecordsLeaveTheirBytesToTheCaller) {
  const std::string big(200, 'r');  // 200: a compact length (201) of two varint bytes
  const std::string small = "xyz";  // sent in two parts, "x" and "yz"
  FetchResponse resp;
  FetchResponse::Partition spliced_big;
  spliced_big.partition_index = 0;
  spliced_big.records_splice = 7;
  spliced_big.records_splice_sizes = {big.size()};
  spliced_big.records = std::string("ignored: the splice wins");
  FetchResponse::Partition spliced_small;
  spliced_small.partition_index = 1;
  spliced_small.records_splice = 8;
  spliced_small.records_splice_sizes = {1, 2};
  FetchResponse::Partition inline_records;
  inline_records.partition_index = 2;
  inline_records.records = std::string("inline");
  resp.responses = {{"t", std::string(16, '\0'), {spliced_big, spliced_small, inline_records}}};

  struct Case {
    int16_t version;
    size_t first_position;  // where the first splice goes, counted by hand from the layout
    std::string big_prefix;
    std::string small_prefix;
  };
  // v11: throttle 4, error 2, session 4, responses 4, topic 3, partitions 4, then the
  // partition: index 4, error 2, three offsets 24, aborted (null) 4, preferred replica
  // 4, length 4 = 63.
  // v12: 4 + 2 + 4 + 1 + 2 + 1, then 4 + 2 + 24 + 1 + 4 + 2 = 51.
  for (const Case& c : {Case{11, 63, B("\x00\x00\x00\xc8"), B("\x00\x00\x00\x03")},
                        Case{12, 51, B("\xc9\x01"), B("\x04")}}) {
    SCOPED_TRACE(::testing::Message() << "version " << c.version);
    std::string out;
    std::vector<Splice> splices;
    Writer w(&out, &splices);
    WriteFetchResponse(resp, c.version, w);
    ASSERT_EQ(splices.size(), 3u);
    EXPECT_EQ(splices[0].id, 7);
    EXPECT_EQ(splices[0].size, big.size());
    EXPECT_EQ(splices[0].position, c.first_position);
    EXPECT_EQ(absl::CHexEscape(out.substr(splices[0].position - c.big_prefix.size(), c.big_prefix.size())),
              absl::CHexEscape(c.big_prefix));
    EXPECT_EQ(splices[1].id, 8);
    EXPECT_EQ(splices[1].size, 1u);
    EXPECT_EQ(splices[2].id, 9);
    EXPECT_EQ(splices[2].size, 2u);
    EXPECT_EQ(splices[2].position, splices[1].position) << "the parts go one after another";
    EXPECT_EQ(absl::CHexEscape(out.substr(splices[1].position - c.small_prefix.size(), c.small_prefix.size())),
              absl::CHexEscape(c.small_prefix))
        << "the length of both parts";
    EXPECT_EQ(out.find("ignored"), std::string::npos);
    // What the client receives: the caller's bytes sent at their positions.
    std::string sent = out;
    sent.insert(splices[2].position, "yz");
    sent.insert(splices[1].position, "x");
    sent.insert(splices[0].position, big);
    Reader r(sent);
    auto back = ReadFetchResponse(r, c.version);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(r.remaining(), 0u);
    const auto& parts = back->responses.at(0).partitions;
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].records, std::optional<std::string>(big));
    EXPECT_EQ(parts[1].records, std::optional<std::string>(small));
    EXPECT_EQ(parts[2].records, std::optional<std::string>("inline"));
    EXPECT_EQ(parts[0].records_splice, -1);  // reading always fills records
  }
}

// ---- ListOffsets ----

ListOffsetsRequest SampleListOffsetsRequest() {
  ListOffsetsRequest req;
  req.replica_id = -1;
  req.isolation_level = 1;
  req.topics = {{"orders", {{0, 4, kListOffsetsLatestTimestamp}, {1, 4, kListOffsetsEarliestTimestamp}}},
                {"audit", {{2, -1, 1700000000000}}}};
  req.timeout_ms = 30000;
  return req;
}

TEST(KafkaListOffsets, RequestsAndResponsesRoundTripInEveryVersion) {
  ListOffsetsRequest req = SampleListOffsetsRequest();
  ListOffsetsResponse resp;
  resp.throttle_time_ms = 9;
  resp.topics = {{"orders", {{0, 0, -1, 120, 4}, {1, 3, -1, -1, -1}}}};
  for (int16_t v = kListOffsetsMinVersion; v <= kListOffsetsMaxVersion; ++v) {
    ListOffsetsRequest req_at = req;
    if (v < 2) req_at.isolation_level = 0;
    if (v < 10) req_at.timeout_ms = 0;
    for (auto& t : req_at.topics) {
      for (auto& p : t.partitions) {
        if (v < 4) p.current_leader_epoch = -1;
      }
    }
    ExpectRoundTrip(WriteListOffsetsRequest, ReadListOffsetsRequest, req, req_at, v);
    ListOffsetsResponse resp_at = resp;
    if (v < 2) resp_at.throttle_time_ms = 0;
    if (v < 4) resp_at.topics[0].partitions[0].leader_epoch = -1;
    ExpectRoundTrip(WriteListOffsetsResponse, ReadListOffsetsResponse, resp, resp_at, v);
  }
}

TEST(KafkaListOffsets, MessagesHaveTheProtocolsLayout) {
  ListOffsetsRequest v1;
  v1.topics = {{"t", {{0, -1, kListOffsetsEarliestTimestamp}}}};
  ExpectLayout(WriteListOffsetsRequest, ReadListOffsetsRequest, v1,
               B("\xff\xff\xff\xff"                        // replica_id
                 "\x00\x00\x00\x01" "\x00\x01" "t"
                 "\x00\x00\x00\x01"
                 "\x00\x00\x00\x00"                        // partition_index
                 "\xff\xff\xff\xff\xff\xff\xff\xfe"),      // timestamp -2 (no max_num_offsets)
               1);
  ListOffsetsRequest v6;
  v6.isolation_level = 1;
  v6.topics = {{"t", {{0, 5, kListOffsetsLatestTimestamp}}}};
  ExpectLayout(WriteListOffsetsRequest, ReadListOffsetsRequest, v6,
               B("\xff\xff\xff\xff"
                 "\x01"                                    // isolation_level
                 "\x02" "\x02" "t" "\x02"
                 "\x00\x00\x00\x00"
                 "\x00\x00\x00\x05") +                     // current_leader_epoch
                   kMinusOne64 + B("\x00" "\x00" "\x00"),
               6);
  ListOffsetsResponse r1;
  r1.topics = {{"t", {{0, 0, -1, 42, -1}}}};
  ExpectLayout(WriteListOffsetsResponse, ReadListOffsetsResponse, r1,
               B("\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
                 "\x00\x00\x00\x00" "\x00\x00") +          // partition_index, error_code
                   kMinusOne64 +                           // timestamp
                   B("\x00\x00\x00\x00\x00\x00\x00\x2a"),  // offset (no old_style_offsets)
               1);
  ListOffsetsResponse r6;
  r6.throttle_time_ms = 2;
  r6.topics = {{"t", {{0, 0, -1, 42, 5}}}};
  ExpectLayout(WriteListOffsetsResponse, ReadListOffsetsResponse, r6,
               B("\x00\x00\x00\x02"                        // throttle_time_ms
                 "\x02" "\x02" "t" "\x02" "\x00\x00\x00\x00" "\x00\x00") +
                   kMinusOne64 + B("\x00\x00\x00\x00\x00\x00\x00\x2a" "\x00\x00\x00\x05" "\x00" "\x00" "\x00"),
               6);
}

// ---- OffsetForLeaderEpoch ----

TEST(KafkaOffsetForLeaderEpoch, RequestsAndResponsesRoundTripInEveryVersion) {
  OffsetForLeaderEpochRequest req;
  req.replica_id = 3;
  req.topics = {{"orders", {{0, 7, 5}, {1, -1, 6}}}, {"audit", {{0, 2, 2}}}};
  OffsetForLeaderEpochResponse resp;
  resp.throttle_time_ms = 1;
  resp.topics = {{"orders", {{0, 0, 5, 1200}, {74, 1, -1, -1}}}};
  for (int16_t v = kOffsetForLeaderEpochMinVersion; v <= kOffsetForLeaderEpochMaxVersion; ++v) {
    OffsetForLeaderEpochRequest req_at = req;
    if (v < 3) req_at.replica_id = -2;
    ExpectRoundTrip(WriteOffsetForLeaderEpochRequest, ReadOffsetForLeaderEpochRequest, req, req_at, v);
    ExpectRoundTrip(WriteOffsetForLeaderEpochResponse, ReadOffsetForLeaderEpochResponse, resp, resp, v);
  }
}

TEST(KafkaOffsetForLeaderEpoch, MessagesHaveTheProtocolsLayout) {
  OffsetForLeaderEpochRequest v2;
  v2.topics = {{"t", {{0, 5, 3}}}};
  ExpectLayout(WriteOffsetForLeaderEpochRequest, ReadOffsetForLeaderEpochRequest, v2,
               B("\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
                 "\x00\x00\x00\x00"                        // partition
                 "\x00\x00\x00\x05"                        // current_leader_epoch
                 "\x00\x00\x00\x03"),                      // leader_epoch
               2);
  OffsetForLeaderEpochRequest v4 = v2;
  v4.replica_id = 1;
  ExpectLayout(WriteOffsetForLeaderEpochRequest, ReadOffsetForLeaderEpochRequest, v4,
               B("\x00\x00\x00\x01"                        // replica_id
                 "\x02" "\x02" "t" "\x02"
                 "\x00\x00\x00\x00" "\x00\x00\x00\x05" "\x00\x00\x00\x03"
                 "\x00" "\x00" "\x00"),
               4);
  OffsetForLeaderEpochResponse r2;
  r2.topics = {{"t", {{0, 0, 3, 100}}}};
  ExpectLayout(WriteOffsetForLeaderEpochResponse, ReadOffsetForLeaderEpochResponse, r2,
               B("\x00\x00\x00\x00"                        // throttle_time_ms
                 "\x00\x00\x00\x01" "\x00\x01" "t" "\x00\x00\x00\x01"
                 "\x00\x00"                                // error_code
                 "\x00\x00\x00\x00"                        // partition
                 "\x00\x00\x00\x03"                        // leader_epoch
                 "\x00\x00\x00\x00\x00\x00\x00\x64"),      // end_offset
               2);
  ExpectLayout(WriteOffsetForLeaderEpochResponse, ReadOffsetForLeaderEpochResponse, r2,
               B("\x00\x00\x00\x00" "\x02" "\x02" "t" "\x02"
                 "\x00\x00" "\x00\x00\x00\x00" "\x00\x00\x00\x03" "\x00\x00\x00\x00\x00\x00\x00\x64"
                 "\x00" "\x00" "\x00"),
               4);
}

}  // namespace
}  // namespace strata::proto::kafka
