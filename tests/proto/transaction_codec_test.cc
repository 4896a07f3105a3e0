// The transaction APIs' codecs: AddPartitionsToTxn v0-v5, AddOffsetsToTxn v0-v4, EndTxn
// v0-v5, WriteTxnMarkers v0-v2, TxnOffsetCommit v0-v5, DescribeProducers v0,
// DescribeTransactions v0 and ListTransactions v0-v2. Requests and responses round-trip
// in every version with the fields a version lacks at their defaults; both shapes of
// AddPartitionsToTxn (one transaction to v3 / a batch from v4); hand-built byte sequences
// pin the layout in both directions (at least AddPartitionsToTxn v3, EndTxn v0 and
// WriteTxnMarkers v1, and each API once); every truncation is refused; the api table
// knows the keys.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "proto/kafka/add_offsets_to_txn.h"
#include "proto/kafka/add_partitions_to_txn.h"
#include "proto/kafka/api.h"
#include "proto/kafka/describe_producers.h"
#include "proto/kafka/describe_transactions.h"
#include "proto/kafka/end_txn.h"
#include "proto/kafka/list_transactions.h"
#include "proto/kafka/txn_offset_commit.h"
#include "proto/kafka/wire.h"
#include "proto/kafka/write_txn_markers.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;

// ---- The api table ----

TEST(KafkaTransactionApis, KeysNamesAndFlexibleVersionsAreKafkas) {
  struct Api {
    ApiKey key;
    int16_t number;
    const char* name;
    int16_t first_flexible;
  };
  const Api apis[] = {
      {ApiKey::kAddPartitionsToTxn, 24, "AddPartitionsToTxn", 3},
      {ApiKey::kAddOffsetsToTxn, 25, "AddOffsetsToTxn", 3},
      {ApiKey::kEndTxn, 26, "EndTxn", 3},
      {ApiKey::kWriteTxnMarkers, 27, "WriteTxnMarkers", 1},
      {ApiKey::kTxnOffsetCommit, 28, "TxnOffsetCommit", 3},
      {ApiKey::kDescribeProducers, 61, "DescribeProducers", 0},
      {ApiKey::kDescribeTransactions, 65, "DescribeTransactions", 0},
      {ApiKey::kListTransactions, 66, "ListTransactions", 0},
  };
  for (const Api& api : apis) {
    SCOPED_TRACE(api.name);
    int16_t key = static_cast<int16_t>(api.key);
    EXPECT_EQ(key, api.number);
    EXPECT_EQ(ApiName(key), api.name);
    EXPECT_EQ(FirstFlexibleVersion(key), std::optional<int16_t>(api.first_flexible));
    if (api.first_flexible > 0) {
      EXPECT_FALSE(IsFlexible(key, api.first_flexible - 1));
      EXPECT_EQ(RequestHeaderVersion(key, api.first_flexible - 1), 1);
      EXPECT_EQ(ResponseHeaderVersion(key, api.first_flexible - 1), 0);
    }
    EXPECT_TRUE(IsFlexible(key, api.first_flexible));
    EXPECT_EQ(RequestHeaderVersion(key, api.first_flexible), 2);
    EXPECT_EQ(ResponseHeaderVersion(key, api.first_flexible), 1);
  }
}

// ---- AddPartitionsToTxn ----

AddPartitionsToTxnRequest SampleAddPartitionsToTxnRequest() {
  AddPartitionsToTxnRequest req;
  AddPartitionsToTxnRequest::Transaction first;
  first.transactional_id = "orders-tx";
  first.producer_id = (int64_t{1} << 40) + 3;
  first.producer_epoch = 7;
  first.verify_only = true;
  first.topics = {{"orders", {0, 3, 5}}, {"audit", {}}};
  AddPartitionsToTxnRequest::Transaction second;
  second.transactional_id = "billing-tx";
  second.producer_id = 42;
  second.producer_epoch = 0;
  second.topics = {{"invoices", {1}}};
  req.transactions = {first, second};
  return req;
}

// To v3 one transaction, without verify_only; from v4 all of them.
AddPartitionsToTxnRequest AddPartitionsToTxnRequestAt(AddPartitionsToTxnRequest req, int16_t version) {
  if (version < 4) {
    req.transactions.resize(1);
    req.transactions[0].verify_only = false;
  }
  return req;
}

