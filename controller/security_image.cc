#include "controller/security_image.h"

#include <map>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace strata::controller {
namespace {

namespace pb = metadata::v1;

constexpr char kScramPrefix[] = "s/";
constexpr char kAclPrefix[] = "a/";

std::string AclKeyText(const std::string& id) { return absl::StrCat(kAclPrefix, absl::BytesToHexString(id)); }

// "s/<mechanism>/<hex user name>".
std::string ScramKeyText(const std::string& user, int32_t mechanism) {
  return absl::StrCat(kScramPrefix, mechanism, "/", absl::BytesToHexString(user));
}

absl::Status Invalid(absl::string_view what) { return absl::InvalidArgumentError(what); }

bool ValidMechanism(int32_t m) { return m == 1 || m == 2; }

}  // namespace

bool SecurityImage::IsSecurityRecord(const pb::MetadataRecord& record) {
  return record.has_user_scram_credential() || record.has_remove_user_scram_credential() ||
         record.has_access_control_entry() || record.has_remove_access_control_entry();
}

bool SecurityImage::OwnsKey(const std::string& key) {
  return absl::StartsWith(key, kScramPrefix) || absl::StartsWith(key, kAclPrefix);
}

absl::Status SecurityImage::Apply(const pb::MetadataRecord& record) {
  if (record.has_user_scram_credential()) {
    const pb::UserScramCredential& c = record.user_scram_credential();
    if (c.name().empty()) return Invalid("a SCRAM credential needs a user name");
    if (!ValidMechanism(c.mechanism())) return Invalid(absl::StrCat("SCRAM mechanism ", c.mechanism(), " is unknown"));
    if (c.salt().empty() || c.stored_key().empty() || c.server_key().empty() || c.iterations() <= 0) {
      return Invalid(absl::StrCat("the SCRAM credential of '", c.name(), "' is incomplete"));
    }
    scram_[{c.name(), c.mechanism()}] = c;
    return absl::OkStatus();
  }
  if (record.has_remove_user_scram_credential()) {
    const pb::RemoveUserScramCredential& r = record.remove_user_scram_credential();
    if (scram_.erase({r.name(), r.mechanism()}) == 0) {
      return Invalid(absl::StrCat("no SCRAM credential of '", r.name(), "' for mechanism ", r.mechanism()));
    }
    return absl::OkStatus();
  }
  if (record.has_access_control_entry()) {
    const pb::AccessControlEntry& a = record.access_control_entry();
    if (a.id().size() != 16) return Invalid("an ACL needs a 16-byte id");
    if (acls_.count(a.id())) return Invalid(absl::StrCat("ACL ", absl::BytesToHexString(a.id()), " exists"));
    if (a.resource_name().empty() || a.principal().empty() || a.host().empty()) return Invalid("an ACL is incomplete");
    acls_[a.id()] = a;
    ++acl_version_;
    return absl::OkStatus();
  }
  if (record.has_remove_access_control_entry()) {
    if (acls_.erase(record.remove_access_control_entry().id()) == 0) return Invalid("RemoveAccessControlEntry of an unknown id");
    ++acl_version_;
    return absl::OkStatus();
  }
  return Invalid("not a security record");
}

std::vector<std::string> SecurityImage::TouchedKeys(const pb::MetadataRecord& record) const {
  if (record.has_user_scram_credential()) {
    return {ScramKeyText(record.user_scram_credential().name(), record.user_scram_credential().mechanism())};
  }
  if (record.has_remove_user_scram_credential()) {
    return {ScramKeyText(record.remove_user_scram_credential().name(),
                         record.remove_user_scram_credential().mechanism())};
  }
  if (record.has_access_control_entry()) return {AclKeyText(record.access_control_entry().id())};
  if (record.has_remove_access_control_entry()) return {AclKeyText(record.remove_access_control_entry().id())};
  return {};
}

std::optional<std::string> SecurityImage::Encode(const std::string& key) const {
  if (absl::StartsWith(key, kAclPrefix)) {
    auto it = acls_.find(absl::HexStringToBytes(key.substr(sizeof(kAclPrefix) - 1)));
    if (it == acls_.end()) return std::nullopt;
    return it->second.SerializeAsString();
  }
  std::vector<std::string> parts = absl::StrSplit(key, absl::MaxSplits('/', 2));
  int32_t mechanism = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[1], &mechanism)) return std::nullopt;
  const pb::UserScramCredential* c = FindScramCredential(absl::HexStringToBytes(parts[2]), mechanism);
  if (c == nullptr) return std::nullopt;
  return c->SerializeAsString();
}

