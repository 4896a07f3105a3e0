#pragma once
// What the active controller decides on client quotas (KIP-546), as pure functions of
// the image and a request, as scram_control.h does for SCRAM credentials. Kafka's rules
// (ClientQuotaControlManager): one result per entry, in order; a bad entity or a bad key
// or value (client_quotas_image.h) is INVALID_REQUEST for its entry, as is an entity
// named twice in one request or a key twice in one entry; an entry's changes are written
// all or none; removing a value that is not set changes nothing. Values are kept as
// given: a whole-number key is checked, not rounded.
// Thread-safe (stateless).

#include <vector>

#include "admin.pb.h"
#include "controller/metadata_image.h"
#include "controller/plan.h"

namespace strata::controller {

// One Plan per entry of the request, in order.
std::vector<Plan> PlanAlterClientQuotas(const MetadataImage& image, const admin::v1::AlterClientQuotasRequest& request);

// ClientQuotasImage::Describe as the Admin service answers it.
admin::v1::DescribeClientQuotasResponse DescribeClientQuotas(const MetadataImage& image,
                                                             const admin::v1::DescribeClientQuotasRequest& request);

}  // namespace strata::controller
