#include "proto/kafka/acls.h"

namespace strata::proto::kafka {
namespace {

bool Flexible(int16_t version) { return version >= 2; }  // all three APIs
bool HasPattern(int16_t version) { return version >= 1; }

void ReadFilter(Reader& r, int16_t v, AclFilterFields& f) {
  bool flexible = Flexible(v);
  f.resource_type = r.Int8("resource_type_filter");
  f.resource_name = r.NullableString(flexible, "resource_name_filter");
  if (HasPattern(v)) f.pattern_type = r.Int8("pattern_type_filter");
  f.principal = r.NullableString(flexible, "principal_filter");
  f.host = r.NullableString(flexible, "host_filter");
  f.operation = r.Int8("operation");
  f.permission_type = r.Int8("permission_type");
}

void WriteFilter(const AclFilterFields& f, int16_t v, Writer& w) {
  bool flexible = Flexible(v);
  w.Int8(f.resource_type);
  w.NullableString(f.resource_name, flexible);
  if (HasPattern(v)) w.Int8(f.pattern_type);
  w.NullableString(f.principal, flexible);
  w.NullableString(f.host, flexible);
  w.Int8(f.operation);
  w.Int8(f.permission_type);
}

// A binding's fields as CreateAcls and a DeleteAcls match carry them.
void ReadBinding(Reader& r, int16_t v, AclCreation& a) {
  bool flexible = Flexible(v);
  a.resource_type = r.Int8("resource_type");
  a.resource_name = r.String(flexible, "resource_name");
  if (HasPattern(v)) a.pattern_type = r.Int8("pattern_type");
  a.principal = r.String(flexible, "principal");
  a.host = r.String(flexible, "host");
  a.operation = r.Int8("operation");
  a.permission_type = r.Int8("permission_type");
}

void WriteBinding(const AclCreation& a, int16_t v, Writer& w) {
  bool flexible = Flexible(v);
  w.Int8(a.resource_type);
  w.String(a.resource_name, flexible);
  if (HasPattern(v)) w.Int8(a.pattern_type);
  w.String(a.principal, flexible);
  w.String(a.host, flexible);
  w.Int8(a.operation);
  w.Int8(a.permission_type);
}

void EndStruct(Reader& r, int16_t v, const char* what) {
  if (Flexible(v)) r.SkipTaggedFields(what);
}
void EndStruct(Writer& w, int16_t v) {
  if (Flexible(v)) w.EmptyTaggedFields();
}

}  // namespace

absl::StatusOr<DescribeAclsRequest> ReadDescribeAclsRequest(Reader& r, int16_t v) {
  DescribeAclsRequest req;
  ReadFilter(r, v, req);
  EndStruct(r, v, "DescribeAclsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeAclsRequest(const DescribeAclsRequest& req, int16_t v, Writer& w) {
  WriteFilter(req, v, w);
  EndStruct(w, v);
}

void WriteDescribeAclsResponse(const DescribeAclsResponse& resp, int16_t v, Writer& w) {
  bool flexible = Flexible(v);
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, flexible);
  w.ArrayLength(static_cast<int32_t>(resp.resources.size()), flexible);
  for (const auto& res : resp.resources) {
    w.Int8(res.resource_type);
    w.String(res.resource_name, flexible);
    if (HasPattern(v)) w.Int8(res.pattern_type);
    w.ArrayLength(static_cast<int32_t>(res.acls.size()), flexible);
    for (const auto& acl : res.acls) {
      w.String(acl.principal, flexible);
      w.String(acl.host, flexible);
      w.Int8(acl.operation);
      w.Int8(acl.permission_type);
      EndStruct(w, v);
    }
    EndStruct(w, v);
  }
  EndStruct(w, v);
}

absl::StatusOr<DescribeAclsResponse> ReadDescribeAclsResponse(Reader& r, int16_t v) {
  bool flexible = Flexible(v);
  DescribeAclsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(flexible, "error_message");
  int32_t n = r.ArrayLength(flexible, "resources");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DescribeAclsResponse::Resource res;
    res.resource_type = r.Int8("resource_type");
    res.resource_name = r.String(flexible, "resource_name");
    if (HasPattern(v)) res.pattern_type = r.Int8("pattern_type");
    int32_t acls = r.ArrayLength(flexible, "acls");
    for (int32_t j = 0; j < acls && r.ok(); ++j) {
      DescribeAclsResponse::Acl acl;
      acl.principal = r.String(flexible, "principal");
      acl.host = r.String(flexible, "host");
      acl.operation = r.Int8("operation");
      acl.permission_type = r.Int8("permission_type");
      EndStruct(r, v, "AclDescription tagged fields");
      res.acls.push_back(std::move(acl));
    }
    EndStruct(r, v, "DescribeAclsResource tagged fields");
    resp.resources.push_back(std::move(res));
  }
  EndStruct(r, v, "DescribeAclsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

absl::StatusOr<CreateAclsRequest> ReadCreateAclsRequest(Reader& r, int16_t v) {
  CreateAclsRequest req;
  int32_t n = r.ArrayLength(Flexible(v), "creations");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    AclCreation a;
    ReadBinding(r, v, a);
    EndStruct(r, v, "AclCreation tagged fields");
    req.creations.push_back(std::move(a));
  }
  EndStruct(r, v, "CreateAclsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteCreateAclsRequest(const CreateAclsRequest& req, int16_t v, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(req.creations.size()), Flexible(v));
  for (const auto& a : req.creations) {
    WriteBinding(a, v, w);
    EndStruct(w, v);
  }
  EndStruct(w, v);
}

void WriteCreateAclsResponse(const CreateAclsResponse& resp, int16_t v, Writer& w) {
  bool flexible = Flexible(v);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), flexible);
  for (const auto& result : resp.results) {
    w.Int16(result.error_code);
    w.NullableString(result.error_message, flexible);
    EndStruct(w, v);
  }
  EndStruct(w, v);
}

