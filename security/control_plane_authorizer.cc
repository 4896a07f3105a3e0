#include "security/control_plane_authorizer.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "base/logging.h"

namespace strata::security {
namespace {

std::string First(const grpc::AuthContext& auth, const char* property) {
  std::vector<grpc::string_ref> values = auth.FindPropertyValues(property);
  return values.empty() ? std::string() : std::string(values.front().data(), values.front().size());
}

}  // namespace

ControlPlaneCaller ControlPlaneAuthorizer::CallerOf(const grpc::ServerContext& context) const {
  ControlPlaneCaller caller;
  caller.host = context.peer();
  caller.principal = "User:ANONYMOUS";
  std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return caller;
  std::string subject = First(*auth, GRPC_X509_SUBJECT_PROPERTY_NAME);
  std::optional<std::string> name = options_.mapper.Map(subject);
  if (!name.has_value() || name->empty()) return caller;
  caller.authenticated = true;
  caller.principal = absl::StrCat("User:", *name);
  std::vector<std::string> uris;
  for (const grpc::string_ref& uri : auth->FindPropertyValues(GRPC_PEER_URI_PROPERTY_NAME)) {
    uris.emplace_back(uri.data(), uri.size());
  }
  caller.claims = ClaimsOf(uris);
  return caller;
}

grpc::Status ControlPlaneAuthorizer::Deny(const ControlPlaneCaller& caller, absl::string_view rpc,
                                          absl::string_view why) const {
  ++denied_;
  std::string what = absl::StrCat(rpc, " refused to ", caller.principal, " from ", caller.host, ": ", why);
  int64_t unlogged = 0;
  if (log_limit_.Admit(&unlogged)) {
    spdlog::warn("control plane: {}{}", what,
                 unlogged > 0 ? absl::StrCat(" (", unlogged, " earlier refusals were not logged)") : std::string());
  }
  return grpc::Status(caller.authenticated ? grpc::StatusCode::PERMISSION_DENIED : grpc::StatusCode::UNAUTHENTICATED,
                      what);
}

grpc::Status ControlPlaneAuthorizer::RequireVoter(const grpc::ServerContext& context, absl::string_view rpc,
                                                  int32_t from) const {
  if (!options_.secure) return grpc::Status::OK;
  ControlPlaneCaller caller = CallerOf(context);
  if (!caller.authenticated) return Deny(caller, rpc, "no principal");
  if (from < 0) {
    for (int32_t id : caller.claims.controllers) {
      if (IsMember(id)) return grpc::Status::OK;
    }
    return Deny(caller, rpc, "the certificate names no voter");
  }
  if (!IsMember(from)) return Deny(caller, rpc, absl::StrCat("node ", from, " is not a voter"));
  if (!caller.claims.controllers.count(from)) {
    return Deny(caller, rpc, absl::StrCat("the certificate does not name controller ", from));
  }
  return grpc::Status::OK;
}

grpc::Status ControlPlaneAuthorizer::RequireBroker(const grpc::ServerContext& context, absl::string_view rpc,
                                                   int32_t broker_id) const {
  if (!options_.secure) return grpc::Status::OK;
  ControlPlaneCaller caller = CallerOf(context);
  if (!caller.authenticated) return Deny(caller, rpc, "no principal");
  if (broker_id < 0 ? caller.claims.brokers.empty() : !caller.claims.brokers.count(broker_id)) {
    return Deny(caller, rpc,
                broker_id < 0 ? std::string("the certificate names no broker")
                              : absl::StrCat("the certificate does not name broker ", broker_id));
  }
  return grpc::Status::OK;
}

grpc::Status ControlPlaneAuthorizer::RequireAdmin(const grpc::ServerContext& context, absl::string_view rpc) const {
  if (!options_.secure) return grpc::Status::OK;
  ControlPlaneCaller caller = CallerOf(context);
  if (!caller.authenticated) return Deny(caller, rpc, "no principal");
  if (!caller.claims.brokers.empty() || options_.super_users.count(caller.principal)) return grpc::Status::OK;
  if (options_.admin_acl && !options_.admin_acl(caller, rpc)) return Deny(caller, rpc, "not authorized");
  return grpc::Status::OK;
}

void ControlPlaneAuthorizer::SetQuorumMembers(std::set<int32_t> members) {
  absl::MutexLock lock(&mu_);
  members_ = std::move(members);
}

bool ControlPlaneAuthorizer::IsMember(int32_t id) const {
  absl::MutexLock lock(&mu_);
  return members_.count(id) > 0 || (options_.dynamic_quorum && members_.empty());
}

grpc::Status ControlPlaneAuthorizer::RequireAdminOrController(const grpc::ServerContext& context,
                                                              absl::string_view rpc, int32_t controller_id) const {
  if (!options_.secure) return grpc::Status::OK;
  if (CallerOf(context).claims.controllers.count(controller_id) > 0) return grpc::Status::OK;
  return RequireAdmin(context, rpc);
}

grpc::Status ControlPlaneAuthorizer::RequireQuorumReader(const grpc::ServerContext& context,
                                                         absl::string_view rpc) const {
  if (!options_.secure) return grpc::Status::OK;
  if (!CallerOf(context).claims.controllers.empty()) return grpc::Status::OK;
  return RequireAdmin(context, rpc);
}

}  // namespace strata::security
