// The remote tier's sweeper on the directory store: a deleted topic's objects go (all of
// them, no other topic's), a sweep deletes what no copy names once it is older than the
// grace period and keeps everything else, failed copies' leftovers go too, and only the
// elected broker deletes.
#include "broker/tiered/remote_sweeper.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "storage/directory_remote_storage.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// 22-character base64url ids, one with '-' in it as topic ids may have.
const std::string kOrders = "b3JkZXJzb3JkZXJzb3Jk-A";
const std::string kGone = "Z29uZWdvbmVnb25lZ29uZQ";

class RemoteSweeperTest : public ::testing::Test {
 protected:
  void Put(const std::string& name) {
    fs::create_directories(fs::path(root_ + "/" + name).parent_path());
    std::ofstream(root_ + "/" + name) << "object";
  }
  std::set<std::string> Names() {
    std::set<std::string> out;
    EXPECT_TRUE(store_.ListObjects("", [&](const storage::RemoteObject& o) { out.insert(o.name); }).ok());
    return out;
  }
  RemoteSweeperOptions Options() {
    RemoteSweeperOptions o;
    o.remote_storage = &store_;
    o.elected = [this] { return elected_.load(); };
    o.topic_exists = [](const std::string& topic) { return topic == kOrders; };
    o.copy_known = [](const std::string& topic, int32_t partition, const std::string& segment) {
      return topic == kOrders && partition == 0 && segment == "a25vd25rbm93bmtub3dua24";
    };
    o.grace = 1h;
    o.retry_backoff = 10ms;
    o.interval = 1h;
    o.now = [this] { return now_; };
    return o;
  }

  testing::TempDir tmp_;
  std::string root_ = tmp_.Sub("remote");
  storage::DirectoryRemoteStorage store_{*storage::FileOps::Default(), root_};
  std::atomic<bool> elected_{true};
  absl::Time now_ = absl::Now();
};

TEST(RemoteObjectName, Parses) {
  std::string topic, segment;
  int32_t partition = -1;
  ASSERT_TRUE(ParseRemoteObjectName(kOrders + "-12/c2VnbWVudHNlZ21lbnRzZQ.log", &topic, &partition, &segment));
  EXPECT_EQ(topic, kOrders);
  EXPECT_EQ(partition, 12);
  EXPECT_EQ(segment, "c2VnbWVudHNlZ21lbnRzZQ");
  EXPECT_FALSE(ParseRemoteObjectName("no-slash.log", &topic, &partition, &segment));
  EXPECT_FALSE(ParseRemoteObjectName("t-x/s.log", &topic, &partition, &segment));
  EXPECT_FALSE(ParseRemoteObjectName("t-1/nodot", &topic, &partition, &segment));
}

TEST_F(RemoteSweeperTest, ASweepDeletesOnlyOldObjectsNoCopyNames) {
  const std::string known = kOrders + "-0/a25vd25rbm93bmtub3dua24";
  Put(known + ".log");
  Put(known + ".index");
  Put(known + ".log.tmp");                                 // a failed copy's leftover of a known copy
  Put(kOrders + "-0/dW5rbm93bnVua25vd251bmtu.log");        // no copy names it
  Put(kOrders + "-1/a25vd25rbm93bmtub3dua24.log");         // another partition's
  Put(kGone + "-0/Z29uZWdvbmVnb25lZ29uZQ.timeindex");      // a deleted topic's
  RemoteSweeper sweeper(Options());
  // Young: nothing goes (a copy this broker's image may not know yet).
  ASSERT_EQ(*sweeper.Sweep(), 0);
  EXPECT_EQ(Names().size(), 6u);
  now_ += absl::Hours(2);
  auto swept = sweeper.Sweep();
  ASSERT_TRUE(swept.ok()) << swept.status();
  EXPECT_EQ(*swept, 4);
  EXPECT_EQ(Names(), (std::set<std::string>{known + ".log", known + ".index"}));
  EXPECT_FALSE(fs::exists(root_ + "/" + kGone + "-0")) << "an emptied partition directory goes";
  EXPECT_EQ(sweeper.stats().orphans_deleted, 4);
}

TEST_F(RemoteSweeperTest, ADeletedTopicsObjectsGoAndNoOtherTopics) {
  for (int p = 0; p < 3; ++p) Put(kGone + "-" + std::to_string(p) + "/c2VnbWVudHNlZ21lbnRzZQ.log");
  Put(kOrders + "-0/a25vd25rbm93bmtub3dua24.log");
  RemoteSweeper sweeper(Options());
  sweeper.Start();
  sweeper.TopicDeleted(kGone);
  ASSERT_TRUE(testing::WaitUntil([&] { return Names().size() == 1; }, 10s)) << Names().size();
  EXPECT_EQ(*Names().begin(), kOrders + "-0/a25vd25rbm93bmtub3dua24.log");
  EXPECT_TRUE(testing::WaitUntil([&] { return sweeper.stats().topics_pending == 0; }, 10s));
  EXPECT_EQ(sweeper.stats().topic_objects_deleted, 3);
}

TEST_F(RemoteSweeperTest, OnlyTheElectedBrokerDeletes) {
  Put(kGone + "-0/c2VnbWVudHNlZ21lbnRzZQ.log");
  elected_ = false;
  RemoteSweeper sweeper(Options());
  sweeper.Start();
  sweeper.TopicDeleted(kGone);
  // It drops the topic (another broker deletes it) without touching the store.
  ASSERT_TRUE(testing::WaitUntil([&] { return sweeper.stats().topics_pending == 0; }, 10s));
  EXPECT_EQ(Names().size(), 1u);
  EXPECT_EQ(sweeper.stats().topic_objects_deleted, 0);
}

TEST_F(RemoteSweeperTest, NamesOutsideTheLayoutAreRefused) {
  EXPECT_FALSE(store_.DeleteObjects({"../etc/passwd"}).ok());
  EXPECT_FALSE(store_.DeleteObjects({"a-0/../../x.log"}).ok());
  EXPECT_FALSE(store_.DeleteObjects({"a-0/b/c.log"}).ok());
  EXPECT_TRUE(store_.DeleteObjects({"a-0/never-there.log"}).ok()) << "absent is no error";
}

}  // namespace
}  // namespace strata::broker
