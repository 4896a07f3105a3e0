#include "proto/kafka/client_quotas.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return version >= 1; }

// Reads count elements with read_one, each followed by its tagged fields when flexible.
template <typename T, typename ReadOne>
std::vector<T> ReadArray(Reader& r, bool flexible, const char* field, ReadOne read_one) {
  std::vector<T> out;
  int32_t n = r.ArrayLength(flexible, field);
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    out.push_back(read_one());
    if (flexible) r.SkipTaggedFields(field);
  }
  return out;
}

template <typename T, typename WriteOne>
void WriteArray(Writer& w, bool flexible, const std::vector<T>& items, WriteOne write_one) {
  w.ArrayLength(static_cast<int32_t>(items.size()), flexible);
  for (const T& item : items) {
    write_one(item);
    if (flexible) w.EmptyTaggedFields();
  }
}

std::vector<QuotaEntityData> ReadEntity(Reader& r, bool flexible) {
  return ReadArray<QuotaEntityData>(r, flexible, "entity", [&] {
    QuotaEntityData e;
    e.entity_type = r.String(flexible, "entity_type");
    e.entity_name = r.NullableString(flexible, "entity_name");
    return e;
  });
}

void WriteEntity(Writer& w, bool flexible, const std::vector<QuotaEntityData>& entity) {
  WriteArray(w, flexible, entity, [&](const QuotaEntityData& e) {
    w.String(e.entity_type, flexible);
    w.NullableString(e.entity_name, flexible);
  });
}

void EndMessage(Reader& r, bool flexible, const char* where) {
  if (flexible) r.SkipTaggedFields(where);
}

void EndMessage(Writer& w, bool flexible) {
  if (flexible) w.EmptyTaggedFields();
}

}  // namespace

absl::StatusOr<DescribeClientQuotasRequest> ReadDescribeClientQuotasRequest(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  DescribeClientQuotasRequest req;
  req.components = ReadArray<DescribeClientQuotasRequest::Component>(r, flexible, "components", [&] {
    DescribeClientQuotasRequest::Component c;
    c.entity_type = r.String(flexible, "entity_type");
    c.match_type = r.Int8("match_type");
    c.match = r.NullableString(flexible, "match");
    return c;
  });
  req.strict = r.Bool("strict");
  EndMessage(r, flexible, "DescribeClientQuotasRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeClientQuotasRequest(const DescribeClientQuotasRequest& req, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  WriteArray(w, flexible, req.components, [&](const DescribeClientQuotasRequest::Component& c) {
    w.String(c.entity_type, flexible);
    w.Int8(c.match_type);
    w.NullableString(c.match, flexible);
  });
  w.Bool(req.strict);
  EndMessage(w, flexible);
}

void WriteDescribeClientQuotasResponse(const DescribeClientQuotasResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, flexible);
  if (!resp.entries) {
    w.ArrayLength(-1, flexible);
  } else {
    WriteArray(w, flexible, *resp.entries, [&](const DescribeClientQuotasResponse::Entry& e) {
      WriteEntity(w, flexible, e.entity);
      WriteArray(w, flexible, e.values, [&](const DescribeClientQuotasResponse::Value& v) {
        w.String(v.key, flexible);
        w.Float64(v.value);
      });
    });
  }
  EndMessage(w, flexible);
}

absl::StatusOr<DescribeClientQuotasResponse> ReadDescribeClientQuotasResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  DescribeClientQuotasResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(flexible, "error_message");
  Reader peek = r;
  if (peek.ArrayLength(flexible, "entries") < 0) {
    r.ArrayLength(flexible, "entries");
  } else {
    resp.entries = ReadArray<DescribeClientQuotasResponse::Entry>(r, flexible, "entries", [&] {
      DescribeClientQuotasResponse::Entry e;
      e.entity = ReadEntity(r, flexible);
      e.values = ReadArray<DescribeClientQuotasResponse::Value>(r, flexible, "values", [&] {
        DescribeClientQuotasResponse::Value v;
        v.key = r.String(flexible, "key");
        v.value = r.Float64("value");
        return v;
      });
      return e;
    });
  }
  EndMessage(r, flexible, "DescribeClientQuotasResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

absl::StatusOr<AlterClientQuotasRequest> ReadAlterClientQuotasRequest(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  AlterClientQuotasRequest req;
  req.entries = ReadArray<AlterClientQuotasRequest::Entry>(r, flexible, "entries", [&] {
    AlterClientQuotasRequest::Entry e;
    e.entity = ReadEntity(r, flexible);
    e.ops = ReadArray<AlterClientQuotasRequest::Op>(r, flexible, "ops", [&] {
      AlterClientQuotasRequest::Op op;
      op.key = r.String(flexible, "key");
      op.value = r.Float64("value");
      op.remove = r.Bool("remove");
      return op;
    });
    return e;
  });
  req.validate_only = r.Bool("validate_only");
  EndMessage(r, flexible, "AlterClientQuotasRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAlterClientQuotasRequest(const AlterClientQuotasRequest& req, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  WriteArray(w, flexible, req.entries, [&](const AlterClientQuotasRequest::Entry& e) {
    WriteEntity(w, flexible, e.entity);
    WriteArray(w, flexible, e.ops, [&](const AlterClientQuotasRequest::Op& op) {
      w.String(op.key, flexible);
      w.Float64(op.value);
      w.Bool(op.remove);
    });
  });
  w.Bool(req.validate_only);
  EndMessage(w, flexible);
}

void WriteAlterClientQuotasResponse(const AlterClientQuotasResponse& resp, int16_t version, Writer& w) {
  const bool flexible = Flexible(version);
  w.Int32(resp.throttle_time_ms);
  WriteArray(w, flexible, resp.entries, [&](const AlterClientQuotasResponse::Entry& e) {
    w.Int16(e.error_code);
    w.NullableString(e.error_message, flexible);
    WriteEntity(w, flexible, e.entity);
  });
  EndMessage(w, flexible);
}

absl::StatusOr<AlterClientQuotasResponse> ReadAlterClientQuotasResponse(Reader& r, int16_t version) {
  const bool flexible = Flexible(version);
  AlterClientQuotasResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.entries = ReadArray<AlterClientQuotasResponse::Entry>(r, flexible, "entries", [&] {
    AlterClientQuotasResponse::Entry e;
    e.error_code = r.Int16("error_code");
    e.error_message = r.NullableString(flexible, "error_message");
    e.entity = ReadEntity(r, flexible);
    return e;
  });
  EndMessage(r, flexible, "AlterClientQuotasResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
