#pragma once
// What the active controller decides on ACLs (KIP-140), as pure functions of the image
// and a request, as ClusterControl does for topics (cluster_control.h):
//  * CreateAcls: each binding is checked (security::InvalidBinding: INVALID_REQUEST with
//    the reason) and becomes an AccessControlEntry record with a new id; a binding that
//    exists already, or is named twice, is created once and answers success, as Kafka.
//  * DeleteAcls: each filter is checked (security::InvalidFilter) and every binding it
//    matches is removed and listed under it; a binding two filters match is removed
//    once, listed under the first.
// The controller answers SECURITY_DISABLED when no authorizer is configured (in
// QuorumController), before these run.
// Thread-safe (stateless).

#include <functional>
#include <string>
#include <vector>

#include "admin.pb.h"
#include "controller/cluster_control.h"
#include "controller/metadata_image.h"
#include "security/acl.h"

namespace strata::controller {

security::AclBinding FromProto(const admin::v1::AclBinding& b);
admin::v1::AclBinding ToProto(const security::AclBinding& b);
security::AclFilter FromProto(const admin::v1::AclFilter& f);

// One Plan per creation, in order. new_id: a fresh 16-byte id.
std::vector<Plan> PlanCreateAcls(const MetadataImage& image, const admin::v1::CreateAclsRequest& request,
                                 const std::function<std::string()>& new_id);

struct DeletePlan {
  Plan plan;
  std::vector<security::AclBinding> deleted;
};
// One DeletePlan per filter, in order.
std::vector<DeletePlan> PlanDeleteAcls(const MetadataImage& image, const admin::v1::DeleteAclsRequest& request);

}  // namespace strata::controller