TEST(KafkaAddPartitionsToTxn, RequestsRoundTripInEveryVersion) {
  AddPartitionsToTxnRequest req = SampleAddPartitionsToTxnRequest();
  for (int16_t v = 0; v <= 5; ++v) {
    ExpectRoundTrip(WriteAddPartitionsToTxnRequest, ReadAddPartitionsToTxnRequest, req,
                    AddPartitionsToTxnRequestAt(req, v), v);
  }
}

TEST(KafkaAddPartitionsToTxn, ARequestWithNoTransactionIsAnEmptyOneBeforeV4) {
  AddPartitionsToTxnRequest none;
  AddPartitionsToTxnRequest one_empty;
  one_empty.transactions.resize(1);
  for (int16_t v = 0; v <= 3; ++v) {
    ExpectRoundTrip(WriteAddPartitionsToTxnRequest, ReadAddPartitionsToTxnRequest, none, one_empty, v);
  }
  for (int16_t v = 4; v <= 5; ++v) {
    ExpectRoundTrip(WriteAddPartitionsToTxnRequest, ReadAddPartitionsToTxnRequest, none, none, v);
  }
}

AddPartitionsToTxnResponse SampleAddPartitionsToTxnResponse() {
  AddPartitionsToTxnResponse resp;
  resp.throttle_time_ms = 12;
  resp.error_code = 51;  // CONCURRENT_TRANSACTIONS
  AddPartitionsToTxnResponse::TopicResult orders{"orders", {{0, 0}, {3, 48}}};
  AddPartitionsToTxnResponse::TopicResult audit{"audit", {{1, 29}}};
  resp.results_by_topic_v3_and_below = {orders, audit};
  resp.results_by_transaction = {{"orders-tx", {orders}}, {"billing-tx", {audit, {"invoices", {}}}}};
  return resp;
}

TEST(KafkaAddPartitionsToTxn, ResponsesRoundTripInEveryVersion) {
  AddPartitionsToTxnResponse resp = SampleAddPartitionsToTxnResponse();
  for (int16_t v = 0; v <= 5; ++v) {
    AddPartitionsToTxnResponse expected = resp;
    if (v < 4) {
      expected.error_code = 0;
      expected.results_by_transaction.clear();
    } else {
      expected.results_by_topic_v3_and_below.clear();
    }
    ExpectRoundTrip(WriteAddPartitionsToTxnResponse, ReadAddPartitionsToTxnResponse, resp, expected, v);
  }
}

TEST(KafkaAddPartitionsToTxn, RequestBytesMatchTheProtocolLayout) {
  AddPartitionsToTxnRequest req;
  AddPartitionsToTxnRequest::Transaction tx;
  tx.transactional_id = "tx";
  tx.producer_id = 5;
  tx.producer_epoch = 1;
  tx.topics = {{"t", {0, 2}}};
  req.transactions = {tx};
  // v0: transactional id, producer id, epoch, topics (name, partition indexes).
  ExpectLayout(WriteAddPartitionsToTxnRequest, ReadAddPartitionsToTxnRequest, req,
               HandBytes().Str("tx").I64(5).I16(1).Array(1).Str("t").Array(2).I32(0).I32(2).str(), 0);
  // v3: the same fields, compact, with a tagged-field section after each topic and at the end.
  ExpectLayout(WriteAddPartitionsToTxnRequest, ReadAddPartitionsToTxnRequest, req,
               HandBytes().CStr("tx").I64(5).I16(1).CArray(1).CStr("t").CArray(2).I32(0).I32(2).NoTags().NoTags().str(),
               3);
  // v4: an array of transactions, each with verify_only after the epoch.
  req.transactions[0].verify_only = true;
  ExpectLayout(WriteAddPartitionsToTxnRequest, ReadAddPartitionsToTxnRequest, req,
               HandBytes()
                   .CArray(1)
                   .CStr("tx").I64(5).I16(1).Bool(true)
                   .CArray(1).CStr("t").CArray(2).I32(0).I32(2).NoTags()
                   .NoTags()
                   .NoTags()
                   .str(),
               4);
}

