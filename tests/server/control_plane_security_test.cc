// The Admin service's ACL check on a controller (server/control_plane_security.h
// MakeAdminAclCheck) against a real MetadataStore: a caller is allowed what the ACL
// records in the image grant on the cluster, from the hosts they name, and an ACL added
// or removed later is seen by the next call (the index follows acl_version).

#include "server/control_plane_security.h"

#include <gtest/gtest.h>

#include "metadata.pb.h"
#include "tests/support/temp_dir.h"

namespace strata::server {
namespace {

namespace pb = strata::metadata::v1;

pb::MetadataRecord Acl(const std::string& id, const std::string& principal, security::AclOperation operation,
                       const std::string& host = "*") {
  pb::MetadataRecord r;
  pb::AccessControlEntry* a = r.mutable_access_control_entry();
  a->set_id(id);
  security::SetAclBindingFields(
      security::AclBinding{security::ResourceType::kCluster, std::string(security::kClusterResourceName),
                           security::PatternType::kLiteral, principal, host, operation, security::AclPermission::kAllow},
      a);
  return r;
}

pb::MetadataRecord Removal(const std::string& id) {
  pb::MetadataRecord r;
  r.mutable_remove_access_control_entry()->set_id(id);
  return r;
}

class AdminAclCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = controller::MetadataStore::Open(dir_.Sub("store"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(*store);
    config_.authorizer_class_name = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    config_.super_users = {"User:admin"};
  }
  void Commit(pb::MetadataRecord record) {
    pb::MetadataBatch batch;
    *batch.add_records() = std::move(record);
    ASSERT_TRUE(store_->Apply(raft::Entry{1, ++index_, batch.SerializeAsString()}).ok());
  }
  static security::ControlPlaneCaller Caller(const std::string& principal,
                                             const std::string& host = "ipv4:10.0.0.5:5000") {
    return security::ControlPlaneCaller{.authenticated = true, .principal = principal, .host = host};
  }

  testing::TempDir dir_;
  std::unique_ptr<controller::MetadataStore> store_;
  raft::Index index_ = 0;
  ServerConfig config_;
};

TEST_F(AdminAclCheck, NoAuthorizerMeansNoCheck) {
  config_.authorizer_class_name.clear();
  EXPECT_EQ(MakeAdminAclCheck(config_, *store_), nullptr);
}

TEST_F(AdminAclCheck, TheImagesAclsDecideAndLaterChangesAreSeen) {
  auto check = MakeAdminAclCheck(config_, *store_);
  ASSERT_NE(check, nullptr);
  EXPECT_FALSE(check(Caller("User:ops"), "DescribeCluster")) << "no ACL: denied";
  EXPECT_TRUE(check(Caller("User:admin"), "DeleteTopics")) << "a super user";

  const std::string describe_id(16, 'd'), alter_id(16, 'a');
  Commit(Acl(describe_id, "User:ops", security::AclOperation::kDescribe));
  EXPECT_TRUE(check(Caller("User:ops"), "DescribeCluster"));
  EXPECT_TRUE(check(Caller("User:ops", "ipv6:[::1]:4000"), "DescribeTopics"));
  EXPECT_FALSE(check(Caller("User:ops"), "DeleteTopics")) << "Describe does not give Alter";
  EXPECT_FALSE(check(Caller("User:dev"), "DescribeCluster"));

  Commit(Acl(alter_id, "User:ops", security::AclOperation::kAlter, "10.0.0.5"));
  EXPECT_TRUE(check(Caller("User:ops"), "DeleteTopics"));
  EXPECT_FALSE(check(Caller("User:ops", "ipv4:10.0.0.6:5000"), "DeleteTopics")) << "another host";

  Commit(Removal(alter_id));
  EXPECT_FALSE(check(Caller("User:ops"), "DeleteTopics")) << "the removal is seen by the next call";
  EXPECT_TRUE(check(Caller("User:ops"), "DescribeCluster"));
}

}  // namespace
}  // namespace strata::server
