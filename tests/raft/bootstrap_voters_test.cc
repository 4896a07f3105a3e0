// bootstrap-voters.json (raft/bootstrap_voters.h): Kafka's --initial-controllers form,
// the file's round trip, formatting twice, and a damaged file.

#include "raft/bootstrap_voters.h"

#include <gtest/gtest.h>

#include <fstream>

#include "absl/strings/str_cat.h"

#include "storage/file_ops.h"
#include "storage/meta_properties.h"
#include "tests/support/temp_dir.h"

namespace strata::raft {
namespace {

storage::FileOps& Ops() { return *storage::FileOps::Default(); }

TEST(BootstrapVoters, InitialControllersNameIdAddressAndDirectoryOfEveryVoter) {
  const std::string d1 = storage::NewBase64Uuid(), d2 = storage::NewBase64Uuid();
  auto voters = ParseInitialControllers(absl::StrCat("1@ctrl-1:9093:", d1, ", 2@10.0.0.2:9094:", d2), "CONTROLLER");
  ASSERT_TRUE(voters.ok()) << voters.status();
  ASSERT_EQ(voters->size(), 2u);
  const Voter* two = voters->Find(2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(two->directory_id, *storage::DecodeBase64Uuid(d2));
  ASSERT_EQ(two->endpoints.size(), 1u);
  EXPECT_EQ(two->endpoints[0], (Endpoint{"CONTROLLER", "10.0.0.2", 9094}));
  EXPECT_EQ(voters->Find(1)->endpoints[0].host, "ctrl-1");

  struct Case {
    std::string text;
    std::string words;
  } cases[] = {
      {"", "names no controller"},
      {absl::StrCat("x@h:1:", d1), "has no node id"},
      {"1@h:1", "has no valid directory id"},
      {absl::StrCat("1@h:", d1), "has no valid host:port"},
      {absl::StrCat("1@h:0:", d1), "has no valid host:port"},
      {absl::StrCat("1@h:1:", d1, ",1@h:2:", d2), "1"},  // the same id twice
  };
  for (const Case& c : cases) {
    auto parsed = ParseInitialControllers(c.text, "CONTROLLER");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.words), absl::string_view::npos) << parsed.status();
  }
}

TEST(BootstrapVoters, TheFileRoundTripsAndIsNeverRewrittenWithOtherVoters) {
  testing::TempDir dir;
  auto none = ReadBootstrapVoters(Ops(), dir.path());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->has_value());

  auto voters = ParseInitialControllers(absl::StrCat("1@h:1:", storage::NewBase64Uuid(), ",3@h:3:",
                                                     storage::NewBase64Uuid()),
                                        "CONTROLLER");
  ASSERT_TRUE(voters.ok());
  ASSERT_TRUE(WriteBootstrapVoters(Ops(), dir.path(), *voters).ok());
  auto read = ReadBootstrapVoters(Ops(), dir.path());
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(read->has_value());
  EXPECT_EQ(**read, *voters);
  EXPECT_EQ((*read)->kraft_version(), kKraftVersionDynamic);

  // Formatting again with the same voters is harmless; with others it is refused.
  EXPECT_TRUE(WriteBootstrapVoters(Ops(), dir.path(), *voters).ok());
  auto other = voters->Remove(3, voters->Find(3)->directory_id);
  ASSERT_TRUE(other.ok());
  absl::Status refused = WriteBootstrapVoters(Ops(), dir.path(), *other);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
  EXPECT_NE(refused.message().find("never rewritten"), absl::string_view::npos) << refused;
  EXPECT_EQ(**ReadBootstrapVoters(Ops(), dir.path()), *voters);
}

TEST(BootstrapVoters, ADamagedFileIsAnErrorNamingItNeverNoVoters) {
  testing::TempDir dir;
  const std::string path = storage::JoinPath(dir.path(), kBootstrapVotersFileName);
  const std::string dir_id = storage::NewBase64Uuid();
  struct Case {
    std::string json;
    std::string words;
  } cases[] = {
      {"{\"kraft_version\": 1, \"voters\": [", "not a JSON object"},
      {"{\"kraft_version\": 0, \"voters\": []}", "'kraft_version' must be 1"},
      {"{\"kraft_version\": 1}", "'voters' missing"},
      {"{\"kraft_version\": 1, \"voters\": [{\"id\": 1}]}", "needs 'id', 'directory_id' and 'endpoints'"},
      {"{\"kraft_version\": 1, \"voters\": [{\"id\": 1, \"directory_id\": \"short\", \"endpoints\": []}]}",
       "voter 1: 'short' is not a base64 uuid"},
      {absl::StrCat("{\"kraft_version\": 1, \"voters\": [{\"id\": 1, \"directory_id\": \"", dir_id,
                    "\", \"endpoints\": [{\"name\": \"CONTROLLER\", \"host\": \"h\", \"port\": 70000}]}]}"),
       "a 'port' of 1..65535"},
      {"{\"kraft_version\": 1, \"voters\": []}", "needs a voter"},
  };
  for (const Case& c : cases) {
    std::ofstream(path, std::ios::trunc) << c.json;
    auto read = ReadBootstrapVoters(Ops(), dir.path());
    ASSERT_FALSE(read.ok()) << c.json;
    EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss) << read.status();
    EXPECT_NE(read.status().message().find(path), absl::string_view::npos) << read.status();
    EXPECT_NE(read.status().message().find(c.words), absl::string_view::npos) << read.status();
  }
}

}  // namespace
}  // namespace strata::raft