TEST(KafkaAddPartitionsToTxn, ResponseBytesMatchTheProtocolLayout) {
  AddPartitionsToTxnResponse resp;
  resp.throttle_time_ms = 2;
  resp.results_by_topic_v3_and_below = {{"t", {{1, 47}}}};  // INVALID_PRODUCER_EPOCH
  // v0: throttle time, topics (name, partitions (index, error code)).
  ExpectLayout(WriteAddPartitionsToTxnResponse, ReadAddPartitionsToTxnResponse, resp,
               HandBytes().I32(2).Array(1).Str("t").Array(1).I32(1).I16(47).str(), 0);
  // v3: compact, tagged-field sections after each partition, topic and at the end.
  ExpectLayout(WriteAddPartitionsToTxnResponse, ReadAddPartitionsToTxnResponse, resp,
               HandBytes().I32(2).CArray(1).CStr("t").CArray(1).I32(1).I16(47).NoTags().NoTags().NoTags().str(), 3);
  // v4: a top-level error code, then per transaction its id and the topic results.
  AddPartitionsToTxnResponse batched;
  batched.throttle_time_ms = 2;
  batched.error_code = 0;
  batched.results_by_transaction = {{"tx", {{"t", {{1, 47}}}}}};
  ExpectLayout(WriteAddPartitionsToTxnResponse, ReadAddPartitionsToTxnResponse, batched,
               HandBytes()
                   .I32(2).I16(0)
                   .CArray(1).CStr("tx")
                   .CArray(1).CStr("t").CArray(1).I32(1).I16(47).NoTags().NoTags()
                   .NoTags()
                   .NoTags()
                   .str(),
               4);
}

// ---- AddOffsetsToTxn ----

TEST(KafkaAddOffsetsToTxn, RequestsAndResponsesRoundTripInEveryVersion) {
  AddOffsetsToTxnRequest req{"orders-tx", (int64_t{1} << 33) + 9, 4, "orders-app"};
  AddOffsetsToTxnResponse resp{15, 90};  // PRODUCER_FENCED
  for (int16_t v = 0; v <= 4; ++v) {
    ExpectRoundTrip(WriteAddOffsetsToTxnRequest, ReadAddOffsetsToTxnRequest, req, req, v);
    ExpectRoundTrip(WriteAddOffsetsToTxnResponse, ReadAddOffsetsToTxnResponse, resp, resp, v);
  }
}

TEST(KafkaAddOffsetsToTxn, BytesMatchTheProtocolLayout) {
  AddOffsetsToTxnRequest req{"tx", 5, 1, "g"};
  ExpectLayout(WriteAddOffsetsToTxnRequest, ReadAddOffsetsToTxnRequest, req,
               HandBytes().Str("tx").I64(5).I16(1).Str("g").str(), 2);
  ExpectLayout(WriteAddOffsetsToTxnRequest, ReadAddOffsetsToTxnRequest, req,
               HandBytes().CStr("tx").I64(5).I16(1).CStr("g").NoTags().str(), 3);
  AddOffsetsToTxnResponse resp{0, 15};  // COORDINATOR_NOT_AVAILABLE
  ExpectLayout(WriteAddOffsetsToTxnResponse, ReadAddOffsetsToTxnResponse, resp, HandBytes().I32(0).I16(15).str(), 0);
  ExpectLayout(WriteAddOffsetsToTxnResponse, ReadAddOffsetsToTxnResponse, resp,
               HandBytes().I32(0).I16(15).NoTags().str(), 4);
}

// ---- EndTxn ----

TEST(KafkaEndTxn, RequestsAndResponsesRoundTripInEveryVersion) {
  for (bool committed : {true, false}) {
    EndTxnRequest req{"orders-tx", (int64_t{1} << 40) + 1, 12, committed};
    for (int16_t v = 0; v <= 5; ++v) ExpectRoundTrip(WriteEndTxnRequest, ReadEndTxnRequest, req, req, v);
  }
  EndTxnResponse resp{7, 48, 4242, 13};  // INVALID_TXN_STATE
  for (int16_t v = 0; v <= 5; ++v) {
    EndTxnResponse expected = resp;
    if (v < 5) {
      expected.producer_id = kNoProducerId;
      expected.producer_epoch = kNoProducerEpoch;
    }
    ExpectRoundTrip(WriteEndTxnResponse, ReadEndTxnResponse, resp, expected, v);
  }
}

