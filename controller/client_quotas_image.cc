#include "controller/client_quotas_image.h"

#include <arpa/inet.h>

#include <cmath>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace strata::controller {
namespace {

namespace pb = metadata::v1;

constexpr char kPrefix[] = "q/";

absl::Status Invalid(absl::string_view what) { return absl::InvalidArgumentError(what); }

bool SupportedType(const std::string& type) { return type == kQuotaUser || type == kQuotaClientId || type == kQuotaIp; }

bool IpAddress(const std::string& name) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, name.c_str(), buf) == 1 || inet_pton(AF_INET6, name.c_str(), buf) == 1;
}

// "q/<hex type>=<hex name>/..." with "<hex type>*" for a default: the entity, readable
// back from its key.
std::string KeyOf(const ClientQuotaEntity& entity) {
  std::vector<std::string> parts;
  for (const auto& [type, name] : entity) {
    parts.push_back(name ? absl::StrCat(absl::BytesToHexString(type), "=", absl::BytesToHexString(*name))
                         : absl::StrCat(absl::BytesToHexString(type), "*"));
  }
  return absl::StrCat(kPrefix, absl::StrJoin(parts, "/"));
}

std::optional<ClientQuotaEntity> EntityOfKey(const std::string& key) {
  if (!absl::StartsWith(key, kPrefix)) return std::nullopt;
  ClientQuotaEntity entity;
  for (absl::string_view part : absl::StrSplit(absl::string_view(key).substr(sizeof(kPrefix) - 1), '/')) {
    if (absl::EndsWith(part, "*")) {
      entity[absl::HexStringToBytes(part.substr(0, part.size() - 1))] = std::nullopt;
    } else {
      std::vector<absl::string_view> type_name = absl::StrSplit(part, absl::MaxSplits('=', 1));
      if (type_name.size() != 2) return std::nullopt;
      entity[absl::HexStringToBytes(type_name[0])] = absl::HexStringToBytes(type_name[1]);
    }
  }
  return entity;
}

// The quota keys of an entity's types, and whether each takes whole numbers only
// (Kafka's QuotaConfig: the byte rates and connection_creation_rate are LONG and INT).
const std::map<std::string, bool>& KeysOf(const ClientQuotaEntity& entity) {
  static const std::map<std::string, bool> kUserClient = {{"producer_byte_rate", true},
                                                          {"consumer_byte_rate", true},
                                                          {"request_percentage", false},
                                                          {"controller_mutation_rate", false}};
  static const std::map<std::string, bool> kIp = {{"connection_creation_rate", true}};
  return entity.count(kQuotaIp) ? kIp : kUserClient;
}

