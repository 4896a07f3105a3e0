#include "storage/checkpoint_file.h"

#include <gtest/gtest.h>

#include "storage/errc.h"
#include "tests/support/temp_dir.h"

namespace strata::storage {
namespace {

TEST(OffsetCheckpoint, RoundTripsInKafkasFormat) {
  OffsetCheckpoint offsets{{{"orders", 0}, 42}, {{"orders-eu", 3}, 7}};
  std::string text = FormatOffsetCheckpoint(offsets);
  EXPECT_EQ(text, "0\n2\norders 0 42\norders-eu 3 7\n");
  auto parsed = ParseOffsetCheckpoint(text, "f");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, offsets);
  testing::TempDir dir;
  std::string path = dir.Sub("recovery-point-offset-checkpoint");
  ASSERT_TRUE(WriteOffsetCheckpoint(*FileOps::Default(), path, offsets).ok());
  EXPECT_EQ(*ReadOffsetCheckpoint(*FileOps::Default(), path), offsets);
  EXPECT_TRUE(ReadOffsetCheckpoint(*FileOps::Default(), dir.Sub("missing"))->empty());
}

TEST(OffsetCheckpoint, GarbageGetsAnErrorNamingTheLine) {
  struct Case {
    std::string text;
    std::string words;
  } cases[] = {
      {"", "missing version"},
      {"1\n0\n", "unsupported version 1"},
      {"0\n3\na 0 1\n", "count says 3 entries but 1 follow"},
      {"0\n1\na 0\n", "line 3: expected 3"},
      {"0\n1\na x 1\n", "line 3"},
      {"0\n1\na 0 -5\n", "non-negative"},
      {"0\n2\na 0 1\na 0 2\n", "duplicate entry for a-0"},
      {"\x01\x02garbage", "version"},
  };
  for (const auto& c : cases) {
    auto parsed = ParseOffsetCheckpoint(c.text, "cp");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_EQ(ErrcOf(parsed.status()), Errc::kInvalidCheckpoint);
    EXPECT_NE(parsed.status().message().find(c.words), absl::string_view::npos) << parsed.status();
  }
}

TEST(EpochCheckpoint, RoundTrips) {
  std::vector<EpochEntry> entries{{0, 0}, {3, 100}};
  auto parsed = ParseEpochCheckpoint(FormatEpochCheckpoint(entries), "f");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(*parsed, entries);
}

}  // namespace
}  // namespace strata::storage