TEST(KafkaEndTxn, BytesMatchTheProtocolLayout) {
  // v0: transactional id, producer id, epoch, committed (a bool byte).
  EndTxnRequest commit{"tx", 1000, 2, true};
  ExpectLayout(WriteEndTxnRequest, ReadEndTxnRequest, commit,
               HandBytes().Str("tx").I64(1000).I16(2).Bool(true).str(), 0);
  EndTxnRequest abort{"tx", 1000, 2, false};
  ExpectLayout(WriteEndTxnRequest, ReadEndTxnRequest, abort,
               HandBytes().CStr("tx").I64(1000).I16(2).Bool(false).NoTags().str(), 3);
  // v0 response: throttle time, error code.
  EndTxnResponse resp;
  resp.throttle_time_ms = 0;
  resp.error_code = 47;  // INVALID_PRODUCER_EPOCH
  ExpectLayout(WriteEndTxnResponse, ReadEndTxnResponse, resp, HandBytes().I32(0).I16(47).str(), 0);
  ExpectLayout(WriteEndTxnResponse, ReadEndTxnResponse, resp, HandBytes().I32(0).I16(47).NoTags().str(), 4);
  // v5: the producer id and epoch to go on with, after the error code.
  EndTxnResponse bumped{0, 0, 1000, 3};
  ExpectLayout(WriteEndTxnResponse, ReadEndTxnResponse, bumped,
               HandBytes().I32(0).I16(0).I64(1000).I16(3).NoTags().str(), 5);
}

// ---- WriteTxnMarkers ----

WriteTxnMarkersRequest SampleWriteTxnMarkersRequest() {
  WriteTxnMarkersRequest req;
  WriteTxnMarkersRequest::Marker commit;
  commit.producer_id = (int64_t{1} << 40) + 7;
  commit.producer_epoch = 3;
  commit.transaction_result = true;
  commit.topics = {{"orders", {0, 4}}, {"audit", {2}}};
  commit.coordinator_epoch = 11;
  commit.transaction_version = 2;
  WriteTxnMarkersRequest::Marker abort;
  abort.producer_id = 9;
  abort.producer_epoch = 0;
  abort.transaction_result = false;
  abort.topics = {{"orders", {1}}};
  abort.coordinator_epoch = 11;
  abort.transaction_version = 1;
  req.markers = {commit, abort};
  return req;
}

TEST(KafkaWriteTxnMarkers, RequestsRoundTripInEveryVersion) {
  WriteTxnMarkersRequest req = SampleWriteTxnMarkersRequest();
  for (int16_t v = 0; v <= 2; ++v) {
    WriteTxnMarkersRequest expected = req;
    if (v < 2) {
      for (auto& m : expected.markers) m.transaction_version = 0;
    }
    ExpectRoundTrip(WriteWriteTxnMarkersRequest, ReadWriteTxnMarkersRequest, req, expected, v);
  }
}

TEST(KafkaWriteTxnMarkers, ResponsesRoundTripInEveryVersion) {
  WriteTxnMarkersResponse resp;
  resp.markers = {{(int64_t{1} << 40) + 7, {{"orders", {{0, 0}, {4, 6}}}, {"audit", {{2, 3}}}}}, {9, {}}};
  for (int16_t v = 0; v <= 2; ++v) {
    ExpectRoundTrip(WriteWriteTxnMarkersResponse, ReadWriteTxnMarkersResponse, resp, resp, v);
  }
}

TEST(KafkaWriteTxnMarkers, RequestBytesMatchTheProtocolLayout) {
  WriteTxnMarkersRequest req;
  WriteTxnMarkersRequest::Marker m;
  m.producer_id = 1000;
  m.producer_epoch = 2;
  m.transaction_result = true;
  m.topics = {{"t", {0, 3}}};
  m.coordinator_epoch = 5;
  req.markers = {m};
  // v0: markers (producer id, epoch, result, topics (name, partition indexes),
  // coordinator epoch).
  ExpectLayout(WriteWriteTxnMarkersRequest, ReadWriteTxnMarkersRequest, req,
               HandBytes().Array(1).I64(1000).I16(2).Bool(true).Array(1).Str("t").Array(2).I32(0).I32(3).I32(5).str(),
               0);
  // v1: compact, tagged-field sections after each topic, each marker and at the end.
  ExpectLayout(WriteWriteTxnMarkersRequest, ReadWriteTxnMarkersRequest, req,
               HandBytes()
                   .CArray(1)
                   .I64(1000).I16(2).Bool(true)
                   .CArray(1).CStr("t").CArray(2).I32(0).I32(3).NoTags()
                   .I32(5)
                   .NoTags()
                   .NoTags()
                   .str(),
               1);
  // v2: the transaction version (int8) after the coordinator epoch.
  req.markers[0].transaction_version = 2;
  ExpectLayout(WriteWriteTxnMarkersRequest, ReadWriteTxnMarkersRequest, req,
               HandBytes()
                   .CArray(1)
                   .I64(1000).I16(2).Bool(true)
                   .CArray(1).CStr("t").CArray(2).I32(0).I32(3).NoTags()
                   .I32(5).I8(2)
                   .NoTags()
                   .NoTags()
                   .str(),
               2);
}

