#pragma once
// Who may call which control-plane RPC. On a TLS port every caller has a verified
// client certificate (security/grpc_tls.h); its identity is the certificate's subject
// mapped by ssl.principal.mapping.rules (`User:<name>`) and the node ids its URIs claim
// (security/node_identity.h). The rules, checked at the start of each RPC:
//   - Raft (Deliver, InstallSnapshot): a voter of controller.quorum.voters (or of a
//     dynamic quorum's configuration, or the learner it adds) whose certificate names it
//     as that controller, and only for messages from that id;
//   - the broker lifecycle (ControllerService) and the metadata stream (Observe): a
//     broker, for its own id;
//   - the Admin service: a broker (it forwards its clients' requests, having
//     authorized them itself), a super user, or a principal the ACL check allows.
// A refusal is PERMISSION_DENIED (UNAUTHENTICATED when no principal can be made of the
// certificate), counted and logged (at most 10 lines a second); the RPC does nothing else.
// On a plaintext port there is no identity and every call is allowed (local
// development; the node warns at start when such a port is not on loopback).
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/log_rate_limit.h"
#include "security/node_identity.h"
#include "security/principal_mapping.h"

namespace grpc {
class ServerContext;
class Status;
}  // namespace grpc

namespace strata::security {

struct ControlPlaneCaller {
  bool authenticated = false;  // a verified client certificate that maps to a principal
  std::string principal;       // "User:<name>"; "User:ANONYMOUS" on plaintext
  NodeClaims claims;
  std::string host;            // the peer's address, as gRPC names it
};

class ControlPlaneAuthorizer {
 public:
  struct Options {
    bool secure = false;  // the port is TLS (false: every call is allowed)
    // A static quorum's voters at start; SetQuorumMembers replaces them as the
    // configuration changes (a dynamic quorum's, KIP-853, or an upgraded static one's).
    std::set<int32_t> voters;
    bool dynamic_quorum = false;
    PrincipalMapper mapper;
    std::set<std::string> super_users;  // "User:name", as super.users lists them
    // The Admin service's check for a principal that is neither a broker nor a super
    // user (the ACLs); unset: every authenticated principal is allowed, as Kafka allows
    // everything when no authorizer is configured.
    std::function<bool(const ControlPlaneCaller&, absl::string_view rpc)> admin_acl;
  };

  explicit ControlPlaneAuthorizer(Options options) : options_(std::move(options)), members_(options_.voters) {}
  // The quorum's members, as the node's configuration changes: its voters and a
  // learner being added, who may send Raft calls. Until the node knows any (a controller
  // formatted with --no-initial-controllers), a call from any controller its
  // certificate names is served: the leader adding it is not in its log yet.
  void SetQuorumMembers(std::set<int32_t> members) ABSL_LOCKS_EXCLUDED(mu_);

  ControlPlaneCaller CallerOf(const grpc::ServerContext& context) const;

  // from: the node id the call's Raft messages say they come from (-1: any voter the
  // certificate names).
  grpc::Status RequireVoter(const grpc::ServerContext& context, absl::string_view rpc, int32_t from) const;
  // broker_id: the id the request names (-1: any broker).
  grpc::Status RequireBroker(const grpc::ServerContext& context, absl::string_view rpc, int32_t broker_id) const;
  grpc::Status RequireAdmin(const grpc::ServerContext& context, absl::string_view rpc) const;
  // UpdateRaftVoter (KIP-853): the controller the request is about (a certificate naming
  // it: a voter telling the leader its new endpoint), or whom RequireAdmin allows.
  grpc::Status RequireAdminOrController(const grpc::ServerContext& context, absl::string_view rpc,
                                        int32_t controller_id) const;
  // Who may read the quorum's state (RaftTransport.DescribeQuorum): a controller (a node
  // resolving controller.quorum.bootstrap.servers), a broker, or whom RequireAdmin allows.
  grpc::Status RequireQuorumReader(const grpc::ServerContext& context, absl::string_view rpc) const;

  bool secure() const { return options_.secure; }
  int64_t denied() const { return denied_.load(); }

 private:
  grpc::Status Deny(const ControlPlaneCaller& caller, absl::string_view rpc, absl::string_view why) const;

  // Whether id may send Raft calls (a member; in a dynamic quorum that knows none, anyone).
  bool IsMember(int32_t id) const ABSL_LOCKS_EXCLUDED(mu_);
  const Options options_;
  mutable absl::Mutex mu_;
  std::set<int32_t> members_ ABSL_GUARDED_BY(mu_);
  static constexpr int kLogLinesPerSecond = 10;
  mutable std::atomic<int64_t> denied_{0};
  mutable LogRateLimit log_limit_{kLogLinesPerSecond};
};

}  // namespace strata::security
