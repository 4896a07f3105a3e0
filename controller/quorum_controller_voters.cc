// The active controller's voter changes of a dynamic quorum (KIP-853; QuorumController,
// quorum_controller.h): AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter, and the
// upgrade of a static quorum to a dynamic one (UpdateFeatures kraft.version=1), each a
// raft::VoterChange through this node's core (raft/raft.h has the rules), its outcome
// under Kafka's error codes.

#include <chrono>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/host_port.h"
#include "base/logging.h"
#include "controller/quorum_controller.h"
#include "controller/admin_answers.h"
#include "controller/features.h"

namespace strata::controller {
namespace {

using proto::kafka::ErrorCode;

constexpr int32_t kDefaultTimeoutMs = 30000;

ErrorCode KafkaError(raft::VoterChangeError error) {
  using E = raft::VoterChangeError;
  switch (error) {
    case E::kNone: return ErrorCode::kNone;
    case E::kNotLeader:
    case E::kLeadershipLost: return ErrorCode::kNotController;
    case E::kStaticQuorum: return ErrorCode::kUnsupportedVersion;
    case E::kInProgress:
    case E::kNotReady:
    case E::kTimedOut: return ErrorCode::kRequestTimedOut;
    case E::kDuplicateVoter: return ErrorCode::kDuplicateVoter;
    case E::kVoterNotFound: return ErrorCode::kVoterNotFound;
    case E::kInvalidVoterKey: return ErrorCode::kInvalidVoterKey;
    case E::kInvalidRequest: return ErrorCode::kInvalidRequest;
  }
  return ErrorCode::kUnknownServerError;
}

template <typename Request>
raft::Voter VoterOf(const Request& request) {
  raft::Voter v;
  v.id = request.voter_id();
  v.directory_id = request.voter_directory_id();
  return v;
}

template <typename Request>
void AddEndpoints(const Request& request, raft::Voter* voter) {
  for (const admin::v1::RaftVoterEndpoint& e : request.listeners()) {
    // A port out of range is kept as 0, which ChangeRaftVoter refuses.
    const bool valid = e.port() > 0 && e.port() <= 65535;
    voter->endpoints.push_back({e.name(), e.host(), static_cast<uint16_t>(valid ? e.port() : 0)});
  }
}

const char* KindName(raft::VoterChange::Kind kind) {
  switch (kind) {
    case raft::VoterChange::Kind::kAdd: return "AddRaftVoter";
    case raft::VoterChange::Kind::kRemove: return "RemoveRaftVoter";
    case raft::VoterChange::Kind::kUpdate: return "UpdateRaftVoter";
    case raft::VoterChange::Kind::kUpgrade: return "kraft.version upgrade";
  }
  return "?";
}

}  // namespace

admin::v1::RaftVoterChangeResponse QuorumController::ChangeRaftVoter(const std::string& cluster_id,
                                                                     raft::VoterChange change, int32_t timeout_ms) {
  admin::v1::RaftVoterChangeResponse response;
  response.set_controller_id(node_.status().leader);
  auto refuse = [&](ErrorCode code, const std::string& message) {
    response.set_error_code(Code(code));
    response.set_error_message(message);
    spdlog::info("{} of voter {} refused: {}", KindName(change.kind), change.voter.id, message);
    return response;
  };
  if (!cluster_id.empty() && cluster_id != options_.cluster_id) {
    return refuse(ErrorCode::kInconsistentClusterId,
                  absl::StrCat("cluster id ", cluster_id, " is not this cluster's (", options_.cluster_id, ")"));
  }
  if (change.voter.id <= 0) return refuse(ErrorCode::kInvalidRequest, "the voter id must be positive");
  if (change.voter.directory_id.size() != 16) {
    return refuse(ErrorCode::kInvalidRequest,
                  absl::StrCat("the voter's directory id has ", change.voter.directory_id.size(),
                               " bytes, not 16 (meta.properties' directory.id of its metadata.log.dir)"));
  }
  if (change.kind != raft::VoterChange::Kind::kRemove) {
    bool named = false;
    for (const raft::Endpoint& e : change.voter.endpoints) {
      named = named || e.name == options_.controller_listener_name;
      if (e.port == 0 || e.host.empty()) {
        return refuse(ErrorCode::kInvalidRequest,
                      absl::StrCat("endpoint ", e.name, " has no host or no port of 1..65535"));
      }
    }
    if (!named) {
      return refuse(ErrorCode::kInvalidRequest, absl::StrCat("voter ", change.voter.id, " names no ",
                                                              options_.controller_listener_name,
                                                              " endpoint (controller.listener.names)"));
    }
  }
  const auto timeout = std::chrono::milliseconds(timeout_ms > 0 ? timeout_ms : kDefaultTimeoutMs);
  const auto start = std::chrono::steady_clock::now();
  raft::VoterChangeResult result = node_.ChangeVoters(change, timeout);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  response.set_controller_id(node_.status().leader);
  if (!result.ok()) return refuse(KafkaError(result.error), result.message);
  spdlog::info("{} of voter {} done in {} ms: voters {}", KindName(change.kind), change.voter.id, took.count(),
               node_.status().configuration.DebugString());
  return response;
}

admin::v1::RaftVoterChangeResponse QuorumController::AddRaftVoter(const admin::v1::AddRaftVoterRequest& request) {
  raft::VoterChange change;
  change.kind = raft::VoterChange::Kind::kAdd;
  change.voter = VoterOf(request);
  AddEndpoints(request, &change.voter);
  change.ack_when_committed = !request.ack_when_appended();
  return ChangeRaftVoter(request.cluster_id(), std::move(change), request.timeout_ms());
}

admin::v1::RaftVoterChangeResponse QuorumController::RemoveRaftVoter(const admin::v1::RemoveRaftVoterRequest& request) {
  raft::VoterChange change;
  change.kind = raft::VoterChange::Kind::kRemove;
  change.voter = VoterOf(request);
  return ChangeRaftVoter(request.cluster_id(), std::move(change), request.timeout_ms());
}

admin::v1::RaftVoterChangeResponse QuorumController::UpdateRaftVoter(const admin::v1::UpdateRaftVoterRequest& request) {
  raft::VoterChange change;
  change.kind = raft::VoterChange::Kind::kUpdate;
  change.voter = VoterOf(request);
  AddEndpoints(request, &change.voter);
  change.voter.min_kraft_version = static_cast<int16_t>(request.min_kraft_version());
  change.voter.max_kraft_version = static_cast<int16_t>(request.max_kraft_version());
  return ChangeRaftVoter(request.cluster_id(), std::move(change), request.timeout_ms());
}

std::optional<admin::v1::UpdateFeaturesResponse> QuorumController::UpgradeKraftVersion(
    const admin::v1::UpdateFeaturesRequest& request) {
  const admin::v1::FeatureUpdate* upgrade = nullptr;
  for (const admin::v1::FeatureUpdate& u : request.updates()) {
    if (u.feature() == kKraftVersionFeature && u.max_version_level() == raft::kKraftVersionDynamic &&
        u.upgrade_type() == admin::v1::FeatureUpdate::UPGRADE) {
      upgrade = &u;
    }
  }
  const raft::RaftNodeStatus st = node_.status();
  if (upgrade == nullptr || !st.configuration.is_static()) return std::nullopt;
  admin::v1::UpdateFeaturesResponse response;
  response.set_controller_id(st.leader);
  auto answer = [&](ErrorCode code, const std::string& message) {
    response.set_error_code(Code(code));
    response.set_error_message(message);
    spdlog::info("kraft.version upgrade {}{}", code == ErrorCode::kNone ? "done" : "refused: ",
                 code == ErrorCode::kNone ? "" : message);
    return response;
  };
  if (request.updates_size() != 1) {
    return answer(ErrorCode::kInvalidRequest, "kraft.version is upgraded alone, in a request of its own");
  }
  if (st.role != raft::Role::kLeader) {
    return answer(ErrorCode::kNotController, absl::StrCat("not the active controller; it is ", st.leader));
  }
  if (request.validate_only()) return answer(ErrorCode::kNone, "");
  raft::VoterChange change;
  change.kind = raft::VoterChange::Kind::kUpgrade;
  for (const auto& [id, text] : options_.voter_addresses) {
    absl::StatusOr<HostPort> address = ParseHostPort(text);
    ABSL_CHECK_OK(address.status());  // controller.quorum.voters was checked at start
    raft::Voter& v = change.voters.emplace_back();
    v.id = id;
    v.endpoints.push_back({options_.controller_listener_name, address->host, static_cast<uint16_t>(address->port)});
  }
  raft::VoterChangeResult result = node_.ChangeVoters(change, std::chrono::milliseconds(kDefaultTimeoutMs));
  response.set_controller_id(node_.status().leader);
  if (!result.ok()) return answer(KafkaError(result.error), result.message);
  spdlog::info("the quorum is dynamic now (kraft.version 1): voters {}", node_.status().configuration.DebugString());
  return answer(ErrorCode::kNone, "");
}

}  // namespace strata::controller
