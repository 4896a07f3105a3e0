#include "proto/kafka/consumer_protocol.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "proto/kafka/common_fields.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = false;  // the consumer protocol is never flexible
constexpr int16_t kOwnedPartitions = 1;
constexpr int16_t kGenerationId = 2;
constexpr int16_t kRackId = 3;

// The version at the front of the bytes, capped at the newest one known (whose fields a
// newer version begins with).
absl::StatusOr<int16_t> ReadVersion(Reader& r, int16_t max_version, absl::string_view what) {
  int16_t version = r.Int16("version");
  if (!r.ok()) return r.status();
  if (version < 0) return absl::InvalidArgumentError(absl::StrCat(what, " has version ", version));
  return std::min(version, max_version);
}

std::vector<ConsumerTopicPartitions> ReadTopicPartitions(Reader& r, const char* field) {
  std::vector<ConsumerTopicPartitions> out;
  int32_t n = r.ArrayLength(kFlexible, field);
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    ConsumerTopicPartitions tp;
    tp.topic = r.String(kFlexible, "topic");
    tp.partitions = ReadInt32Array(r, kFlexible, "partitions");
    out.push_back(std::move(tp));
  }
  return out;
}

void WriteTopicPartitions(const std::vector<ConsumerTopicPartitions>& tps, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(tps.size()), kFlexible);
  for (const auto& tp : tps) {
    w.String(tp.topic, kFlexible);
    WriteInt32Array(tp.partitions, kFlexible, w);
  }
}

}  // namespace

absl::StatusOr<ConsumerSubscription> ReadConsumerSubscription(absl::string_view bytes) {
  Reader r(bytes);
  absl::StatusOr<int16_t> version = ReadVersion(r, kConsumerSubscriptionMaxVersion, "consumer subscription");
  if (!version.ok()) return version.status();
  ConsumerSubscription sub;
  sub.topics = ReadStringArray(r, kFlexible, "topics");
  sub.user_data = r.NullableBytes(kFlexible, "user_data");
  if (*version >= kOwnedPartitions) sub.owned_partitions = ReadTopicPartitions(r, "owned_partitions");
  if (*version >= kGenerationId) sub.generation_id = r.Int32("generation_id");
  if (*version >= kRackId) sub.rack_id = r.NullableString(kFlexible, "rack_id");
  if (!r.ok()) return r.status();
  return sub;
}

std::string WriteConsumerSubscription(const ConsumerSubscription& sub, int16_t version) {
  std::string out;
  Writer w(&out);
  w.Int16(version);
  WriteStringArray(sub.topics, kFlexible, w);
  w.NullableBytes(sub.user_data, kFlexible);
  if (version >= kOwnedPartitions) WriteTopicPartitions(sub.owned_partitions, w);
  if (version >= kGenerationId) w.Int32(sub.generation_id);
  if (version >= kRackId) w.NullableString(sub.rack_id, kFlexible);
  return out;
}

absl::StatusOr<ConsumerAssignment> ReadConsumerAssignment(absl::string_view bytes) {
  Reader r(bytes);
  absl::StatusOr<int16_t> version = ReadVersion(r, kConsumerAssignmentMaxVersion, "consumer assignment");
  if (!version.ok()) return version.status();
  ConsumerAssignment assignment;
  assignment.assigned_partitions = ReadTopicPartitions(r, "assigned_partitions");
  assignment.user_data = r.NullableBytes(kFlexible, "user_data");
  if (!r.ok()) return r.status();
  return assignment;
}

std::string WriteConsumerAssignment(const ConsumerAssignment& assignment, int16_t version) {
  std::string out;
  Writer w(&out);
  w.Int16(version);  // every version has the same fields
  WriteTopicPartitions(assignment.assigned_partitions, w);
  w.NullableBytes(assignment.user_data, kFlexible);
  return out;
}

}  // namespace strata::proto::kafka