TEST(KafkaWriteTxnMarkers, ResponseBytesMatchTheProtocolLayout) {
  WriteTxnMarkersResponse resp;
  resp.markers = {{1000, {{"t", {{3, 6}}}}}};  // NOT_LEADER_OR_FOLLOWER
  // v0: markers (producer id, topics (name, partitions (index, error code))).
  ExpectLayout(WriteWriteTxnMarkersResponse, ReadWriteTxnMarkersResponse, resp,
               HandBytes().Array(1).I64(1000).Array(1).Str("t").Array(1).I32(3).I16(6).str(), 0);
  // v1: compact, with a tagged-field section closing each partition, topic, marker and the
  // response.
  ExpectLayout(WriteWriteTxnMarkersResponse, ReadWriteTxnMarkersResponse, resp,
               HandBytes()
                   .CArray(1)
                   .I64(1000)
                   .CArray(1).CStr("t").CArray(1).I32(3).I16(6).NoTags().NoTags()
                   .NoTags()
                   .NoTags()
                   .str(),
               1);
}

// ---- TxnOffsetCommit ----

TxnOffsetCommitRequest SampleTxnOffsetCommitRequest() {
  TxnOffsetCommitRequest req;
  req.transactional_id = "orders-tx";
  req.group_id = "orders-app";
  req.producer_id = (int64_t{1} << 40) + 2;
  req.producer_epoch = 6;
  req.generation_id = 14;
  req.member_id = "m-1";
  req.group_instance_id = "i-1";
  TxnOffsetCommitRequest::Partition p0{0, 1000, 5, std::string("meta")};
  TxnOffsetCommitRequest::Partition p3{3, (int64_t{1} << 40) + 1, 2, std::nullopt};
  req.topics = {{"orders", {p0, p3}}, {"audit", {{1, 0, 9, std::string()}}}};
  return req;
}

// Leader epoch from v2; generation, member id and instance id from v3.
TxnOffsetCommitRequest TxnOffsetCommitRequestAt(TxnOffsetCommitRequest req, int16_t version) {
  if (version < 3) {
    req.generation_id = -1;
    req.member_id.clear();
    req.group_instance_id.reset();
  }
  if (version < 2) {
    for (auto& t : req.topics) {
      for (auto& p : t.partitions) p.committed_leader_epoch = -1;
    }
  }
  return req;
}

TEST(KafkaTxnOffsetCommit, RequestsRoundTripInEveryVersion) {
  TxnOffsetCommitRequest req = SampleTxnOffsetCommitRequest();
  TxnOffsetCommitRequest no_instance = req;  // a member without a static instance id
  no_instance.group_instance_id.reset();
  for (int16_t v = 0; v <= 5; ++v) {
    ExpectRoundTrip(WriteTxnOffsetCommitRequest, ReadTxnOffsetCommitRequest, req, TxnOffsetCommitRequestAt(req, v), v);
    ExpectRoundTrip(WriteTxnOffsetCommitRequest, ReadTxnOffsetCommitRequest, no_instance,
                    TxnOffsetCommitRequestAt(no_instance, v), v);
  }
}

TEST(KafkaTxnOffsetCommit, ResponsesRoundTripInEveryVersion) {
  TxnOffsetCommitResponse resp;
  resp.throttle_time_ms = 9;
  resp.topics = {{"orders", {{0, 0}, {3, 22}}}, {"audit", {{1, 25}}}};
  for (int16_t v = 0; v <= 5; ++v) {
    ExpectRoundTrip(WriteTxnOffsetCommitResponse, ReadTxnOffsetCommitResponse, resp, resp, v);
  }
}

