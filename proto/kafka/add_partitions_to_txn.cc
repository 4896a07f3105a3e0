#include "proto/kafka/add_partitions_to_txn.h"

#include "proto/kafka/api.h"
#include "proto/kafka/common_fields.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return IsFlexible(static_cast<int16_t>(ApiKey::kAddPartitionsToTxn), version); }

constexpr int16_t kBatched = 4;  // the first version with transactions / results_by_transaction

std::vector<AddPartitionsToTxnRequest::Topic> ReadTopics(Reader& r, bool flexible) {
  std::vector<AddPartitionsToTxnRequest::Topic> topics;
  int32_t n = r.ArrayLength(flexible, "topics");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    AddPartitionsToTxnRequest::Topic t;
    t.name = r.String(flexible, "name");
    t.partitions = ReadInt32Array(r, flexible, "partitions");
    if (flexible) r.SkipTaggedFields("topic tagged fields");
    topics.push_back(std::move(t));
  }
  return topics;
}

void WriteTopics(const std::vector<AddPartitionsToTxnRequest::Topic>& topics, bool flexible, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(topics.size()), flexible);
  for (const auto& t : topics) {
    w.String(t.name, flexible);
    WriteInt32Array(t.partitions, flexible, w);
    if (flexible) w.EmptyTaggedFields();
  }
}

std::vector<AddPartitionsToTxnResponse::TopicResult> ReadTopicResults(Reader& r, bool flexible, const char* field) {
  std::vector<AddPartitionsToTxnResponse::TopicResult> topics;
  int32_t nt = r.ArrayLength(flexible, field);
  for (int32_t i = 0; i < nt && r.ok(); ++i) {
    AddPartitionsToTxnResponse::TopicResult t;
    t.name = r.String(flexible, "name");
    int32_t np = r.ArrayLength(flexible, "results_by_partition");
    for (int32_t j = 0; j < np && r.ok(); ++j) {
      AddPartitionsToTxnResponse::PartitionResult p;
      p.partition_index = r.Int32("partition_index");
      p.partition_error_code = r.Int16("partition_error_code");
      if (flexible) r.SkipTaggedFields("partition result tagged fields");
      t.results_by_partition.push_back(p);
    }
    if (flexible) r.SkipTaggedFields("topic result tagged fields");
    topics.push_back(std::move(t));
  }
  return topics;
}

void WriteTopicResults(const std::vector<AddPartitionsToTxnResponse::TopicResult>& topics, bool flexible, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(topics.size()), flexible);
  for (const auto& t : topics) {
    w.String(t.name, flexible);
    w.ArrayLength(static_cast<int32_t>(t.results_by_partition.size()), flexible);
    for (const auto& p : t.results_by_partition) {
      w.Int32(p.partition_index);
      w.Int16(p.partition_error_code);
      if (flexible) w.EmptyTaggedFields();
    }
    if (flexible) w.EmptyTaggedFields();
  }
}

}  // namespace

absl::StatusOr<AddPartitionsToTxnRequest> ReadAddPartitionsToTxnRequest(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  AddPartitionsToTxnRequest req;
  if (version >= kBatched) {
    int32_t n = r.ArrayLength(flexible, "transactions");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      AddPartitionsToTxnRequest::Transaction tx;
      tx.transactional_id = r.String(flexible, "transactional_id");
      tx.producer_id = r.Int64("producer_id");
      tx.producer_epoch = r.Int16("producer_epoch");
      tx.verify_only = r.Bool("verify_only");
      tx.topics = ReadTopics(r, flexible);
      if (flexible) r.SkipTaggedFields("transaction tagged fields");
      req.transactions.push_back(std::move(tx));
    }
  } else {
    AddPartitionsToTxnRequest::Transaction tx;
    tx.transactional_id = r.String(flexible, "v3_and_below_transactional_id");
    tx.producer_id = r.Int64("v3_and_below_producer_id");
    tx.producer_epoch = r.Int16("v3_and_below_producer_epoch");
    tx.topics = ReadTopics(r, flexible);
    req.transactions.push_back(std::move(tx));
  }
  if (flexible) r.SkipTaggedFields("AddPartitionsToTxnRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAddPartitionsToTxnRequest(const AddPartitionsToTxnRequest& req, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  if (version >= kBatched) {
    w.ArrayLength(static_cast<int32_t>(req.transactions.size()), flexible);
    for (const auto& tx : req.transactions) {
      w.String(tx.transactional_id, flexible);
      w.Int64(tx.producer_id);
      w.Int16(tx.producer_epoch);
      w.Bool(tx.verify_only);
      WriteTopics(tx.topics, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
  } else {
    const AddPartitionsToTxnRequest::Transaction none;
    const auto& tx = req.transactions.empty() ? none : req.transactions.front();
    w.String(tx.transactional_id, flexible);
    w.Int64(tx.producer_id);
    w.Int16(tx.producer_epoch);
    WriteTopics(tx.topics, flexible, w);
  }
  if (flexible) w.EmptyTaggedFields();
}

void WriteAddPartitionsToTxnResponse(const AddPartitionsToTxnResponse& resp, int16_t version, Writer& w) {
  bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  if (version >= kBatched) {
    w.Int16(resp.error_code);
    w.ArrayLength(static_cast<int32_t>(resp.results_by_transaction.size()), flexible);
    for (const auto& tx : resp.results_by_transaction) {
      w.String(tx.transactional_id, flexible);
      WriteTopicResults(tx.topic_results, flexible, w);
      if (flexible) w.EmptyTaggedFields();
    }
  } else {
    WriteTopicResults(resp.results_by_topic_v3_and_below, flexible, w);
  }
  if (flexible) w.EmptyTaggedFields();
}

absl::StatusOr<AddPartitionsToTxnResponse> ReadAddPartitionsToTxnResponse(Reader& r, int16_t version) {
  bool flexible = Flexible(version);
  AddPartitionsToTxnResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  if (version >= kBatched) {
    resp.error_code = r.Int16("error_code");
    int32_t n = r.ArrayLength(flexible, "results_by_transaction");
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      AddPartitionsToTxnResponse::TransactionResult tx;
      tx.transactional_id = r.String(flexible, "transactional_id");
      tx.topic_results = ReadTopicResults(r, flexible, "topic_results");
      if (flexible) r.SkipTaggedFields("transaction result tagged fields");
      resp.results_by_transaction.push_back(std::move(tx));
    }
  } else {
    resp.results_by_topic_v3_and_below = ReadTopicResults(r, flexible, "results_by_topic_v3_and_below");
  }
  if (flexible) r.SkipTaggedFields("AddPartitionsToTxnResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
