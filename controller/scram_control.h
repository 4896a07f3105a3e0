#pragma once
// What the active controller decides on SCRAM credentials (KIP-554), as pure functions
// of the image and a request, as ClusterControl does for topics (cluster_control.h).
// Kafka's rules: one result per user, in the order first named; a user named twice for
// one mechanism is DUPLICATE_RESOURCE; an empty name or a credential outside 4096..16384
// iterations, or without salt or salted password, UNACCEPTABLE_CREDENTIAL; a mechanism
// other than SCRAM-SHA-256 (1) or SCRAM-SHA-512 (2) UNSUPPORTED_SASL_MECHANISM; removing
// a credential that does not exist RESOURCE_NOT_FOUND. A user's changes are written all
// or none. The controller derives the stored and server keys; no password reaches it.
// Thread-safe (stateless).

#include <vector>

#include "admin.pb.h"
#include "controller/cluster_control.h"
#include "controller/metadata_image.h"

namespace strata::controller {

struct UserPlan {
  std::string user;
  Plan plan;
};

// One UserPlan per user named, in the order first named.
std::vector<UserPlan> PlanAlterUserScramCredentials(const MetadataImage& image,
                                                    const admin::v1::AlterUserScramCredentialsRequest& request);

// SecurityImage::DescribeScramCredentials as the Admin service answers it.
admin::v1::DescribeUserScramCredentialsResponse DescribeUserScramCredentials(
    const MetadataImage& image, const admin::v1::DescribeUserScramCredentialsRequest& request);

}  // namespace strata::controller
