#pragma once
// SecurityImage: the part of the metadata image that security keeps — each user's SCRAM
// credentials (UserScramCredential records; never a password) and the ACL bindings
// (AccessControlEntry records, by id). Applied, stored and dumped as the rest of
// MetadataImage is (metadata_image.h), which holds one.
// Not thread-safe: the owner serialises access.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "metadata.pb.h"
#include "proto/kafka/error_code.h"
#include "security/acl.h"

namespace strata::controller {

class SecurityImage {
 public:
  // (user name, mechanism) -> credential.
  using ScramKey = std::pair<std::string, int32_t>;

  // For the records this image keeps (IsSecurityRecord).
  absl::Status Apply(const metadata::v1::MetadataRecord& record);
  static bool IsSecurityRecord(const metadata::v1::MetadataRecord& record);
  std::vector<std::string> TouchedKeys(const metadata::v1::MetadataRecord& record) const;
  // Keys of this image start with one of its prefixes (OwnsKey).
  static bool OwnsKey(const std::string& key);
  std::optional<std::string> Encode(const std::string& key) const;
  absl::Status Load(const std::string& key, const std::string& value);
  void Dump(std::string* out) const;

  const std::map<ScramKey, metadata::v1::UserScramCredential>& scram_credentials() const { return scram_; }
  // By id; acl_version() grows with every change (the brokers rebuild their authorizer's
  // index when it moves).
  const std::map<std::string, metadata::v1::AccessControlEntry>& acls() const { return acls_; }
  int64_t acl_version() const { return acl_version_; }
  // Every binding (the authorizer's input), and the ones a filter matches (DescribeAcls).
  std::vector<security::AclBinding> AclBindings() const;
  std::vector<security::AclBinding> MatchingAcls(const security::AclFilter& filter) const;
  // The ids of the bindings a filter matches (DeleteAcls).
  std::vector<std::string> MatchingAclIds(const security::AclFilter& filter) const;
  static security::AclBinding BindingOf(const metadata::v1::AccessControlEntry& entry);

  // DescribeUserScramCredentials (KIP-554): per user its mechanisms and iterations, as
  // the brokers and the controller answer it. users empty: every user with a credential;
  // else each named user once, in order — RESOURCE_NOT_FOUND for one without a
  // credential, DUPLICATE_RESOURCE for one named twice.
  struct ScramDescription {
    std::string user;
    proto::kafka::ErrorCode error = proto::kafka::ErrorCode::kNone;
    std::string message;
    std::vector<std::pair<int32_t, int32_t>> mechanism_iterations;
  };
  std::vector<ScramDescription> DescribeScramCredentials(const std::vector<std::string>& users) const;
  const metadata::v1::UserScramCredential* FindScramCredential(const std::string& user, int32_t mechanism) const;

 private:
  std::map<ScramKey, metadata::v1::UserScramCredential> scram_;
  std::map<std::string, metadata::v1::AccessControlEntry> acls_;
  int64_t acl_version_ = 0;
};

}  // namespace strata::controller
