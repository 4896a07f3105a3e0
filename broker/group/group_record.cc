#include "broker/group/group_record.h"

#include "absl/strings/str_cat.h"
#include "proto/kafka/wire.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;

constexpr int16_t kOffsetKeyType = 1;
constexpr int16_t kGroupKeyType = 2;
constexpr int16_t kValueVersion = 0;
constexpr bool kClassic = false;  // int16 string lengths, int32 byte lengths

// Whether a consumer group's key names a member (4, 6, 7) besides the group.
bool HasMember(ConsumerRecordType type) {
  return type == ConsumerRecordType::kMemberMetadata || type == ConsumerRecordType::kTargetMember ||
         type == ConsumerRecordType::kCurrentAssignment || type == ConsumerRecordType::kShareMemberMetadata ||
         type == ConsumerRecordType::kShareMemberAssignment;
}

}  // namespace

absl::Status RecordFullyRead(const kafka::Reader& r, absl::string_view what) {
  if (!r.ok()) return r.status();
  if (r.remaining() != 0) {
    return absl::DataLossError(absl::StrCat(what, ": ", r.remaining(), " bytes after the last field"));
  }
  return absl::OkStatus();
}

absl::Status ReadRecordVersion(kafka::Reader& r, int16_t version, absl::string_view what) {
  int16_t read = r.Int16("version");
  if (!r.ok()) return r.status();
  if (read != version) {
    return absl::DataLossError(absl::StrCat(what, " version ", read, " is not one this broker reads (", version, ")"));
  }
  return absl::OkStatus();
}

std::string EncodeGroupRecordKey(const GroupRecordKey& key) {
  std::string out;
  kafka::Writer w(&out);
  if (const auto* offset = std::get_if<OffsetKey>(&key)) {
    w.Int16(kOffsetKeyType);
    w.String(offset->group_id, kClassic);
    w.String(offset->topic, kClassic);
    w.Int32(offset->partition);
  } else if (const auto* group = std::get_if<GroupKey>(&key)) {
    w.Int16(kGroupKeyType);
    w.String(group->group_id, kClassic);
  } else {
    const auto& consumer = std::get<ConsumerGroupKey>(key);
    w.Int16(static_cast<int16_t>(consumer.type));
    w.String(consumer.group_id, kClassic);
    if (HasMember(consumer.type)) w.String(consumer.member_id, kClassic);
  }
  return out;
}

absl::StatusOr<GroupRecordKey> DecodeGroupRecordKey(absl::string_view bytes) {
  kafka::Reader r(bytes);
  int16_t type = r.Int16("key type");
  GroupRecordKey key;
  if (type == kOffsetKeyType) {
    OffsetKey k;
    k.group_id = r.String(kClassic, "group");
    k.topic = r.String(kClassic, "topic");
    k.partition = r.Int32("partition");
    key = std::move(k);
  } else if (type == kGroupKeyType) {
    key = GroupKey{r.String(kClassic, "group")};
  } else if (type >= static_cast<int16_t>(ConsumerRecordType::kGroupMetadata) &&
             type <= static_cast<int16_t>(ConsumerRecordType::kShareMemberAssignment)) {
    ConsumerGroupKey k;
    k.type = static_cast<ConsumerRecordType>(type);
    k.group_id = r.String(kClassic, "group");
    if (HasMember(k.type)) k.member_id = r.String(kClassic, "member");
    key = std::move(k);
  } else if (r.ok()) {
    return absl::DataLossError(absl::StrCat("group record key type ", type, " is not one this broker reads"));
  }
  if (absl::Status s = RecordFullyRead(r, "group record key"); !s.ok()) return s;
  return key;
}

std::string EncodeOffsetValue(const OffsetValue& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.Int64(v.offset);
  w.Int32(v.leader_epoch);
  w.String(v.metadata, kClassic);
  w.Int64(v.commit_timestamp_ms);
  w.Int64(v.expire_timestamp_ms);
  return out;
}

