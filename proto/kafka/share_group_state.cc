#include "proto/kafka/share_group_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // every version

enum class Field { kErrorCode, kErrorMessage, kStateEpoch, kLeaderEpoch, kStartOffset, kDeliveryComplete, kBatches };

// A partition's fields after its index, in the schema's order, for api_key's request or
// response at version; nullopt for a key that is not one of these APIs.
std::optional<std::vector<Field>> PartitionFields(int16_t api_key, bool response, int16_t version) {
  using F = Field;
  const bool v1 = version >= 1;
  if (response) {
    switch (api_key) {
      case 83: case 85: case 86: return std::vector<F>{F::kErrorCode, F::kErrorMessage};
      case 84: return std::vector<F>{F::kErrorCode, F::kErrorMessage, F::kStateEpoch, F::kStartOffset, F::kBatches};
      case 87: {
        std::vector<F> f{F::kErrorCode, F::kErrorMessage, F::kStateEpoch, F::kLeaderEpoch, F::kStartOffset};
        if (v1) f.push_back(F::kDeliveryComplete);
        return f;
      }
      default: return std::nullopt;
    }
  }
  switch (api_key) {
    case 83: return std::vector<F>{F::kStateEpoch, F::kStartOffset};
    case 84: case 87: return std::vector<F>{F::kLeaderEpoch};
    case 85: {
      std::vector<F> f{F::kStateEpoch, F::kLeaderEpoch, F::kStartOffset};
      if (v1) f.push_back(F::kDeliveryComplete);
      f.push_back(F::kBatches);
      return f;
    }
    case 86: return std::vector<F>{};
    default: return std::nullopt;
  }
}

void WritePartition(const ShareStatePartition& p, const std::vector<Field>& fields, Writer& w) {
  w.Int32(p.partition);
  for (Field f : fields) {
    switch (f) {
      case Field::kErrorCode: w.Int16(p.error_code); break;
      case Field::kErrorMessage: w.NullableString(p.error_message, kFlexible); break;
      case Field::kStateEpoch: w.Int32(p.state_epoch); break;
      case Field::kLeaderEpoch: w.Int32(p.leader_epoch); break;
      case Field::kStartOffset: w.Int64(p.start_offset); break;
      case Field::kDeliveryComplete: w.Int32(p.delivery_complete_count); break;
      case Field::kBatches:
        w.ArrayLength(static_cast<int32_t>(p.state_batches.size()), kFlexible);
        for (const ShareStateBatchData& b : p.state_batches) {
          w.Int64(b.first_offset);
          w.Int64(b.last_offset);
          w.Int8(b.delivery_state);
          w.Int16(b.delivery_count);
          w.EmptyTaggedFields();
        }
        break;
    }
  }
  w.EmptyTaggedFields();
}

ShareStatePartition ReadPartition(Reader& r, const std::vector<Field>& fields) {
  ShareStatePartition p;
  p.partition = r.Int32("partition");
  for (Field f : fields) {
    switch (f) {
      case Field::kErrorCode: p.error_code = r.Int16("error_code"); break;
      case Field::kErrorMessage: p.error_message = r.NullableString(kFlexible, "error_message"); break;
      case Field::kStateEpoch: p.state_epoch = r.Int32("state_epoch"); break;
      case Field::kLeaderEpoch: p.leader_epoch = r.Int32("leader_epoch"); break;
      case Field::kStartOffset: p.start_offset = r.Int64("start_offset"); break;
      case Field::kDeliveryComplete: p.delivery_complete_count = r.Int32("delivery_complete_count"); break;
      case Field::kBatches: {
        int32_t n = r.ArrayLength(kFlexible, "state_batches");
        for (int32_t i = 0; r.ok() && i < n; ++i) {
          ShareStateBatchData b;
          b.first_offset = r.Int64("first_offset");
          b.last_offset = r.Int64("last_offset");
          b.delivery_state = r.Int8("delivery_state");
          b.delivery_count = r.Int16("delivery_count");
          r.SkipTaggedFields("StateBatch tagged fields");
          p.state_batches.push_back(b);
        }
        break;
      }
    }
  }
  r.SkipTaggedFields("partition tagged fields");
  return p;
}

void WriteTopics(const std::vector<ShareStateTopic>& topics, const std::vector<Field>& fields, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(topics.size()), kFlexible);
  for (const ShareStateTopic& t : topics) {
    w.Uuid(t.topic_id);
    w.ArrayLength(static_cast<int32_t>(t.partitions.size()), kFlexible);
    for (const ShareStatePartition& p : t.partitions) WritePartition(p, fields, w);
    w.EmptyTaggedFields();
  }
}

std::vector<ShareStateTopic> ReadTopics(Reader& r, const std::vector<Field>& fields, const char* what) {
  std::vector<ShareStateTopic> topics;
  int32_t n = r.ArrayLength(kFlexible, what);
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    ShareStateTopic t;
    t.topic_id = r.Uuid("topic_id");
    int32_t np = r.ArrayLength(kFlexible, "partitions");
    for (int32_t j = 0; r.ok() && j < np; ++j) t.partitions.push_back(ReadPartition(r, fields));
    r.SkipTaggedFields("topic tagged fields");
    topics.push_back(std::move(t));
  }
  return topics;
}

absl::Status NotAStateApi(int16_t api_key) {
  return absl::InvalidArgumentError(absl::StrCat("api key ", api_key, " is not a share group state API"));
}

}  // namespace

absl::StatusOr<ShareGroupStateRequest> ReadShareGroupStateRequest(int16_t api_key, Reader& r, int16_t version) {
  std::optional<std::vector<Field>> fields = PartitionFields(api_key, /*response=*/false, version);
  if (!fields) return NotAStateApi(api_key);
  ShareGroupStateRequest req;
  req.group_id = r.String(kFlexible, "group_id");
  req.topics = ReadTopics(r, *fields, "topics");
  r.SkipTaggedFields("request tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteShareGroupStateRequest(int16_t api_key, const ShareGroupStateRequest& req, int16_t version, Writer& w) {
  std::optional<std::vector<Field>> fields = PartitionFields(api_key, /*response=*/false, version);
  ABSL_CHECK(fields.has_value()) << "api key " << api_key << " is not a share group state API";
  w.String(req.group_id, kFlexible);
  WriteTopics(req.topics, *fields, w);
  w.EmptyTaggedFields();
}

absl::StatusOr<ShareGroupStateResponse> ReadShareGroupStateResponse(int16_t api_key, Reader& r, int16_t version) {
  std::optional<std::vector<Field>> fields = PartitionFields(api_key, /*response=*/true, version);
  if (!fields) return NotAStateApi(api_key);
  ShareGroupStateResponse resp;
  resp.results = ReadTopics(r, *fields, "results");
  r.SkipTaggedFields("response tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

void WriteShareGroupStateResponse(int16_t api_key, const ShareGroupStateResponse& resp, int16_t version, Writer& w) {
  std::optional<std::vector<Field>> fields = PartitionFields(api_key, /*response=*/true, version);
  ABSL_CHECK(fields.has_value()) << "api key " << api_key << " is not a share group state API";
  WriteTopics(resp.results, *fields, w);
  w.EmptyTaggedFields();
}

}  // namespace strata::proto::kafka
