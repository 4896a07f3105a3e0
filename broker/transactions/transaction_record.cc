#include "broker/transactions/transaction_record.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "broker/group/group_record.h"
#include "proto/kafka/wire.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {
constexpr int16_t kKeyVersion = 0;
constexpr int16_t kValueVersion = 0;
constexpr int16_t kFlexibleValueVersion = 1;
// Version 1's tagged fields (tag 3, NextProducerEpoch, is not used and skipped).
constexpr uint32_t kPreviousProducerIdTag = 0;
constexpr uint32_t kNextProducerIdTag = 1;
constexpr uint32_t kClientTransactionVersionTag = 2;

struct StateName {
  TransactionState state;
  absl::string_view name;
};
constexpr StateName kStateNames[] = {
    {TransactionState::kEmpty, "Empty"},
    {TransactionState::kOngoing, "Ongoing"},
    {TransactionState::kPrepareCommit, "PrepareCommit"},
    {TransactionState::kPrepareAbort, "PrepareAbort"},
    {TransactionState::kCompleteCommit, "CompleteCommit"},
    {TransactionState::kCompleteAbort, "CompleteAbort"},
    {TransactionState::kDead, "Dead"},
    {TransactionState::kPrepareEpochFence, "PrepareEpochFence"},
};
}  // namespace

absl::string_view TransactionStateName(TransactionState state) {
  for (const StateName& s : kStateNames) {
    if (s.state == state) return s.name;
  }
  return "Unknown";
}

bool ParseTransactionState(absl::string_view name, TransactionState* state) {
  for (const StateName& s : kStateNames) {
    if (s.name == name) {
      *state = s.state;
      return true;
    }
  }
  return false;
}

std::string EncodeTransactionLogKey(absl::string_view transactional_id) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kKeyVersion);
  w.String(transactional_id, false);
  return out;
}

std::string EncodeTransactionLogValue(const TransactionLogValue& v) {
  // Version 1 only when a field of its own is set, so that a value v0 can hold stays v0.
  const bool flexible = v.prev_producer_id != -1 || v.next_producer_id != -1 || v.client_transaction_version != 0;
  std::string out;
  kafka::Writer w(&out);
  w.Int16(flexible ? kFlexibleValueVersion : kValueVersion);
  w.Int64(v.producer_id);
  w.Int16(v.producer_epoch);
  w.Int32(v.timeout_ms);
  w.Int8(static_cast<int8_t>(v.state));
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const storage::TopicPartition& tp : v.partitions) by_topic[tp.topic].push_back(tp.partition);
  w.ArrayLength(static_cast<int32_t>(by_topic.size()), flexible);
  for (const auto& [topic, partitions] : by_topic) {
    w.String(topic, flexible);
    w.ArrayLength(static_cast<int32_t>(partitions.size()), flexible);
    for (int32_t p : partitions) w.Int32(p);
    if (flexible) w.EmptyTaggedFields();
  }
  w.Int64(v.last_update_ms);
  w.Int64(v.start_ms);
  if (!flexible) return out;
  std::vector<kafka::TaggedField> tagged;
  if (v.prev_producer_id != -1) {
    kafka::TaggedField f{.tag = kPreviousProducerIdTag};
    kafka::Writer(&f.data).Int64(v.prev_producer_id);
    tagged.push_back(std::move(f));
  }
  if (v.next_producer_id != -1) {
    kafka::TaggedField f{.tag = kNextProducerIdTag};
    kafka::Writer(&f.data).Int64(v.next_producer_id);
    tagged.push_back(std::move(f));
  }
  if (v.client_transaction_version != 0) {
    kafka::TaggedField f{.tag = kClientTransactionVersionTag};
    kafka::Writer(&f.data).Int16(v.client_transaction_version);
    tagged.push_back(std::move(f));
  }
  w.TaggedFields(tagged);
  return out;
}

absl::StatusOr<std::string> DecodeTransactionLogKey(absl::string_view bytes) {
  kafka::Reader r(bytes);
  int16_t version = r.Int16("version");
  if (r.ok() && version != kKeyVersion) {
    return absl::InvalidArgumentError(absl::StrCat("transaction log key version ", version, " is unknown"));
  }
  std::string id = r.String(false, "transactional_id");
  if (!r.ok()) return r.status();
  return id;
}

absl::StatusOr<TransactionLogValue> DecodeTransactionLogValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  int16_t version = r.Int16("version");
  if (r.ok() && version != kValueVersion && version != kFlexibleValueVersion) {
    return absl::InvalidArgumentError(absl::StrCat("transaction log value version ", version, " is unknown"));
  }
  const bool flexible = version >= kFlexibleValueVersion;
  TransactionLogValue v;
  v.producer_id = r.Int64("producer_id");
  v.producer_epoch = r.Int16("producer_epoch");
  v.timeout_ms = r.Int32("transaction_timeout_ms");
  int8_t state = r.Int8("transaction_status");
  if (r.ok() && (state < 0 || state > static_cast<int8_t>(TransactionState::kPrepareEpochFence))) {
    return absl::InvalidArgumentError(absl::StrCat("transaction status ", state, " is unknown"));
  }
  v.state = static_cast<TransactionState>(state);
  int32_t topics = r.ArrayLength(flexible, "transaction_partitions");
  for (int32_t t = 0; r.ok() && t < topics; ++t) {
    std::string topic = r.String(flexible, "topic");
    int32_t partitions = r.ArrayLength(flexible, "partition_ids");
    for (int32_t p = 0; r.ok() && p < partitions; ++p) v.partitions.insert({topic, r.Int32("partition_id")});
    if (flexible) r.SkipTaggedFields("partitions tagged fields");
  }
  v.last_update_ms = r.Int64("transaction_last_update_timestamp_ms");
  v.start_ms = r.Int64("transaction_start_timestamp_ms");
  if (flexible) {
    r.ReadTaggedFields("TransactionLogValue tagged fields", [&v](uint32_t tag, kafka::Reader& field) {
      if (tag == kPreviousProducerIdTag) v.prev_producer_id = field.Int64("previous_producer_id");
      if (tag == kNextProducerIdTag) v.next_producer_id = field.Int64("next_producer_id");
      if (tag == kClientTransactionVersionTag) v.client_transaction_version = field.Int16("client_transaction_version");
    });
  }
  if (!r.ok()) return r.status();
  return v;
}

int32_t TransactionStatePartitionFor(absl::string_view transactional_id, int32_t partitions) {
  return OffsetsPartitionFor(transactional_id, partitions);
}

}  // namespace strata::broker
