#pragma once
// ClientQuotasImage: the client quotas of the metadata image (Kafka's ClientQuotasImage,
// KIP-546). A quota entity is a user, a client id, both, or an IP, each named or its
// type's default entity; each entity has values by quota key (producer_byte_rate,
// consumer_byte_rate, request_percentage, controller_mutation_rate; an IP only
// connection_creation_rate). Applied from ClientQuota records, stored under "q/<entity>"
// and dumped as the rest of MetadataImage (metadata_image.h), which holds one.
// Also Kafka's rules for entities, values and describe filters, which the controller
// (AlterClientQuotas, client_quota_control.h) and the brokers (DescribeClientQuotas,
// answered from their image) share.
// Not thread-safe: the owner serialises access.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "metadata.pb.h"

namespace strata::controller {

inline constexpr char kQuotaUser[] = "user";
inline constexpr char kQuotaClientId[] = "client-id";
inline constexpr char kQuotaIp[] = "ip";

// Entity type -> name; nullopt names the type's default entity (Kafka's
// ClientQuotaEntity, whose default is a null name).
using ClientQuotaEntity = std::map<std::string, std::optional<std::string>>;
using ClientQuotaValueMap = std::map<std::string, double>;
using EntityParts = google::protobuf::RepeatedPtrField<metadata::v1::ClientQuotaEntityPart>;

// The entity of a record's or a request's parts, or INVALID_REQUEST's message: no part,
// an empty or unsupported type, a type twice, an IP with a user or client id, an IP name
// that is not an address.
absl::StatusOr<ClientQuotaEntity> EntityOf(const EntityParts& parts);
void AddParts(const ClientQuotaEntity& entity, EntityParts* out);
// As Kafka's tools print it: "user=alice, client-id=<default>".
std::string EntityText(const ClientQuotaEntity& entity);

// Whether key may be set to value for entity: an unknown key for the entity's types, a
// value that is not a finite number above zero, or a fraction for a whole-number key
// (the byte rates and connection_creation_rate) is INVALID_REQUEST's message.
absl::Status CheckQuotaValue(const ClientQuotaEntity& entity, const std::string& key, double value);

// One component of a DescribeClientQuotas filter (Kafka's ClientQuotaFilterComponent).
struct QuotaFilterComponent {
  enum Match : int { kExact = 0, kDefault = 1, kSpecified = 2 };
  std::string entity_type;
  int match_type = kExact;
  std::optional<std::string> match;  // the name, for kExact only
};

class ClientQuotasImage {
 public:
  absl::Status Apply(const metadata::v1::ClientQuota& record);
  std::vector<std::string> TouchedKeys(const metadata::v1::ClientQuota& record) const;
  // Keys of this image start with "q/".
  static bool OwnsKey(const std::string& key);
  std::optional<std::string> Encode(const std::string& key) const;
  absl::Status Load(const std::string& key, const std::string& value);
  void Dump(std::string* out) const;

  // Every entity with at least one value.
  const std::map<ClientQuotaEntity, ClientQuotaValueMap>& quotas() const { return quotas_; }
  // Grows with every change: the brokers look up their clients' quotas again.
  int64_t version() const { return version_; }

  // DescribeClientQuotas (Kafka's ClientQuotasImage.describe): the entities every
  // component matches (an exact name, the default, or any named entity of its type),
  // and with strict none of another type; no components and not strict: every entity.
  // A bad filter is INVALID_REQUEST's message: an empty or unsupported type, a type
  // twice, an IP with a user or client id, a match name where the match type takes none
  // (or none where it takes one), an unknown match type.
  absl::StatusOr<std::vector<std::pair<ClientQuotaEntity, ClientQuotaValueMap>>> Describe(
      const std::vector<QuotaFilterComponent>& components, bool strict) const;

 private:
  std::map<ClientQuotaEntity, ClientQuotaValueMap> quotas_;
  int64_t version_ = 0;
};

}  // namespace strata::controller
