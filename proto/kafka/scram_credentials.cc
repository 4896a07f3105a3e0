#include "proto/kafka/scram_credentials.h"

namespace strata::proto::kafka {
namespace {

constexpr bool kFlexible = true;  // v0 is flexible for both APIs

}  // namespace

absl::StatusOr<DescribeUserScramCredentialsRequest> ReadDescribeUserScramCredentialsRequest(Reader& r, int16_t) {
  DescribeUserScramCredentialsRequest req;
  int32_t n = r.ArrayLength(kFlexible, "users");
  if (n >= 0) {
    req.users.emplace();
    for (int32_t i = 0; i < n && r.ok(); ++i) {
      req.users->push_back(r.String(kFlexible, "name"));
      r.SkipTaggedFields("UserName tagged fields");
    }
  }
  r.SkipTaggedFields("DescribeUserScramCredentialsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteDescribeUserScramCredentialsRequest(const DescribeUserScramCredentialsRequest& req, int16_t, Writer& w) {
  if (!req.users) {
    w.ArrayLength(-1, kFlexible);
  } else {
    w.ArrayLength(static_cast<int32_t>(req.users->size()), kFlexible);
    for (const std::string& u : *req.users) {
      w.String(u, kFlexible);
      w.EmptyTaggedFields();
    }
  }
  w.EmptyTaggedFields();
}

void WriteDescribeUserScramCredentialsResponse(const DescribeUserScramCredentialsResponse& resp, int16_t, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), kFlexible);
  for (const auto& result : resp.results) {
    w.String(result.user, kFlexible);
    w.Int16(result.error_code);
    w.NullableString(result.error_message, kFlexible);
    w.ArrayLength(static_cast<int32_t>(result.credential_infos.size()), kFlexible);
    for (const auto& info : result.credential_infos) {
      w.Int8(info.mechanism);
      w.Int32(info.iterations);
      w.EmptyTaggedFields();
    }
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<DescribeUserScramCredentialsResponse> ReadDescribeUserScramCredentialsResponse(Reader& r, int16_t) {
  DescribeUserScramCredentialsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  resp.error_code = r.Int16("error_code");
  resp.error_message = r.NullableString(kFlexible, "error_message");
  int32_t n = r.ArrayLength(kFlexible, "results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    DescribeUserScramCredentialsResponse::Result result;
    result.user = r.String(kFlexible, "user");
    result.error_code = r.Int16("error_code");
    result.error_message = r.NullableString(kFlexible, "error_message");
    int32_t infos = r.ArrayLength(kFlexible, "credential_infos");
    for (int32_t j = 0; j < infos && r.ok(); ++j) {
      DescribeUserScramCredentialsResponse::CredentialInfo info;
      info.mechanism = r.Int8("mechanism");
      info.iterations = r.Int32("iterations");
      r.SkipTaggedFields("CredentialInfo tagged fields");
      result.credential_infos.push_back(info);
    }
    r.SkipTaggedFields("DescribeUserScramCredentialsResult tagged fields");
    resp.results.push_back(std::move(result));
  }
  r.SkipTaggedFields("DescribeUserScramCredentialsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

absl::StatusOr<AlterUserScramCredentialsRequest> ReadAlterUserScramCredentialsRequest(Reader& r, int16_t) {
  AlterUserScramCredentialsRequest req;
  int32_t deletions = r.ArrayLength(kFlexible, "deletions");
  for (int32_t i = 0; i < deletions && r.ok(); ++i) {
    AlterUserScramCredentialsRequest::Deletion d;
    d.name = r.String(kFlexible, "name");
    d.mechanism = r.Int8("mechanism");
    r.SkipTaggedFields("ScramCredentialDeletion tagged fields");
    req.deletions.push_back(std::move(d));
  }
  int32_t upsertions = r.ArrayLength(kFlexible, "upsertions");
  for (int32_t i = 0; i < upsertions && r.ok(); ++i) {
    AlterUserScramCredentialsRequest::Upsertion u;
    u.name = r.String(kFlexible, "name");
    u.mechanism = r.Int8("mechanism");
    u.iterations = r.Int32("iterations");
    u.salt = r.Bytes(kFlexible, "salt");
    u.salted_password = r.Bytes(kFlexible, "salted_password");
    r.SkipTaggedFields("ScramCredentialUpsertion tagged fields");
    req.upsertions.push_back(std::move(u));
  }
  r.SkipTaggedFields("AlterUserScramCredentialsRequest tagged fields");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAlterUserScramCredentialsRequest(const AlterUserScramCredentialsRequest& req, int16_t, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(req.deletions.size()), kFlexible);
  for (const auto& d : req.deletions) {
    w.String(d.name, kFlexible);
    w.Int8(d.mechanism);
    w.EmptyTaggedFields();
  }
  w.ArrayLength(static_cast<int32_t>(req.upsertions.size()), kFlexible);
  for (const auto& u : req.upsertions) {
    w.String(u.name, kFlexible);
    w.Int8(u.mechanism);
    w.Int32(u.iterations);
    w.Bytes(u.salt, kFlexible);
    w.Bytes(u.salted_password, kFlexible);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

void WriteAlterUserScramCredentialsResponse(const AlterUserScramCredentialsResponse& resp, int16_t, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.ArrayLength(static_cast<int32_t>(resp.results.size()), kFlexible);
  for (const auto& result : resp.results) {
    w.String(result.user, kFlexible);
    w.Int16(result.error_code);
    w.NullableString(result.error_message, kFlexible);
    w.EmptyTaggedFields();
  }
  w.EmptyTaggedFields();
}

absl::StatusOr<AlterUserScramCredentialsResponse> ReadAlterUserScramCredentialsResponse(Reader& r, int16_t) {
  AlterUserScramCredentialsResponse resp;
  resp.throttle_time_ms = r.Int32("throttle_time_ms");
  int32_t n = r.ArrayLength(kFlexible, "results");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    AlterUserScramCredentialsResponse::Result result;
    result.user = r.String(kFlexible, "user");
    result.error_code = r.Int16("error_code");
    result.error_message = r.NullableString(kFlexible, "error_message");
    r.SkipTaggedFields("AlterUserScramCredentialsResult tagged fields");
    resp.results.push_back(std::move(result));
  }
  r.SkipTaggedFields("AlterUserScramCredentialsResponse tagged fields");
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
