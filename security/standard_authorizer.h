#pragma once
// StandardAuthorizer: Kafka's authorization rules (org.apache.kafka.metadata.authorizer
// .StandardAuthorizer) over a set of ACL bindings (acl.h):
//   - a principal of super.users is allowed everything;
//   - the bindings that apply to a resource are its LITERAL name, the LITERAL wildcard
//     "*", and every PREFIXED pattern the name starts with, of the same resource type;
//     of those, the ones for the principal (or User:*) and the host (or *) count;
//   - a DENY of the operation (or of All) wins over any ALLOW;
//   - an ALLOW of the operation allows it, All allows everything, and Describe is also
//     allowed by Read, Write, Delete and Alter, DescribeConfigs by AlterConfigs;
//   - when bindings apply to the resource but none allows: denied; when none applies at
//     all: allow.everyone.if.no.acl.found decides (default false: denied).
// Lookups use hash maps by resource type and name (the prefixes are looked up at the
// lengths that PREFIXED bindings of the type have), so a check costs about the same with
// 10,000 bindings as with ten.
// Thread-safe: SetAcls swaps in a new index; checks running meanwhile use the old one.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/log_rate_limit.h"
#include "security/acl.h"

namespace strata::security {

class StandardAuthorizer {
 public:
  struct Options {
    std::set<std::string> super_users;  // "User:admin"
    bool allow_everyone_if_no_acl_found = false;
    // Write allowed decisions to the decision log too (denials always are).
    bool log_allowed = false;
  };
  enum class Why { kSuperUser, kAllowAcl, kDenyAcl, kNoMatchingAcl, kNoAclFound };
  struct Decision {
    bool allowed = false;
    Why why = Why::kNoAclFound;
  };

  explicit StandardAuthorizer(Options options);

  void SetAcls(const std::vector<AclBinding>& acls);
  size_t acl_count() const;

  // host: the client's address ("127.0.0.1"; a leading '/' as Kafka prints it is ignored).
  Decision Authorize(absl::string_view principal, absl::string_view host, AclOperation operation,
                     ResourceType type, absl::string_view name) const;

  // Authorize, counted; a denial (and, with log_allowed, an allowed decision) goes to
  // the decision log, at most kLogLinesPerSecond lines a second:
  //   authorizer: Principal = User:bob is Denied Operation = Write from host = 10.0.0.1
  //   on resource = Topic:LITERAL:orders for request = Produce (no ACL allows it)
  // Whether some ALLOW binding of the type grants the operation to the principal at the
  // host (a super user: yes), unless a DENY of it on the wildcard "*" covers every
  // resource: Kafka's authorizeByResourceType, as InitProducerId asks it ("Write on some
  // topic"). Neither counted nor logged: the caller decides with other checks.
  bool AllowsSome(absl::string_view principal, absl::string_view host, AclOperation operation,
                  ResourceType type) const;

  bool Check(absl::string_view principal, absl::string_view host, AclOperation operation, ResourceType type,
             absl::string_view name, absl::string_view request) const;
  int64_t allowed_total() const { return allowed_.load(); }
  int64_t denied_total() const { return denied_.load(); }

  // The decision's words, for the decision log.
  static absl::string_view WhyName(Why why);
  static constexpr int kLogLinesPerSecond = 10;

 private:
  struct Index {
    struct ByType {
      absl::flat_hash_map<std::string, std::vector<AclBinding>> literal;
      absl::flat_hash_map<std::string, std::vector<AclBinding>> prefixed;
      std::set<size_t> prefix_lengths;
    };
    std::array<ByType, 8> by_type;  // by ResourceType code
    size_t count = 0;
  };

  const Options options_;
  mutable std::atomic<int64_t> allowed_{0};
  mutable std::atomic<int64_t> denied_{0};
  mutable LogRateLimit log_limit_{kLogLinesPerSecond};
  mutable absl::Mutex mu_;
  std::shared_ptr<const Index> index_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::security
