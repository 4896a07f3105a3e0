// Incremental fetch sessions (KIP-227) without a broker: the session cache's answers to
// each kind of request (full, incremental, close), what an incremental answer carries,
// which session loses its slot when the cache is full, and the client side
// (client::FetchSessionHandler) that the replica fetchers and strata-perf use. The
// reads themselves are the data path's (data_path_test.cc, replication_test.cc).

#include <gtest/gtest.h>

#include "broker/handlers/fetch_session.h"
#include "client/fetch_session_handler.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "storage/clock.h"

namespace strata::broker {
namespace {

namespace kafka = proto::kafka;
using Names = std::vector<std::pair<std::string, int32_t>>;

kafka::FetchRequest Request(int32_t session_id, int32_t epoch, std::vector<std::pair<std::string, int32_t>> partitions,
                            int32_t replica_id = -1) {
  kafka::FetchRequest request;
  request.replica_id = replica_id;
  request.session_id = session_id;
  request.session_epoch = epoch;
  for (const auto& [topic, partition] : partitions) {
    kafka::FetchRequest::Partition p;
    p.partition = partition;
    p.fetch_offset = 10;
    p.partition_max_bytes = 1 << 20;
    request.topics.push_back({topic, std::string(16, topic.empty() ? 'x' : topic[0]), {p}});
  }
  return request;
}

// What the broker would read: each target answered with high_watermark hw and no error.
std::vector<FetchTargetRead> Reads(const FetchContext& context, int64_t hw, uint64_t record_bytes = 0) {
  std::vector<FetchTargetRead> reads(context.targets().size());
  for (size_t i = 0; i < reads.size(); ++i) {
    reads[i].data.partition_index = context.targets()[i].fetch.partition;
    reads[i].data.high_watermark = hw;
    reads[i].data.log_start_offset = 0;
    reads[i].record_bytes = record_bytes;
    if (record_bytes > 0) reads[i].data.records = std::string(record_bytes, 'r');
  }
  return reads;
}

auto NoTopicIds = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };

// Opens a session over partitions; returns its id.
int32_t Open(FetchSessionCache& cache, std::vector<std::pair<std::string, int32_t>> partitions, int32_t replica_id = -1) {
  FetchContext context = cache.NewContext(Request(0, 0, partitions, replica_id), 12, 0, NoTopicIds);
  EXPECT_EQ(context.kind(), FetchContext::Kind::kNewSession);
  auto reads = Reads(context, 5);
  return context.Answer(reads).session_id;
}

Names AnsweredNames(const kafka::FetchResponse& response) {
  Names out;
  for (const auto& t : response.responses) {
    for (const auto& p : t.partitions) out.emplace_back(t.topic, p.partition_index);
  }
  return out;
}

TEST(FetchSessionCacheTest, TheRequestsSessionFieldsSayWhatItIs) {
  FetchSessionCache cache(FetchSessionCacheOptions{});
  // Sessionless: answered in full, no session.
  FetchContext sessionless = cache.NewContext(Request(0, -1, {{"a", 0}}), 12, 0, NoTopicIds);
  EXPECT_EQ(sessionless.kind(), FetchContext::Kind::kSessionless);
  auto reads = Reads(sessionless, 5);
  EXPECT_EQ(sessionless.Answer(reads).session_id, 0);
  EXPECT_EQ(cache.size(), 0u);
  // (0, 0) opens one; the next fetch must carry epoch 1.
  int32_t id = Open(cache, {{"a", 0}, {"b", 1}});
  ASSERT_NE(id, 0);
  EXPECT_EQ(cache.PartitionsOf(id), (Names{{"a", 0}, {"b", 1}}));
  EXPECT_EQ(cache.NewContext(Request(id, 2, {}), 12, 0, NoTopicIds).error(),
            kafka::ErrorCode::kInvalidFetchSessionEpoch);
  EXPECT_EQ(cache.NewContext(Request(id + 1, 1, {}), 12, 0, NoTopicIds).error(),
            kafka::ErrorCode::kFetchSessionIdNotFound);
  // A session by name asked by topic id (Fetch v13) is refused.
  EXPECT_EQ(cache.NewContext(Request(id, 1, {}), 13, 0, NoTopicIds).error(), kafka::ErrorCode::kFetchSessionTopicIdError);
  FetchContext incremental = cache.NewContext(Request(id, 1, {{"c", 2}}), 12, 0, NoTopicIds);
  ASSERT_EQ(incremental.kind(), FetchContext::Kind::kIncremental);
  // It reads every partition of the session, the new one added at the end.
  ASSERT_EQ(incremental.targets().size(), 3u);
  EXPECT_EQ(incremental.targets()[2].topic(), "c");
  // (id, 0) closes it and opens another; (id, -1) closes it.
  FetchContext reopen = cache.NewContext(Request(id, 0, {{"a", 0}}), 12, 0, NoTopicIds);
  EXPECT_EQ(reopen.kind(), FetchContext::Kind::kNewSession);
  EXPECT_TRUE(cache.PartitionsOf(id).empty());
  reads = Reads(reopen, 5);
  int32_t second = reopen.Answer(reads).session_id;
  ASSERT_NE(second, 0);
  EXPECT_EQ(cache.NewContext(Request(second, -1, {{"a", 0}}), 12, 0, NoTopicIds).kind(),
            FetchContext::Kind::kSessionless);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(FetchSessionCacheTest, AnIncrementalAnswerCarriesRecordsMovedWatermarksAndErrorsOnly) {
  FetchSessionCache cache(FetchSessionCacheOptions{});
  int32_t id = Open(cache, {{"a", 0}, {"b", 0}, {"c", 0}});
  FetchContext context = cache.NewContext(Request(id, 1, {}), 12, 0, NoTopicIds);
  auto reads = Reads(context, 5);
  reads[0].record_bytes = 10;  // a: records
  reads[0].data.records = std::string(10, 'r');
  reads[1].data.high_watermark = 6;  // b: its high watermark moved
  // c: nothing new
  auto answer = context.Answer(reads);
  EXPECT_EQ(answer.session_id, id);
  EXPECT_EQ(AnsweredNames(answer), (Names{{"a", 0}, {"b", 0}}));
  // All at 6 now: a's watermark moved too.
  FetchContext settle = cache.NewContext(Request(id, 2, {}), 12, 0, NoTopicIds);
  auto settled = Reads(settle, 6);
  // (a answered records, so it went to the end of the session)
  EXPECT_EQ(AnsweredNames(settle.Answer(settled)), (Names{{"c", 0}, {"a", 0}}));
  // An error is answered, and again while it lasts; once it is gone, the partition is
  // answered once more (its watermarks), then no longer.
  for (int round = 0; round < 3; ++round) {
    FetchContext next = cache.NewContext(Request(id, 3 + round, {}), 12, 0, NoTopicIds);
    auto r = Reads(next, 6);
    for (size_t i = 0; i < r.size(); ++i) {
      if (next.targets()[i].topic() == "c" && round < 2) {
        r[i].data.error_code = static_cast<int16_t>(kafka::ErrorCode::kNotLeaderOrFollower);
      }
    }
    EXPECT_EQ(AnsweredNames(next.Answer(r)), (Names{{"c", 0}})) << "round " << round;
  }
  FetchContext quiet = cache.NewContext(Request(id, 6, {}), 12, 0, NoTopicIds);
  auto r = Reads(quiet, 6);
  EXPECT_TRUE(AnsweredNames(quiet.Answer(r)).empty());
}

TEST(FetchSessionCacheTest, AFullCacheGivesTheSlotOfAStaleSessionThenOfALessValuableOne) {
  storage::ManualClock clock;
  FetchSessionCache cache(FetchSessionCacheOptions{.max_slots = 2, .eviction_ms = 1000, .clock = &clock});
  int32_t small = Open(cache, {{"a", 0}});
  clock.Advance(10);
  int32_t large = Open(cache, {{"a", 0}, {"a", 1}, {"a", 2}});
  ASSERT_NE(small, 0);
  ASSERT_NE(large, 0);
  // A consumer's session no larger than the smallest finds no slot.
  EXPECT_EQ(Open(cache, {{"b", 0}}), 0);
  EXPECT_EQ(cache.sessions_refused(), 1);
  // A larger one takes the smallest's.
  int32_t larger = Open(cache, {{"b", 0}, {"b", 1}});
  ASSERT_NE(larger, 0);
  EXPECT_TRUE(cache.PartitionsOf(small).empty());
  EXPECT_FALSE(cache.PartitionsOf(large).empty());
  // A follower's session is worth more than any consumer's.
  int32_t follower = Open(cache, {{"c", 0}}, /*replica_id=*/2);
  ASSERT_NE(follower, 0);
  EXPECT_TRUE(cache.PartitionsOf(larger).empty());
  // A session unused for eviction_ms gives its slot to anyone: the least recently used.
  clock.Advance(1000);
  cache.NewContext(Request(follower, 1, {}), 12, 0, NoTopicIds);  // used now
  int32_t late = Open(cache, {{"d", 0}});
  ASSERT_NE(late, 0);
  EXPECT_TRUE(cache.PartitionsOf(large).empty());
  EXPECT_FALSE(cache.PartitionsOf(follower).empty());
  EXPECT_EQ(cache.evictions(), 3);
}

TEST(FetchSessionCacheTest, ASessionBelongsToItsConnectionAndGoesWithIt) {
  FetchSessionCache cache(FetchSessionCacheOptions{});
  FetchContext open = cache.NewContext(Request(0, 0, {{"a", 0}}), 12, /*connection_id=*/5, NoTopicIds);
  auto reads = Reads(open, 5);
  int32_t id = open.Answer(reads).session_id;
  ASSERT_NE(id, 0);
  // Not usable from another connection.
  EXPECT_EQ(cache.NewContext(Request(id, 1, {}), 12, 6, NoTopicIds).error(), kafka::ErrorCode::kFetchSessionIdNotFound);
  EXPECT_EQ(cache.NewContext(Request(id, 1, {}), 12, 5, NoTopicIds).kind(), FetchContext::Kind::kIncremental);
  // Its connection closes: it goes.
  cache.ConnectionClosed(5);
  EXPECT_EQ(cache.size(), 0u);
  // A full fetch of connection 7 answered after 7 closed (a follower cut it short) opens
  // no session: nobody would ever use it.
  FetchContext late = cache.NewContext(Request(0, 0, {{"a", 0}}), 12, 7, NoTopicIds);
  cache.ConnectionClosed(7);
  reads = Reads(late, 5);
  EXPECT_EQ(late.Answer(reads).session_id, 0);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(FetchSessionCacheTest, NoSlotsMeansNoSessions) {
  FetchSessionCache cache(FetchSessionCacheOptions{.max_slots = 0});
  FetchContext context = cache.NewContext(Request(0, 0, {{"a", 0}}), 12, 0, NoTopicIds);
  EXPECT_EQ(context.kind(), FetchContext::Kind::kSessionless);
  auto reads = Reads(context, 5);
  EXPECT_EQ(context.Answer(reads).session_id, 0);
  EXPECT_EQ(cache.NewContext(Request(7, 1, {}), 12, 0, NoTopicIds).error(), kafka::ErrorCode::kFetchSessionIdNotFound);
}

TEST(FetchSessionCacheTest, EpochsWrapToOne) {
  EXPECT_EQ(NextFetchSessionEpoch(1), 2);
  EXPECT_EQ(NextFetchSessionEpoch(std::numeric_limits<int32_t>::max()), 1);
  EXPECT_EQ(NextFetchSessionEpoch(-1), -1);
}

// The client side.
using Wanted = std::map<client::FetchSessionHandler::Key, kafka::FetchRequest::Partition>;

kafka::FetchRequest::Partition At(int32_t partition, int64_t offset) {
  kafka::FetchRequest::Partition p;
  p.partition = partition;
  p.fetch_offset = offset;
  return p;
}

kafka::FetchResponse Answer(int32_t session_id, Names partitions = {}, int16_t error = 0) {
  kafka::FetchResponse response;
  response.session_id = session_id;
  response.error_code = error;
  for (const auto& [topic, partition] : partitions) {
    response.responses.push_back({topic, std::string(16, '\0'), {}});
    response.responses.back().partitions.push_back({});
    response.responses.back().partitions.back().partition_index = partition;
  }
  return response;
}

Names Named(const kafka::FetchRequest& request) {
  Names out;
  for (const auto& t : request.topics) {
    for (const auto& p : t.partitions) out.emplace_back(t.topic, p.partition);
  }
  return out;
}

TEST(FetchSessionHandlerTest, AfterTheFullFetchOnlyMovedPartitionsAreNamedAndDroppedOnesForgotten) {
  client::FetchSessionHandler handler;
  kafka::FetchRequest request;
  handler.Build(Wanted{{{"a", 0}, At(0, 5)}, {{"a", 1}, At(1, 7)}, {{"b", 0}, At(0, 1)}}, request);
  EXPECT_EQ(request.session_id, 0);
  EXPECT_EQ(request.session_epoch, 0);
  EXPECT_EQ(Named(request).size(), 3u);
  ASSERT_TRUE(handler.HandleResponse(Answer(42, {{"a", 0}})).ok());
  // a-0 moved, b-0 no longer wanted, a-1 as it was.
  handler.Build(Wanted{{{"a", 0}, At(0, 9)}, {{"a", 1}, At(1, 7)}}, request);
  EXPECT_EQ(request.session_id, 42);
  EXPECT_EQ(request.session_epoch, 1);
  EXPECT_EQ(Named(request), (Names{{"a", 0}}));
  ASSERT_EQ(request.forgotten_topics_data.size(), 1u);
  EXPECT_EQ(request.forgotten_topics_data[0].topic, "b");
  ASSERT_TRUE(handler.HandleResponse(Answer(42)).ok());
  handler.Build(Wanted{{{"a", 0}, At(0, 9)}, {{"a", 1}, At(1, 7)}}, request);
  EXPECT_EQ(request.session_epoch, 2);
  EXPECT_TRUE(Named(request).empty());
  EXPECT_TRUE(request.forgotten_topics_data.empty());
  // An answer naming a partition the session does not hold is refused: full again.
  EXPECT_FALSE(handler.HandleResponse(Answer(42, {{"b", 0}})).ok());
  handler.Build(Wanted{{{"a", 0}, At(0, 9)}}, request);
  EXPECT_EQ(request.session_id, 42);
  EXPECT_EQ(request.session_epoch, 0);
  EXPECT_EQ(Named(request), (Names{{"a", 0}}));
}

TEST(FetchSessionHandlerTest, SessionErrorsAndLostAnswersStartANewSession) {
  client::FetchSessionHandler handler;
  kafka::FetchRequest request;
  Wanted wanted{{{"a", 0}, At(0, 5)}};
  handler.Build(wanted, request);
  ASSERT_TRUE(handler.HandleResponse(Answer(42)).ok());
  handler.Build(wanted, request);
  // The broker lost it: a new session (id 0).
  EXPECT_FALSE(handler.HandleResponse(Answer(0, {}, static_cast<int16_t>(kafka::ErrorCode::kFetchSessionIdNotFound)))
                   .ok());
  handler.Build(wanted, request);
  EXPECT_EQ(request.session_id, 0);
  EXPECT_EQ(request.session_epoch, 0);
  ASSERT_TRUE(handler.HandleResponse(Answer(43)).ok());
  // A lost answer: close 43 and open another.
  handler.Build(wanted, request);
  handler.HandleError();
  handler.Build(wanted, request);
  EXPECT_EQ(request.session_id, 43);
  EXPECT_EQ(request.session_epoch, 0);
  EXPECT_EQ(Named(request), (Names{{"a", 0}}));
  // A broker without slots answers session id 0: every fetch stays full.
  ASSERT_TRUE(handler.HandleResponse(Answer(0)).ok());
  handler.Build(wanted, request);
  EXPECT_EQ(request.session_id, 0);
  EXPECT_EQ(request.session_epoch, 0);
  // Disabled: sessionless.
  client::FetchSessionHandler off(false);
  off.Build(wanted, request);
  EXPECT_EQ(request.session_id, 0);
  EXPECT_EQ(request.session_epoch, -1);
}

}  // namespace
}  // namespace strata::broker