TEST(KafkaTxnOffsetCommit, BytesMatchTheProtocolLayout) {
  TxnOffsetCommitRequest req;
  req.transactional_id = "tx";
  req.group_id = "g";
  req.producer_id = 5;
  req.producer_epoch = 1;
  req.topics = {{"t", {{2, 100, -1, std::string("m")}}}};
  // v0: transactional id, group id, producer id, epoch, topics (name, partitions (index,
  // offset, metadata)).
  ExpectLayout(WriteTxnOffsetCommitRequest, ReadTxnOffsetCommitRequest, req,
               HandBytes()
                   .Str("tx").Str("g").I64(5).I16(1)
                   .Array(1).Str("t").Array(1).I32(2).I64(100).Str("m")
                   .str(),
               0);
  // v2: the leader epoch after the offset.
  req.topics[0].partitions[0].committed_leader_epoch = 4;
  ExpectLayout(WriteTxnOffsetCommitRequest, ReadTxnOffsetCommitRequest, req,
               HandBytes()
                   .Str("tx").Str("g").I64(5).I16(1)
                   .Array(1).Str("t").Array(1).I32(2).I64(100).I32(4).Str("m")
                   .str(),
               2);
  // v3: compact; generation, member id, instance id (null) after the epoch; null metadata.
  req.generation_id = 8;
  req.member_id = "c";
  req.topics[0].partitions[0].committed_metadata.reset();
  ExpectLayout(WriteTxnOffsetCommitRequest, ReadTxnOffsetCommitRequest, req,
               HandBytes()
                   .CStr("tx").CStr("g").I64(5).I16(1).I32(8).CStr("c").CNull()
                   .CArray(1).CStr("t").CArray(1).I32(2).I64(100).I32(4).CNull().NoTags().NoTags()
                   .NoTags()
                   .str(),
               3);
  TxnOffsetCommitResponse resp;
  resp.throttle_time_ms = 1;
  resp.topics = {{"t", {{2, 22}}}};  // ILLEGAL_GENERATION
  ExpectLayout(WriteTxnOffsetCommitResponse, ReadTxnOffsetCommitResponse, resp,
               HandBytes().I32(1).Array(1).Str("t").Array(1).I32(2).I16(22).str(), 0);
  ExpectLayout(WriteTxnOffsetCommitResponse, ReadTxnOffsetCommitResponse, resp,
               HandBytes().I32(1).CArray(1).CStr("t").CArray(1).I32(2).I16(22).NoTags().NoTags().NoTags().str(), 3);
}

// ---- DescribeProducers ----

TEST(KafkaDescribeProducers, RequestsAndResponsesRoundTrip) {
  DescribeProducersRequest req;
  req.topics = {{"orders", {0, 1, 7}}, {"audit", {}}};
  ExpectRoundTrip(WriteDescribeProducersRequest, ReadDescribeProducersRequest, req, req, 0);

  DescribeProducersResponse resp;
  resp.throttle_time_ms = 5;
  DescribeProducersResponse::ProducerState open{(int64_t{1} << 40) + 1, 3, 41, 1700000000000, 6, 1234};
  DescribeProducersResponse::ProducerState idle{77, 0, 9, 1700000000500, 0, -1};
  DescribeProducersResponse::Partition led{0, 0, std::nullopt, {open, idle}};
  DescribeProducersResponse::Partition not_led{1, 6, std::string("not the leader"), {}};
  resp.topics = {{"orders", {led, not_led}}, {"audit", {}}};
  ExpectRoundTrip(WriteDescribeProducersResponse, ReadDescribeProducersResponse, resp, resp, 0);
}

