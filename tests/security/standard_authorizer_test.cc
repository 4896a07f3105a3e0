// The StandardAuthorizer's rules as a table: for each operation a Kafka API checks
// (Read, Write, Create, Delete, Alter, Describe, ClusterAction, DescribeConfigs,
// AlterConfigs, IdempotentWrite) on each resource type, against allow, deny, no ACL,
// prefixed, wildcard resource and principal, deny over allow, a super user, a wrong host,
// implied Describe and DescribeConfigs, and allow.everyone.if.no.acl.found. Then the
// ACL filters of DescribeAcls and DeleteAcls, and what a binding must hold to be created.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>

#include "security/standard_authorizer.h"

namespace strata::security {
namespace {

using Op = AclOperation;
using RT = ResourceType;

AclBinding Acl(RT type, std::string name, PatternType pattern, std::string principal, Op op, AclPermission permission,
               std::string host = "*") {
  return AclBinding{type, std::move(name), pattern, std::move(principal), std::move(host), op, permission};
}
AclBinding Allow(RT type, std::string name, Op op, std::string principal = "User:alice") {
  return Acl(type, std::move(name), PatternType::kLiteral, std::move(principal), op, AclPermission::kAllow);
}
AclBinding Deny(RT type, std::string name, Op op, std::string principal = "User:alice") {
  return Acl(type, std::move(name), PatternType::kLiteral, std::move(principal), op, AclPermission::kDeny);
}

// Each operation an API checks, on the resource type it checks it on.
struct Check {
  Op op;
  RT type;
  const char* name;
};
const Check kChecks[] = {
    {Op::kWrite, RT::kTopic, "orders"},          // Produce
    {Op::kRead, RT::kTopic, "orders"},           // Fetch, OffsetCommit
    {Op::kDescribe, RT::kTopic, "orders"},       // Metadata, ListOffsets, OffsetFetch
    {Op::kCreate, RT::kTopic, "orders"},         // CreateTopics, auto-creation
    {Op::kDelete, RT::kTopic, "orders"},         // DeleteTopics
    {Op::kAlter, RT::kTopic, "orders"},          // CreatePartitions
    {Op::kDescribeConfigs, RT::kTopic, "orders"},  // DescribeConfigs
    {Op::kAlterConfigs, RT::kTopic, "orders"},   // AlterConfigs
    {Op::kRead, RT::kGroup, "orders-group"},     // JoinGroup, SyncGroup, Heartbeat, OffsetCommit
    {Op::kDescribe, RT::kGroup, "orders-group"},  // FindCoordinator, DescribeGroups, OffsetFetch
    {Op::kDelete, RT::kGroup, "orders-group"},   // DeleteGroups, OffsetDelete
    {Op::kClusterAction, RT::kCluster, kClusterResourceName},  // a follower's Fetch
    {Op::kCreate, RT::kCluster, kClusterResourceName},         // CreateTopics
    {Op::kAlter, RT::kCluster, kClusterResourceName},          // ElectLeaders, CreateAcls, DeleteAcls
    {Op::kDescribe, RT::kCluster, kClusterResourceName},       // DescribeCluster, DescribeAcls, ListGroups
    {Op::kIdempotentWrite, RT::kCluster, kClusterResourceName},  // InitProducerId
    {Op::kWrite, RT::kTransactionalId, "tx-1"},  // transactions (issue 37)
};

struct Scenario {
  std::string what;
  std::vector<AclBinding> acls;
  // Whether alice at 10.0.0.1 is allowed the check (type, name, op) of kChecks.
  std::function<bool(const Check&)> allowed;
  bool allow_everyone_if_no_acl_found = false;
};

TEST(StandardAuthorizer, EveryOperationAnApiChecksAgainstEveryRule) {
  std::vector<Scenario> scenarios;
  scenarios.push_back({"no ACL at all: denied", {}, [](const Check&) { return false; }});
  scenarios.push_back({"no ACL, allow.everyone.if.no.acl.found", {}, [](const Check&) { return true; }, true});
  for (const Check& c : kChecks) {
    std::string what = std::string("allow ") + std::string(OperationName(c.op)) + " on " + c.name;
    scenarios.push_back({what, {Allow(c.type, c.name, c.op)}, [c](const Check& k) {
                           if (k.type != c.type || std::string(k.name) != c.name) return false;
                           if (k.op == c.op) return true;
                           if (k.op == Op::kDescribe) {
                             return c.op == Op::kRead || c.op == Op::kWrite || c.op == Op::kDelete || c.op == Op::kAlter;
                           }
                           return k.op == Op::kDescribeConfigs && c.op == Op::kAlterConfigs;
                         }});
  }
  scenarios.push_back({"allow All on every resource",
                       {Allow(RT::kTopic, "orders", Op::kAll), Allow(RT::kGroup, "orders-group", Op::kAll),
                        Allow(RT::kCluster, kClusterResourceName, Op::kAll), Allow(RT::kTransactionalId, "tx-1", Op::kAll)},
                       [](const Check&) { return true; }});
  scenarios.push_back({"deny over allow: deny Write, allow All on the topic",
                       {Allow(RT::kTopic, "orders", Op::kAll), Deny(RT::kTopic, "orders", Op::kWrite)},
                       [](const Check& k) { return k.type == RT::kTopic && k.op != Op::kWrite; }});
  scenarios.push_back({"deny All wins over a wildcard allow",
                       {Allow(RT::kTopic, "*", Op::kAll, "User:*"), Deny(RT::kTopic, "ord", Op::kAll)},
                       [](const Check& k) { return k.type == RT::kTopic; }});
  scenarios.back().acls.back().pattern_type = PatternType::kPrefixed;
  scenarios.back().allowed = [](const Check&) { return false; };  // the prefixed deny covers "orders"
  scenarios.push_back({"a denied Describe does not deny Read",
                       {Allow(RT::kTopic, "orders", Op::kRead), Deny(RT::kTopic, "orders", Op::kDescribe)},
                       [](const Check& k) { return k.type == RT::kTopic && k.op == Op::kRead; }});
  scenarios.push_back(
      {"prefixed: allow Read on ord*",
       {Acl(RT::kTopic, "ord", PatternType::kPrefixed, "User:alice", Op::kRead, AclPermission::kAllow)},
       [](const Check& k) { return k.type == RT::kTopic && (k.op == Op::kRead || k.op == Op::kDescribe); }});
  scenarios.push_back(
      {"prefixed longer than the name does not apply",
       {Acl(RT::kTopic, "orders-and-more", PatternType::kPrefixed, "User:alice", Op::kAll, AclPermission::kAllow)},
       [](const Check&) { return false; }});
  scenarios.push_back({"wildcard resource and principal",
                       {Allow(RT::kTopic, "*", Op::kWrite, "User:*")},
                       [](const Check& k) { return k.type == RT::kTopic && (k.op == Op::kWrite || k.op == Op::kDescribe); }});
  scenarios.push_back({"another principal's allow: the resource has ACLs, so denied even with allow.everyone",
                       {Allow(RT::kTopic, "orders", Op::kAll, "User:bob")},
                       [](const Check& k) { return k.type != RT::kTopic; }, true});
  scenarios.push_back({"the wrong host",
                       {Acl(RT::kTopic, "orders", PatternType::kLiteral, "User:alice", Op::kAll, AclPermission::kAllow,
                            "10.0.0.2")},
                       [](const Check&) { return false; }});
  scenarios.push_back({"the right host",
                       {Acl(RT::kTopic, "orders", PatternType::kLiteral, "User:alice", Op::kAll, AclPermission::kAllow,
                            "10.0.0.1")},
                       [](const Check& k) { return k.type == RT::kTopic; }});
  scenarios.push_back({"a topic ACL says nothing of a group of the same name",
                       {Allow(RT::kTopic, "orders-group", Op::kAll)}, [](const Check&) { return false; }});

  for (const Scenario& s : scenarios) {
    StandardAuthorizer authorizer({.super_users = {"User:admin"},
                                   .allow_everyone_if_no_acl_found = s.allow_everyone_if_no_acl_found});
    authorizer.SetAcls(s.acls);
    for (const Check& c : kChecks) {
      auto d = authorizer.Authorize("User:alice", "/10.0.0.1", c.op, c.type, c.name);
      EXPECT_EQ(d.allowed, s.allowed(c)) << s.what << ": " << OperationName(c.op) << " on "
                                         << ResourceTypeName(c.type) << " " << c.name << " ("
                                         << StandardAuthorizer::WhyName(d.why) << ")";
      // A super user is allowed everything, whatever the ACLs.
      auto super_user = authorizer.Authorize("User:admin", "10.9.9.9", c.op, c.type, c.name);
      EXPECT_TRUE(super_user.allowed) << s.what;
      EXPECT_EQ(super_user.why, StandardAuthorizer::Why::kSuperUser);
    }
  }
}

TEST(StandardAuthorizer, FiltersMatchAsKafkasDo) {
  AclBinding literal = Allow(RT::kTopic, "orders", Op::kRead);
  AclBinding wildcard = Allow(RT::kTopic, "*", Op::kRead);
  AclBinding prefixed = Acl(RT::kTopic, "ord", PatternType::kPrefixed, "User:bob", Op::kWrite, AclPermission::kDeny);
  AclBinding group = Allow(RT::kGroup, "orders", Op::kRead);
  auto matching = [&](const AclFilter& f) {
    std::vector<std::string> out;
    for (const auto* b : {&literal, &wildcard, &prefixed, &group}) {
      if (Matches(f, *b)) out.push_back(b->resource_name + "/" + std::string(PatternTypeName(b->pattern_type)));
    }
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(matching(AclFilter{}), (V{"orders/LITERAL", "*/LITERAL", "ord/PREFIXED", "orders/LITERAL"}));
  EXPECT_EQ(matching(AclFilter{.resource_type = RT::kTopic, .resource_name = "orders", .pattern_type = PatternType::kMatch}),
            (V{"orders/LITERAL", "*/LITERAL", "ord/PREFIXED"}));
  EXPECT_EQ(matching(AclFilter{.resource_type = RT::kTopic, .resource_name = "orders"}), (V{"orders/LITERAL"}));
  EXPECT_EQ(matching(AclFilter{.pattern_type = PatternType::kPrefixed}), (V{"ord/PREFIXED"}));
  EXPECT_EQ(matching(AclFilter{.principal = "User:bob"}), (V{"ord/PREFIXED"}));
  EXPECT_EQ(matching(AclFilter{.resource_type = RT::kGroup, .permission = AclPermission::kAllow}), (V{"orders/LITERAL"}));
  EXPECT_TRUE(InvalidFilter(AclFilter{.pattern_type = PatternType::kMatch}).has_value());
  EXPECT_TRUE(InvalidFilter(AclFilter{.operation = Op::kUnknown}).has_value());
  EXPECT_FALSE(InvalidFilter(AclFilter{}).has_value());
}

TEST(StandardAuthorizer, ABindingMustBeConcreteToBeCreated) {
  EXPECT_FALSE(InvalidBinding(Allow(RT::kTopic, "orders", Op::kRead)).has_value());
  EXPECT_FALSE(InvalidBinding(Allow(RT::kCluster, kClusterResourceName, Op::kAlter)).has_value());
  for (AclBinding bad : {Allow(RT::kAny, "orders", Op::kRead), Allow(RT::kTopic, "", Op::kRead),
                         Allow(RT::kTopic, "orders", Op::kAny), Allow(RT::kCluster, "other", Op::kAlter),
                         Allow(RT::kTopic, "orders", Op::kRead, "alice"),
                         Acl(RT::kTopic, "*", PatternType::kPrefixed, "User:a", Op::kRead, AclPermission::kAllow),
                         Acl(RT::kTopic, "o", PatternType::kMatch, "User:a", Op::kRead, AclPermission::kAllow),
                         Acl(RT::kTopic, "o", PatternType::kLiteral, "User:a", Op::kRead, AclPermission::kAny),
                         Acl(RT::kTopic, "o", PatternType::kLiteral, "User:a", Op::kRead, AclPermission::kAllow, "")}) {
    EXPECT_TRUE(InvalidBinding(bad).has_value()) << ToString(bad);
  }
}

// The cost of a check (a figure, not asserted): with no ACLs and with 10,000 (literal and
// prefixed, over 10,000 topics and 100 principals), for a principal whose topic has ACLs.
TEST(StandardAuthorizer, TheCostOfACheckWithZeroAndTenThousandAcls) {
  std::vector<AclBinding> acls;
  for (int i = 0; i < 10'000; ++i) {
    std::string topic = "topic-" + std::to_string(i);
    std::string principal = "User:user-" + std::to_string(i % 100);
    acls.push_back(i % 10 == 0 ? Acl(RT::kTopic, "topic-" + std::to_string(i / 10), PatternType::kPrefixed, principal,
                                     Op::kRead, AclPermission::kAllow)
                               : Allow(RT::kTopic, topic, Op::kWrite, principal));
  }
  for (size_t n : {size_t{0}, acls.size()}) {
    StandardAuthorizer authorizer({});
    authorizer.SetAcls(std::vector<AclBinding>(acls.begin(), acls.begin() + static_cast<long>(n)));
    constexpr int kChecks = 200'000;
    std::vector<std::string> principals, topics;
    for (int t = 0; t < 10'000; ++t) {
      principals.push_back("User:user-" + std::to_string(t % 100));
      topics.push_back("topic-" + std::to_string(t));
    }
    int allowed = 0;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kChecks; ++i) {
      int t = i % 10'000;
      allowed += authorizer.Authorize(principals[t], "/127.0.0.1", Op::kWrite, RT::kTopic, topics[t]).allowed;
    }
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() / kChecks;
    std::cout << "authorizer_check_ns{acls=" << n << "}=" << ns << " (allowed " << allowed << " of " << kChecks << ")"
              << std::endl;
    if (n == 0) EXPECT_EQ(allowed, 0);
    if (n > 0) EXPECT_EQ(allowed, kChecks * 9 / 10);
  }
}

}  // namespace
}  // namespace strata::security
