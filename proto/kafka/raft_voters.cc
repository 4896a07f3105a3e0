#include "proto/kafka/raft_voters.h"

namespace strata::proto::kafka {
namespace {

// Every version of the three APIs is flexible.
constexpr bool kFlexible = true;

// A voter's key: its id and the directory id of its metadata log dir.
void WriteVoterKey(int32_t id, const std::string& directory_id, Writer& w) {
  w.Int32(id);
  w.Uuid(directory_id);
}

}  // namespace

absl::StatusOr<AddRaftVoterRequest> ReadAddRaftVoterRequest(Reader& r, int16_t version) {
  AddRaftVoterRequest req;
  req.cluster_id = r.NullableString(kFlexible, "ClusterId");
  req.timeout_ms = r.Int32("TimeoutMs");
  req.voter_id = r.Int32("VoterId");
  req.voter_directory_id = r.Uuid("VoterDirectoryId");
  req.listeners = ReadListeners(r);
  if (version >= 1) req.ack_when_committed = r.Bool("AckWhenCommitted");
  r.SkipTaggedFields("AddRaftVoterRequest");
  if (!r.ok()) return r.status();
  return req;
}

void WriteAddRaftVoterRequest(const AddRaftVoterRequest& req, int16_t version, Writer& w) {
  w.NullableString(req.cluster_id, kFlexible);
  w.Int32(req.timeout_ms);
  WriteVoterKey(req.voter_id, req.voter_directory_id, w);
  WriteListeners(req.listeners, w);
  if (version >= 1) w.Bool(req.ack_when_committed);
  w.EmptyTaggedFields();
}

absl::StatusOr<RemoveRaftVoterRequest> ReadRemoveRaftVoterRequest(Reader& r, int16_t /*version*/) {
  RemoveRaftVoterRequest req;
  req.cluster_id = r.NullableString(kFlexible, "ClusterId");
  req.voter_id = r.Int32("VoterId");
  req.voter_directory_id = r.Uuid("VoterDirectoryId");
  r.SkipTaggedFields("RemoveRaftVoterRequest");
  if (!r.ok()) return r.status();
  return req;
}

void WriteRemoveRaftVoterRequest(const RemoveRaftVoterRequest& req, int16_t /*version*/, Writer& w) {
  w.NullableString(req.cluster_id, kFlexible);
  WriteVoterKey(req.voter_id, req.voter_directory_id, w);
  w.EmptyTaggedFields();
}

absl::StatusOr<UpdateRaftVoterRequest> ReadUpdateRaftVoterRequest(Reader& r, int16_t /*version*/) {
  UpdateRaftVoterRequest req;
  req.cluster_id = r.NullableString(kFlexible, "ClusterId");
  req.current_leader_epoch = r.Int32("CurrentLeaderEpoch");
  req.voter_id = r.Int32("VoterId");
  req.voter_directory_id = r.Uuid("VoterDirectoryId");
  req.listeners = ReadListeners(r);
  req.min_supported_version = r.Int16("KRaftVersionFeature.MinSupportedVersion");
  req.max_supported_version = r.Int16("KRaftVersionFeature.MaxSupportedVersion");
  r.SkipTaggedFields("KRaftVersionFeature");
  r.SkipTaggedFields("UpdateRaftVoterRequest");
  if (!r.ok()) return r.status();
  return req;
}

void WriteUpdateRaftVoterRequest(const UpdateRaftVoterRequest& req, int16_t /*version*/, Writer& w) {
  w.NullableString(req.cluster_id, kFlexible);
  w.Int32(req.current_leader_epoch);
  WriteVoterKey(req.voter_id, req.voter_directory_id, w);
  WriteListeners(req.listeners, w);
  w.Int16(req.min_supported_version);
  w.Int16(req.max_supported_version);
  w.EmptyTaggedFields();  // KRaftVersionFeature's
  w.EmptyTaggedFields();
}

void WriteRaftVoterResponse(const RaftVoterResponse& resp, int16_t /*version*/, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  w.NullableString(resp.error_message, kFlexible);
  w.EmptyTaggedFields();
}

absl::StatusOr<RaftVoterResponse> ReadRaftVoterResponse(Reader& r, int16_t /*version*/) {
  RaftVoterResponse resp;
  resp.throttle_time_ms = r.Int32("ThrottleTimeMs");
  resp.error_code = r.Int16("ErrorCode");
  resp.error_message = r.NullableString(kFlexible, "ErrorMessage");
  r.SkipTaggedFields("RaftVoterResponse");
  if (!r.ok()) return r.status();
  return resp;
}

void WriteUpdateRaftVoterResponse(const UpdateRaftVoterResponse& resp, int16_t /*version*/, Writer& w) {
  w.Int32(resp.throttle_time_ms);
  w.Int16(resp.error_code);
  std::vector<TaggedField> tagged;
  if (resp.current_leader) {
    std::string data;
    Writer field(&data);
    field.Int32(resp.current_leader->leader_id);
    field.Int32(resp.current_leader->leader_epoch);
    field.String(resp.current_leader->host, kFlexible);
    field.Int32(resp.current_leader->port);
    field.EmptyTaggedFields();
    tagged.push_back({0, std::move(data)});
  }
  w.TaggedFields(tagged);
}

absl::StatusOr<UpdateRaftVoterResponse> ReadUpdateRaftVoterResponse(Reader& r, int16_t /*version*/) {
  UpdateRaftVoterResponse resp;
  resp.throttle_time_ms = r.Int32("ThrottleTimeMs");
  resp.error_code = r.Int16("ErrorCode");
  r.ReadTaggedFields("UpdateRaftVoterResponse", [&](uint32_t tag, Reader& field) {
    if (tag != 0) return;
    UpdateRaftVoterResponse::CurrentLeader leader;
    leader.leader_id = field.Int32("CurrentLeader.LeaderId");
    leader.leader_epoch = field.Int32("CurrentLeader.LeaderEpoch");
    leader.host = field.String(kFlexible, "CurrentLeader.Host");
    leader.port = field.Int32("CurrentLeader.Port");
    field.SkipTaggedFields("CurrentLeader");
    resp.current_leader = std::move(leader);
  });
  if (!r.ok()) return r.status();
  return resp;
}

}  // namespace strata::proto::kafka
