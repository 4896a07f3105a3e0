// The credentials chain: settings, then the environment, then the shared credentials
// file's profile; half a key pair is an error naming where it was, and nothing found is
// an error naming every place looked at.
#include "objectstore/credentials.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "tests/support/temp_dir.h"

namespace strata::objectstore {
namespace {

class CredentialsTest : public ::testing::Test {
 protected:
  std::function<std::optional<std::string>(const char*)> Env() {
    return [this](const char* name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    };
  }
  std::string WriteFile(const std::string& text) {
    std::string path = tmp_.Sub("credentials");
    std::ofstream(path) << text;
    return path;
  }
  testing::TempDir tmp_;
  std::map<std::string, std::string> env_;
};

TEST_F(CredentialsTest, SettingsFirst) {
  env_ = {{"AWS_ACCESS_KEY_ID", "env-id"}, {"AWS_SECRET_ACCESS_KEY", "env-secret"}};
  auto c = ResolveCredentials({"set-id", "set-secret", "tok"}, Env());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key_id, "set-id");
  EXPECT_EQ(c->secret_access_key, "set-secret");
  EXPECT_EQ(c->session_token, "tok");
  EXPECT_NE(c->source.find("settings"), std::string::npos);
}

TEST_F(CredentialsTest, EnvironmentThenFileProfile) {
  env_ = {{"AWS_ACCESS_KEY_ID", "env-id"}, {"AWS_SECRET_ACCESS_KEY", "env-secret"}, {"AWS_SESSION_TOKEN", "t"}};
  auto c = ResolveCredentials({}, Env());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key_id, "env-id");
  EXPECT_EQ(c->session_token, "t");

  env_ = {{"AWS_SHARED_CREDENTIALS_FILE",
           WriteFile("# comment\n[default]\naws_access_key_id = d-id\naws_secret_access_key=d-secret\n\n"
                     "[tiering]\naws_access_key_id=t-id\naws_secret_access_key = t-secret\naws_session_token=tt\n")}};
  c = ResolveCredentials({}, Env());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key_id, "d-id");
  EXPECT_EQ(c->secret_access_key, "d-secret");
  env_["AWS_PROFILE"] = "tiering";
  c = ResolveCredentials({}, Env());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key_id, "t-id");
  EXPECT_EQ(c->secret_access_key, "t-secret");
  EXPECT_EQ(c->session_token, "tt");
  EXPECT_NE(c->source.find("[tiering]"), std::string::npos);
}

TEST_F(CredentialsTest, HomeCredentialsFile) {
  std::string home = tmp_.Sub("home");
  std::filesystem::create_directories(home + "/.aws");
  std::ofstream(home + "/.aws/credentials") << "[default]\naws_access_key_id=h\naws_secret_access_key=hs\n";
  env_ = {{"HOME", home}};
  auto c = ResolveCredentials({}, Env());
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key_id, "h");
}

TEST_F(CredentialsTest, HalfAPairIsAnError) {
  auto c = ResolveCredentials({"id-only", "", ""}, Env());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("without a secret access key"), std::string::npos) << c.status();
  env_ = {{"AWS_SECRET_ACCESS_KEY", "s"}};
  c = ResolveCredentials({}, Env());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("environment"), std::string::npos) << c.status();
}

TEST_F(CredentialsTest, NothingFoundNamesWhereItLooked) {
  env_ = {{"AWS_SHARED_CREDENTIALS_FILE", tmp_.Sub("absent")}, {"AWS_PROFILE", "p"}};
  auto c = ResolveCredentials({}, Env());
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::IsNotFound(c.status()));
  EXPECT_NE(c.status().message().find("[p]"), std::string::npos) << c.status();
  EXPECT_NE(c.status().message().find("absent"), std::string::npos) << c.status();
}

}  // namespace
}  // namespace strata::objectstore
