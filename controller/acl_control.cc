#include "controller/acl_control.h"

#include <set>

#include "absl/strings/str_cat.h"

namespace strata::controller {

security::AclBinding FromProto(const admin::v1::AclBinding& b) { return security::AclBindingOf(b); }

admin::v1::AclBinding ToProto(const security::AclBinding& b) {
  admin::v1::AclBinding out;
  security::SetAclBindingFields(b, &out);
  return out;
}

security::AclFilter FromProto(const admin::v1::AclFilter& f) {
  security::AclFilter out;
  out.resource_type = static_cast<security::ResourceType>(f.resource_type());
  if (f.has_resource_name()) out.resource_name = f.resource_name();
  out.pattern_type = static_cast<security::PatternType>(f.pattern_type());
  if (f.has_principal()) out.principal = f.principal();
  if (f.has_host()) out.host = f.host();
  out.operation = static_cast<security::AclOperation>(f.operation());
  out.permission = static_cast<security::AclPermission>(f.permission_type());
  return out;
}

std::vector<Plan> PlanCreateAcls(const MetadataImage& image, const admin::v1::CreateAclsRequest& request,
                                 const std::function<std::string()>& new_id) {
  std::vector<Plan> plans;
  std::vector<security::AclBinding> existing = image.security().AclBindings();
  for (const admin::v1::AclBinding& proto : request.creations()) {
    Plan plan;
    security::AclBinding b = FromProto(proto);
    if (std::optional<std::string> why = security::InvalidBinding(b)) {
      plan.outcome = {ErrorCode::kInvalidRequest, absl::StrCat("invalid ACL ", security::ToString(b), ": ", *why)};
    } else if (std::find(existing.begin(), existing.end(), b) == existing.end()) {
      existing.push_back(b);  // a second copy in the same request is created once
      pb::MetadataRecord r;
      pb::AccessControlEntry* a = r.mutable_access_control_entry();
      a->set_id(new_id());
      security::SetAclBindingFields(b, a);
      plan.records.push_back(std::move(r));
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

std::vector<DeletePlan> PlanDeleteAcls(const MetadataImage& image, const admin::v1::DeleteAclsRequest& request) {
  std::vector<DeletePlan> plans;
  std::set<std::string> removed;
  for (const admin::v1::AclFilter& proto : request.filters()) {
    DeletePlan p;
    security::AclFilter filter = FromProto(proto);
    if (std::optional<std::string> why = security::InvalidFilter(filter)) {
      p.plan.outcome = {ErrorCode::kInvalidRequest, absl::StrCat("invalid ACL filter: ", *why)};
    } else {
      for (const std::string& id : image.security().MatchingAclIds(filter)) {
        if (!removed.insert(id).second) continue;
        pb::MetadataRecord r;
        r.mutable_remove_access_control_entry()->set_id(id);
        p.plan.records.push_back(std::move(r));
        p.deleted.push_back(SecurityImage::BindingOf(image.security().acls().at(id)));
      }
    }
    plans.push_back(std::move(p));
  }
  return plans;
}

}  // namespace strata::controller