absl::StatusOr<OffsetValue> DecodeOffsetValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "offset value"); !s.ok()) return s;
  OffsetValue v;
  v.offset = r.Int64("offset");
  v.leader_epoch = r.Int32("leader_epoch");
  v.metadata = r.String(kClassic, "metadata");
  v.commit_timestamp_ms = r.Int64("commit_timestamp");
  v.expire_timestamp_ms = r.Int64("expire_timestamp");
  if (absl::Status s = RecordFullyRead(r, "offset value"); !s.ok()) return s;
  return v;
}

std::string EncodeGroupValue(const GroupValue& v) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kValueVersion);
  w.String(v.protocol_type, kClassic);
  w.Int32(v.generation_id);
  w.NullableString(v.protocol_name, kClassic);
  w.NullableString(v.leader_id, kClassic);
  w.Int64(v.state_timestamp_ms);
  w.ArrayLength(static_cast<int32_t>(v.members.size()), kClassic);
  for (const GroupValue::Member& m : v.members) {
    w.String(m.member_id, kClassic);
    w.NullableString(m.group_instance_id, kClassic);
    w.String(m.client_id, kClassic);
    w.String(m.client_host, kClassic);
    w.Int32(m.rebalance_timeout_ms);
    w.Int32(m.session_timeout_ms);
    w.NullableBytes(m.subscription, kClassic);
    w.NullableBytes(m.assignment, kClassic);
  }
  return out;
}

absl::StatusOr<GroupValue> DecodeGroupValue(absl::string_view bytes) {
  kafka::Reader r(bytes);
  if (absl::Status s = ReadRecordVersion(r, kValueVersion, "group value"); !s.ok()) return s;
  GroupValue v;
  v.protocol_type = r.String(kClassic, "protocol_type");
  v.generation_id = r.Int32("generation");
  v.protocol_name = r.NullableString(kClassic, "protocol");
  v.leader_id = r.NullableString(kClassic, "leader");
  v.state_timestamp_ms = r.Int64("state_timestamp");
  int32_t n = r.ArrayLength(kClassic, "members");
  for (int32_t i = 0; r.ok() && i < n; ++i) {
    GroupValue::Member m;
    m.member_id = r.String(kClassic, "member_id");
    m.group_instance_id = r.NullableString(kClassic, "group_instance_id");
    m.client_id = r.String(kClassic, "client_id");
    m.client_host = r.String(kClassic, "client_host");
    m.rebalance_timeout_ms = r.Int32("rebalance_timeout");
    m.session_timeout_ms = r.Int32("session_timeout");
    m.subscription = r.NullableBytes(kClassic, "subscription").value_or("");
    m.assignment = r.NullableBytes(kClassic, "assignment").value_or("");
    v.members.push_back(std::move(m));
  }
  if (absl::Status s = RecordFullyRead(r, "group value"); !s.ok()) return s;
  return v;
}

int32_t JavaStringHashCode(absl::string_view group_id) {
  // h = 31 * h + c over the UTF-16 code units.
  uint32_t h = 0;
  auto unit = [&h](uint32_t c) { h = 31 * h + c; };
  const auto* p = reinterpret_cast<const unsigned char*>(group_id.data());
  const unsigned char* end = p + group_id.size();
  while (p < end) {
    uint32_t c = *p;
    int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
    bool valid = extra >= 0 && end - p > extra;
    if (valid) {
      uint32_t cp = extra == 0 ? c : c & (0x3f >> extra);
      for (int i = 1; i <= extra; ++i) {
        if ((p[i] & 0xc0) != 0x80) valid = false;
        cp = (cp << 6) | (p[i] & 0x3f);
      }
      if (valid) {
        if (cp >= 0x10000) {  // a surrogate pair
          cp -= 0x10000;
          unit(0xd800 + (cp >> 10));
          unit(0xdc00 + (cp & 0x3ff));
        } else {
          unit(cp);
        }
        p += extra + 1;
        continue;
      }
    }
    unit(0xfffd);  // Java decodes an invalid byte as the replacement character
    ++p;
  }
  return static_cast<int32_t>(h);
}

int32_t OffsetsPartitionFor(absl::string_view group_id, int32_t partitions) {
  const uint32_t h = static_cast<uint32_t>(JavaStringHashCode(group_id));
  return static_cast<int32_t>((h & 0x7fffffff) % static_cast<uint32_t>(partitions));
}

}  // namespace strata::broker