absl::Status SecurityImage::Load(const std::string& key, const std::string& value) {
  if (absl::StartsWith(key, kAclPrefix)) {
    pb::AccessControlEntry a;
    if (!a.ParseFromString(value) || AclKeyText(a.id()) != key) {
      return absl::DataLossError(absl::StrCat("metadata image key '", key, "' holds a bad value"));
    }
    acls_[a.id()] = std::move(a);
    ++acl_version_;
    return absl::OkStatus();
  }
  pb::UserScramCredential c;
  if (!absl::StartsWith(key, kScramPrefix) || !c.ParseFromString(value) || ScramKeyText(c.name(), c.mechanism()) != key) {
    return absl::DataLossError(absl::StrCat("metadata image key '", absl::CHexEscape(key), "' holds a bad value"));
  }
  scram_[{c.name(), c.mechanism()}] = std::move(c);
  return absl::OkStatus();
}

void SecurityImage::Dump(std::string* out) const {
  for (const auto& [id, a] : acls_) {
    absl::StrAppend(out, "acl ", absl::BytesToHexString(id), " ", a.ShortDebugString(), "\n");
  }
  for (const auto& [k, c] : scram_) {
    // The keys are secrets of a kind: their lengths and iterations say enough for a comparison.
    absl::StrAppend(out, "scram ", k.first, " ", k.second, " iterations=", c.iterations(), " salt=",
                    absl::BytesToHexString(c.salt()), " stored_key=", absl::BytesToHexString(c.stored_key()), "\n");
  }
}

const pb::UserScramCredential* SecurityImage::FindScramCredential(const std::string& user, int32_t mechanism) const {
  auto it = scram_.find({user, mechanism});
  return it == scram_.end() ? nullptr : &it->second;
}

std::vector<SecurityImage::ScramDescription> SecurityImage::DescribeScramCredentials(
    const std::vector<std::string>& users) const {
  using proto::kafka::ErrorCode;
  std::map<std::string, std::vector<std::pair<int32_t, int32_t>>> by_user;
  for (const auto& [key, c] : scram_) by_user[key.first].push_back({c.mechanism(), c.iterations()});
  std::vector<ScramDescription> out;
  if (users.empty()) {
    for (auto& [user, infos] : by_user) out.push_back({user, ErrorCode::kNone, "", std::move(infos)});
    return out;
  }
  std::map<std::string, int> count;
  for (const std::string& user : users) ++count[user];
  std::set<std::string> answered;
  for (const std::string& user : users) {
    if (!answered.insert(user).second) continue;
    auto it = by_user.find(user);
    if (count[user] > 1) {
      out.push_back({user, ErrorCode::kDuplicateResource, "the user is named more than once", {}});
    } else if (it == by_user.end()) {
      out.push_back({user, ErrorCode::kResourceNotFound, "the user has no SCRAM credential", {}});
    } else {
      out.push_back({user, ErrorCode::kNone, "", it->second});
    }
  }
  return out;
}

security::AclBinding SecurityImage::BindingOf(const pb::AccessControlEntry& a) { return security::AclBindingOf(a); }

std::vector<security::AclBinding> SecurityImage::AclBindings() const {
  std::vector<security::AclBinding> out;
  out.reserve(acls_.size());
  for (const auto& [id, a] : acls_) out.push_back(BindingOf(a));
  return out;
}

std::vector<security::AclBinding> SecurityImage::MatchingAcls(const security::AclFilter& filter) const {
  std::vector<security::AclBinding> out;
  for (const auto& [id, a] : acls_) {
    security::AclBinding b = BindingOf(a);
    if (security::Matches(filter, b)) out.push_back(std::move(b));
  }
  return out;
}

std::vector<std::string> SecurityImage::MatchingAclIds(const security::AclFilter& filter) const {
  std::vector<std::string> out;
  for (const auto& [id, a] : acls_) {
    if (security::Matches(filter, BindingOf(a))) out.push_back(id);
  }
  return out;
}

}  // namespace strata::controller