TEST(KafkaDescribeProducers, BytesMatchTheProtocolLayout) {
  DescribeProducersRequest req;
  req.topics = {{"t", {4}}};
  ExpectLayout(WriteDescribeProducersRequest, ReadDescribeProducersRequest, req,
               HandBytes().CArray(1).CStr("t").CArray(1).I32(4).NoTags().NoTags().str(), 0);
  DescribeProducersResponse resp;
  resp.throttle_time_ms = 0;
  resp.topics = {{"t", {{4, 0, std::nullopt, {{1000, 2, 17, 1700000000000, 3, 250}}}}}};
  // Producer state: id (int64), epoch (int32), last sequence, last timestamp, coordinator
  // epoch, current transaction's first offset.
  ExpectLayout(WriteDescribeProducersResponse, ReadDescribeProducersResponse, resp,
               HandBytes()
                   .I32(0)
                   .CArray(1).CStr("t")
                   .CArray(1).I32(4).I16(0).CNull()
                   .CArray(1).I64(1000).I32(2).I32(17).I64(1700000000000).I32(3).I64(250).NoTags()
                   .NoTags()
                   .NoTags()
                   .NoTags()
                   .str(),
               0);
}

// ---- DescribeTransactions ----

TEST(KafkaDescribeTransactions, RequestsAndResponsesRoundTrip) {
  DescribeTransactionsRequest req;
  req.transactional_ids = {"orders-tx", "billing-tx", ""};
  ExpectRoundTrip(WriteDescribeTransactionsRequest, ReadDescribeTransactionsRequest, req, req, 0);

  DescribeTransactionsResponse resp;
  resp.throttle_time_ms = 3;
  DescribeTransactionsResponse::TransactionState ongoing;
  ongoing.error_code = 0;
  ongoing.transactional_id = "orders-tx";
  ongoing.transaction_state = "Ongoing";
  ongoing.transaction_timeout_ms = 60000;
  ongoing.transaction_start_time_ms = 1700000000000;
  ongoing.producer_id = (int64_t{1} << 40) + 4;
  ongoing.producer_epoch = 9;
  ongoing.topics = {{"orders", {0, 2}}, {"audit", {1}}};
  DescribeTransactionsResponse::TransactionState unknown;
  unknown.error_code = 105;  // TRANSACTIONAL_ID_NOT_FOUND
  unknown.transactional_id = "billing-tx";
  unknown.transaction_start_time_ms = -1;
  unknown.producer_id = -1;
  unknown.producer_epoch = -1;
  resp.transaction_states = {ongoing, unknown};
  ExpectRoundTrip(WriteDescribeTransactionsResponse, ReadDescribeTransactionsResponse, resp, resp, 0);
}

TEST(KafkaDescribeTransactions, BytesMatchTheProtocolLayout) {
  DescribeTransactionsRequest req;
  req.transactional_ids = {"tx"};
  ExpectLayout(WriteDescribeTransactionsRequest, ReadDescribeTransactionsRequest, req,
               HandBytes().CArray(1).CStr("tx").NoTags().str(), 0);
  DescribeTransactionsResponse resp;
  resp.throttle_time_ms = 0;
  DescribeTransactionsResponse::TransactionState s;
  s.transactional_id = "tx";
  s.transaction_state = "Ongoing";
  s.transaction_timeout_ms = 1000;
  s.transaction_start_time_ms = 77;
  s.producer_id = 5;
  s.producer_epoch = 1;
  s.topics = {{"t", {0}}};
  resp.transaction_states = {s};
  // Per transaction: error code, id, state, timeout (int32), start time (int64), producer
  // id (int64), epoch (int16), topics (topic, partitions).
  ExpectLayout(WriteDescribeTransactionsResponse, ReadDescribeTransactionsResponse, resp,
               HandBytes()
                   .I32(0)
                   .CArray(1)
                   .I16(0).CStr("tx").CStr("Ongoing").I32(1000).I64(77).I64(5).I16(1)
                   .CArray(1).CStr("t").CArray(1).I32(0).NoTags()
                   .NoTags()
                   .NoTags()
                   .str(),
               0);
}

// ---- ListTransactions ----

TEST(KafkaListTransactions, RequestsRoundTripInEveryVersion) {
  ListTransactionsRequest req;
  req.state_filters = {"Ongoing", "PrepareCommit"};
  req.producer_id_filters = {(int64_t{1} << 40) + 1, 7};
  req.duration_filter = 30000;
  req.transactional_id_pattern = "orders-.*";
  ListTransactionsRequest any_id = req;
  any_id.transactional_id_pattern.reset();
  for (int16_t v = 0; v <= 2; ++v) {
    for (const ListTransactionsRequest& value : {req, any_id}) {
      ListTransactionsRequest expected = value;
      if (v < 1) expected.duration_filter = -1;
      if (v < 2) expected.transactional_id_pattern.reset();
      ExpectRoundTrip(WriteListTransactionsRequest, ReadListTransactionsRequest, value, expected, v);
    }
  }
}