absl::StatusOr<CreateAclsResponse> ReadCreateAclsResponse(Reader& r, int16_t v) {
  bool flexible = Flexible(v);
  CreateAclsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    CreateAclsResponse::Result result;
    result.error_code = r.Int16("error_code");
    result.error_message = r.NullableString(flexible, "error_message");
    EndStruct(r, v, "AclCreationResult tagged fields");
    resp.results.push_back(std::move(result));
  }
  EndStruct(r, v, "CreateAclsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

absl::StatusOr<DeleteAclsRequest> ReadDeleteAclsRequest(Reader& r, int16_t v) {
  DeleteAclsRequest req;
  int32_t n = r.ArrayLength(Flexible(v), "filters");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    AclFilterFields f;
    ReadFilter(r, v, f);
    EndStruct(r, v, "DeleteAclsFilter tagged fields");
    req.filters.push_back(std::move(f));
  }
  EndStruct(r, v, "DeleteAclsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDeleteAclsRequest(const DeleteAclsRequest& req, int16_t v, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(req.filters.size()), Flexible(v));
  for (const auto& f : req.filters) {
    WriteFilter(f, v, w);
    EndStruct(w, v);
  }
  EndStruct(w, v);
}

void WriteDeleteAclsResponse(const DeleteAclsResponse& resp, int16_t v, Writer& w) {
  bool flexible = Flexible(v);
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.filter_results.size()), flexible);
  for (const auto& fr : resp.filter_results) {
    w.Int16(fr.error_code);
    w.NullableString(fr.error_message, flexible);
    w.ArrayLength(static_cast<int32_t>(fr.matching_acls.size()), flexible);
    for (const auto& m : fr.matching_acls) {
      w.Int16(m.error_code);
      w.NullableString(m.error_message, flexible);
      WriteBinding(m.acl, v, w);
      EndStruct(w, v);
    }
    EndStruct(w, v);
  }
  EndStruct(w, v);
}

absl::StatusOr<DeleteAclsResponse> ReadDeleteAclsResponse(Reader& r, int16_t v) {
  bool flexible = Flexible(v);
  DeleteAclsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(flexible, "filter_results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DeleteAclsResponse::FilterResult fr;
    fr.error_code = r.Int16("error_code");
    fr.error_message = r.NullableString(flexible, "error_message");
    int32_t m = r.ArrayLength(flexible, "matching_acls");
    for (int32_t j = 0; j < m && r.ok(); ++j) {
      DeleteAclsResponse::Matching match;
      match.error_code = r.Int16("error_code");
      match.error_message = r.NullableString(flexible, "error_message");
      ReadBinding(r, v, match.acl);
      EndStruct(r, v, "DeleteAclsMatchingAcl tagged fields");
      fr.matching_acls.push_back(std::move(match));
    }
    EndStruct(r, v, "DeleteAclsFilterResult tagged fields");
    resp.filter_results.push_back(std::move(fr));
  }
  EndStruct(r, v, "DeleteAclsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