// What the entity types of an entity or a filter allow together: each supported, once,
// an IP alone.
absl::Status CheckTypes(const std::vector<std::string>& types, absl::string_view twice_where) {
  std::set<std::string> seen;
  for (const std::string& type : types) {
    if (type.empty()) return Invalid("Invalid empty entity type.");
    if (!SupportedType(type)) return Invalid(absl::StrCat("Unsupported entity type ", type, "."));
    if (!seen.insert(type).second) {
      return Invalid(absl::StrCat("Entity type ", type, " cannot appear more than once in ", twice_where, "."));
    }
  }
  if (seen.count(kQuotaIp) && seen.size() > 1) {
    return Invalid("Invalid quota entity combination, an ip entity cannot be combined with a user or client-id.");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClientQuotaEntity> EntityOf(const EntityParts& parts) {
  if (parts.empty()) return Invalid("Invalid empty client quota entity.");
  std::vector<std::string> types;
  ClientQuotaEntity entity;
  for (const pb::ClientQuotaEntityPart& part : parts) {
    types.push_back(part.entity_type());
    std::optional<std::string> name;
    if (part.has_entity_name()) name = part.entity_name();
    entity[part.entity_type()] = name;
  }
  if (absl::Status ok = CheckTypes(types, "the entity"); !ok.ok()) return ok;
  auto ip = entity.find(kQuotaIp);
  if (ip != entity.end() && ip->second && !IpAddress(*ip->second)) {
    return Invalid(absl::StrCat(*ip->second, " is not a valid IP address."));
  }
  return entity;
}

void AddParts(const ClientQuotaEntity& entity, EntityParts* out) {
  for (const auto& [type, name] : entity) {
    pb::ClientQuotaEntityPart* part = out->Add();
    part->set_entity_type(type);
    if (name) part->set_entity_name(*name);
  }
}

std::string EntityText(const ClientQuotaEntity& entity) {
  std::vector<std::string> parts;
  for (const auto& [type, name] : entity) parts.push_back(absl::StrCat(type, "=", name ? *name : "<default>"));
  return absl::StrJoin(parts, ", ");
}

absl::Status CheckQuotaValue(const ClientQuotaEntity& entity, const std::string& key, double value) {
  const auto& keys = KeysOf(entity);
  auto it = keys.find(key);
  if (it == keys.end()) return Invalid(absl::StrCat("Invalid configuration key ", key, " for ", EntityText(entity), "."));
  if (!std::isfinite(value) || value <= 0) {
    return Invalid(absl::StrCat("Quota ", key, " must be a number above zero, not ", value, "."));
  }
  if (it->second && (value != std::floor(value) || value > 9.2e18)) {
    return Invalid(absl::StrCat("Quota ", key, " must be a whole number, not ", value, "."));
  }
  return absl::OkStatus();
}

absl::Status ClientQuotasImage::Apply(const pb::ClientQuota& record) {
  absl::StatusOr<ClientQuotaEntity> entity = EntityOf(record.entity());
  if (!entity.ok()) return Invalid(absl::StrCat("a client quota record: ", entity.status().message()));
  if (record.remove()) {
    auto it = quotas_.find(*entity);
    if (it == quotas_.end() || it->second.erase(record.key()) == 0) {
      return Invalid(absl::StrCat("no client quota ", record.key(), " of ", EntityText(*entity), " to remove"));
    }
    if (it->second.empty()) quotas_.erase(it);
  } else {
    if (absl::Status ok = CheckQuotaValue(*entity, record.key(), record.value()); !ok.ok()) {
      return Invalid(absl::StrCat("a client quota record: ", ok.message()));
    }
    quotas_[*entity][record.key()] = record.value();
  }
  ++version_;
  return absl::OkStatus();
}

std::vector<std::string> ClientQuotasImage::TouchedKeys(const pb::ClientQuota& record) const {
  absl::StatusOr<ClientQuotaEntity> entity = EntityOf(record.entity());
  if (!entity.ok()) return {};
  return {KeyOf(*entity)};
}

bool ClientQuotasImage::OwnsKey(const std::string& key) { return absl::StartsWith(key, kPrefix); }

std::optional<std::string> ClientQuotasImage::Encode(const std::string& key) const {
  std::optional<ClientQuotaEntity> entity = EntityOfKey(key);
  if (!entity) return std::nullopt;
  auto it = quotas_.find(*entity);
  if (it == quotas_.end()) return std::nullopt;
  pb::ClientQuotaValues stored;
  AddParts(it->first, stored.mutable_entity());
  for (const auto& [k, v] : it->second) (*stored.mutable_values())[k] = v;
  return stored.SerializeAsString();
}

absl::Status ClientQuotasImage::Load(const std::string& key, const std::string& value) {
  pb::ClientQuotaValues stored;
  absl::StatusOr<ClientQuotaEntity> entity;
  if (!stored.ParseFromString(value) || !(entity = EntityOf(stored.entity())).ok() || KeyOf(*entity) != key ||
      stored.values().empty()) {
    return absl::DataLossError(absl::StrCat("metadata image key '", absl::CHexEscape(key), "' holds a bad value"));
  }
  ClientQuotaValueMap& values = quotas_[*entity];
  for (const auto& [k, v] : stored.values()) values[k] = v;
  ++version_;
  return absl::OkStatus();
}

void ClientQuotasImage::Dump(std::string* out) const {
  for (const auto& [entity, values] : quotas_) {
    std::vector<std::string> parts;
    for (const auto& [k, v] : values) parts.push_back(absl::StrCat(k, "=", v));
    absl::StrAppend(out, "client quota ", EntityText(entity), ": ", absl::StrJoin(parts, ", "), "\n");
  }
}

absl::StatusOr<std::vector<std::pair<ClientQuotaEntity, ClientQuotaValueMap>>> ClientQuotasImage::Describe(
    const std::vector<QuotaFilterComponent>& components, bool strict) const {
  std::vector<std::string> types;
  for (const QuotaFilterComponent& c : components) {
    types.push_back(c.entity_type);
    switch (c.match_type) {
      case QuotaFilterComponent::kExact:
        if (!c.match) return Invalid("Request specified MATCH_TYPE_EXACT, but set match string to null.");
        break;
      case QuotaFilterComponent::kDefault:
        if (c.match) return Invalid("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
        break;
      case QuotaFilterComponent::kSpecified:
        if (c.match) return Invalid("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
        break;
      default: return Invalid(absl::StrCat("Unknown match type ", c.match_type, "."));
    }
  }
  if (absl::Status ok = CheckTypes(types, "the filter"); !ok.ok()) return ok;
  auto matches = [&](const ClientQuotaEntity& entity) {
    if (strict && entity.size() != components.size()) return false;
    for (const QuotaFilterComponent& c : components) {
      auto it = entity.find(c.entity_type);
      if (it == entity.end()) return false;
      const std::optional<std::string>& name = it->second;
      bool ok = c.match_type == QuotaFilterComponent::kExact     ? name == c.match
                : c.match_type == QuotaFilterComponent::kDefault ? !name.has_value()
                                                                 : name.has_value();
      if (!ok) return false;
    }
    return true;
  };
  std::vector<std::pair<ClientQuotaEntity, ClientQuotaValueMap>> out;
  for (const auto& [entity, values] : quotas_) {
    if (matches(entity)) out.emplace_back(entity, values);
  }
  return out;
}

}  // namespace strata::controller