TEST(KafkaListTransactions, ResponsesRoundTripInEveryVersion) {
  ListTransactionsResponse resp;
  resp.throttle_time_ms = 4;
  resp.error_code = 14;  // COORDINATOR_LOAD_IN_PROGRESS
  resp.unknown_state_filters = {"Sleeping"};
  resp.transaction_states = {{"orders-tx", (int64_t{1} << 40) + 1, "Ongoing"}, {"billing-tx", 7, "CompleteAbort"}};
  for (int16_t v = 0; v <= 2; ++v) {
    ExpectRoundTrip(WriteListTransactionsResponse, ReadListTransactionsResponse, resp, resp, v);
  }
}

TEST(KafkaListTransactions, BytesMatchTheProtocolLayout) {
  ListTransactionsRequest req;
  req.state_filters = {"Ongoing"};
  req.producer_id_filters = {5};
  // v0: state filters, producer id filters (int64).
  ExpectLayout(WriteListTransactionsRequest, ReadListTransactionsRequest, req,
               HandBytes().CArray(1).CStr("Ongoing").CArray(1).I64(5).NoTags().str(), 0);
  // v1: the duration filter (int64) after them.
  req.duration_filter = 1000;
  ExpectLayout(WriteListTransactionsRequest, ReadListTransactionsRequest, req,
               HandBytes().CArray(1).CStr("Ongoing").CArray(1).I64(5).I64(1000).NoTags().str(), 1);
  // v2: the nullable transactional id pattern last.
  ExpectLayout(WriteListTransactionsRequest, ReadListTransactionsRequest, req,
               HandBytes().CArray(1).CStr("Ongoing").CArray(1).I64(5).I64(1000).CNull().NoTags().str(), 2);
  req.transactional_id_pattern = "t.*";
  ExpectLayout(WriteListTransactionsRequest, ReadListTransactionsRequest, req,
               HandBytes().CArray(1).CStr("Ongoing").CArray(1).I64(5).I64(1000).CStr("t.*").NoTags().str(), 2);

  ListTransactionsResponse resp;
  resp.throttle_time_ms = 0;
  resp.error_code = 0;
  resp.unknown_state_filters = {"X"};
  resp.transaction_states = {{"tx", 5, "Ongoing"}};
  ExpectLayout(WriteListTransactionsResponse, ReadListTransactionsResponse, resp,
               HandBytes()
                   .I32(0).I16(0)
                   .CArray(1).CStr("X")
                   .CArray(1).CStr("tx").I64(5).CStr("Ongoing").NoTags()
                   .NoTags()
                   .str(),
               0);
}

// ---- Tagged fields ----

TEST(KafkaTransactionCodecs, UnknownTaggedFieldsAreSkipped) {
  // EndTxn v3 with one unknown top-level tagged field (tag 7, two bytes).
  std::string end_txn = HandBytes().CStr("tx").I64(5).I16(1).Bool(true).I8(1).I8(7).I8(2).Raw("ab").str();
  Reader r(end_txn);
  auto req = ReadEndTxnRequest(r, 3);
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_EQ(req->transactional_id, "tx");
  EXPECT_TRUE(req->committed);
  EXPECT_EQ(r.remaining(), 0u);

  // WriteTxnMarkers v1 with an unknown tagged field in a marker (tag 3, one byte).
  std::string markers = HandBytes()
                            .CArray(1)
                            .I64(9).I16(0).Bool(false)
                            .CArray(0)
                            .I32(4)
                            .I8(1).I8(3).I8(1).Raw("z")
                            .NoTags()
                            .str();
  Reader m(markers);
  auto marker_req = ReadWriteTxnMarkersRequest(m, 1);
  ASSERT_TRUE(marker_req.ok()) << marker_req.status();
  ASSERT_EQ(marker_req->markers.size(), 1u);
  EXPECT_EQ(marker_req->markers[0].producer_id, 9);
  EXPECT_EQ(marker_req->markers[0].coordinator_epoch, 4);
  EXPECT_EQ(m.remaining(), 0u);
}

}  // namespace
}  // namespace strata::proto::kafka
