#include "controller/client_quota_control.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"

namespace strata::controller {

namespace pb = metadata::v1;

namespace {

Outcome Refused(absl::string_view message) { return {ErrorCode::kInvalidRequest, std::string(message)}; }

Plan PlanEntry(const MetadataImage& image, const ClientQuotaEntity& entity, const admin::v1::ClientQuotaAlteration& entry) {
  Plan plan;
  const auto& current = image.client_quotas().quotas();
  auto values = current.find(entity);
  std::set<std::string> keys;
  for (const admin::v1::ClientQuotaOp& op : entry.ops()) {
    if (!keys.insert(op.key()).second) {
      return {Refused(absl::StrCat("Quota key ", op.key(), " appears twice for ", EntityText(entity), ".")), {}};
    }
    bool set = values != current.end() && values->second.count(op.key()) > 0;
    if (op.remove()) {
      // As Kafka, an unknown key is refused even when removed.
      if (absl::Status ok = CheckQuotaValue(entity, op.key(), 1); !ok.ok()) return {Refused(ok.message()), {}};
      if (!set) continue;
    } else {
      if (absl::Status ok = CheckQuotaValue(entity, op.key(), op.value()); !ok.ok()) return {Refused(ok.message()), {}};
      if (set && values->second.at(op.key()) == op.value()) continue;
    }
    pb::MetadataRecord record;
    pb::ClientQuota* q = record.mutable_client_quota();
    AddParts(entity, q->mutable_entity());
    q->set_key(op.key());
    q->set_remove(op.remove());
    if (!op.remove()) q->set_value(op.value());
    plan.records.push_back(std::move(record));
  }
  return plan;
}

}  // namespace

std::vector<Plan> PlanAlterClientQuotas(const MetadataImage& image, const admin::v1::AlterClientQuotasRequest& request) {
  std::vector<Plan> plans;
  std::set<ClientQuotaEntity> named;
  for (const admin::v1::ClientQuotaAlteration& entry : request.entries()) {
    absl::StatusOr<ClientQuotaEntity> entity = EntityOf(entry.entity());
    if (!entity.ok()) {
      plans.push_back({Refused(entity.status().message()), {}});
    } else if (!named.insert(*entity).second) {
      plans.push_back({Refused(absl::StrCat("The entity ", EntityText(*entity), " is named twice in the request.")), {}});
    } else {
      plans.push_back(PlanEntry(image, *entity, entry));
    }
  }
  return plans;
}

admin::v1::DescribeClientQuotasResponse DescribeClientQuotas(const MetadataImage& image,
                                                             const admin::v1::DescribeClientQuotasRequest& request) {
  admin::v1::DescribeClientQuotasResponse response;
  std::vector<QuotaFilterComponent> components;
  for (const auto& c : request.components()) {
    QuotaFilterComponent out{c.entity_type(), c.match_type(), std::nullopt};
    if (c.has_match()) out.match = c.match();
    components.push_back(std::move(out));
  }
  auto described = image.client_quotas().Describe(components, request.strict());
  if (!described.ok()) {
    response.set_error_code(static_cast<int32_t>(ErrorCode::kInvalidRequest));
    response.set_error_message(std::string(described.status().message()));
    return response;
  }
  for (const auto& [entity, values] : *described) {
    pb::ClientQuotaValues* out = response.add_entries();
    AddParts(entity, out->mutable_entity());
    for (const auto& [k, v] : values) (*out->mutable_values())[k] = v;
  }
  return response;
}

}  // namespace strata::controller
