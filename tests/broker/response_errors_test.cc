// The error codes of a response, for Kafka's ErrorsPerSec (response_errors.h): every
// non-zero code of a nested response is counted, top-level and per topic, partition,
// group and member, and NONE never is; and the responses the broker answers — through
// AnswerAtOnce, AnswerLater and the handlers that encode their own (Produce, Fetch,
// ApiVersions) — carry the counts of what their body says.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "broker/handlers/kafka_apis.h"
#include "broker/handlers/response_errors.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "tests/support/broker_services.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using kafka::ErrorCode;

int16_t Code(ErrorCode c) { return static_cast<int16_t>(c); }

// The counts as a map (their order is the order codes were first met).
std::map<int16_t, int32_t> AsMap(const ErrorCounts& counts) {
  std::map<int16_t, int32_t> out;
  for (const auto& [code, n] : counts) {
    EXPECT_NE(code, 0) << "NONE is never counted";
    EXPECT_TRUE(out.emplace(code, n).second) << "code " << code << " listed twice";
  }
  return out;
}

template <typename Response>
std::map<int16_t, int32_t> Counted(const Response& response) {
  ErrorCounts counts;
  CountErrors(response, counts);
  return AsMap(counts);
}

TEST(ResponseErrors, CountErrorIgnoresNoneAndAddsUpRepeats) {
  ErrorCounts counts;
  CountError(counts, 0);
  EXPECT_TRUE(counts.empty());
  CountError(counts, 6);
  CountError(counts, 0);
  CountError(counts, 6);
  CountError(counts, 3);
  EXPECT_EQ(AsMap(counts), (std::map<int16_t, int32_t>{{3, 1}, {6, 2}}));
}

kafka::ProduceResponse::Partition Produced(int32_t index, ErrorCode code) {
  kafka::ProduceResponse::Partition p;
  p.index = index;
  p.error_code = Code(code);
  return p;
}

TEST(ResponseErrors, ProduceCountsEveryErroringPartitionOfEveryTopic) {
  kafka::ProduceResponse r;
  r.responses.push_back({"a", {Produced(0, ErrorCode::kNotLeaderOrFollower), Produced(1, ErrorCode::kNone),
                               Produced(2, ErrorCode::kNotLeaderOrFollower)}});
  r.responses.push_back({"b", {Produced(0, ErrorCode::kMessageTooLarge), Produced(1, ErrorCode::kNone)}});
  EXPECT_EQ(Counted(r), (std::map<int16_t, int32_t>{{Code(ErrorCode::kNotLeaderOrFollower), 2},
                                                    {Code(ErrorCode::kMessageTooLarge), 1}}));
}

TEST(ResponseErrors, AResponseWithoutErrorsCountsNothing) {
  kafka::ProduceResponse produce;
  produce.responses.push_back({"a", {Produced(0, ErrorCode::kNone), Produced(1, ErrorCode::kNone)}});
  EXPECT_TRUE(Counted(produce).empty());
  kafka::OffsetFetchResponse fetch;
  fetch.groups.push_back({"g", {{"a", {{0, 5, -1, std::nullopt, 0}}}}, 0});
  EXPECT_TRUE(Counted(fetch).empty());
  EXPECT_TRUE(Counted(kafka::HeartbeatResponse{}).empty());
}

TEST(ResponseErrors, OffsetCommitCountsEachPartition) {
  kafka::OffsetCommitResponse r;
  r.topics.push_back({"a", {{0, Code(ErrorCode::kUnknownTopicOrPartition)}, {1, Code(ErrorCode::kUnknownTopicOrPartition)}}});
  r.topics.push_back({"b", {{0, Code(ErrorCode::kRebalanceInProgress)}, {1, 0}}});
  EXPECT_EQ(Counted(r), (std::map<int16_t, int32_t>{{Code(ErrorCode::kUnknownTopicOrPartition), 2},
                                                    {Code(ErrorCode::kRebalanceInProgress), 1}}));
}

TEST(ResponseErrors, DescribeGroupsCountsEachGroup) {
  kafka::DescribeGroupsResponse r;
  for (ErrorCode e : {ErrorCode::kNone, ErrorCode::kNotCoordinator, ErrorCode::kNotCoordinator,
                      ErrorCode::kCoordinatorLoadInProgress}) {
    kafka::DescribeGroupsResponse::Group g;
    g.error_code = Code(e);
    g.members.push_back({"m", std::nullopt, "c", "h", "", ""});
    r.groups.push_back(g);
  }
  EXPECT_EQ(Counted(r), (std::map<int16_t, int32_t>{{Code(ErrorCode::kNotCoordinator), 2},
                                                    {Code(ErrorCode::kCoordinatorLoadInProgress), 1}}));
}

TEST(ResponseErrors, TopLevelAndNestedCodesAreBothCounted) {
  kafka::FetchResponse fetch;
  fetch.error_code = Code(ErrorCode::kFetchSessionIdNotFound);
  kafka::FetchResponse::Partition p;
  p.error_code = Code(ErrorCode::kOffsetOutOfRange);
  fetch.responses.push_back({"a", std::string(16, '\0'), {p, kafka::FetchResponse::Partition{}}});
  EXPECT_EQ(Counted(fetch), (std::map<int16_t, int32_t>{{Code(ErrorCode::kFetchSessionIdNotFound), 1},
                                                        {Code(ErrorCode::kOffsetOutOfRange), 1}}));

  // Metadata: a topic's own code and its partitions'.
  kafka::MetadataResponse metadata;
  kafka::MetadataResponse::Topic unknown;
  unknown.error_code = Code(ErrorCode::kUnknownTopicOrPartition);
  kafka::MetadataResponse::Topic led;
  led.partitions.resize(3);
  led.partitions[1].error_code = Code(ErrorCode::kLeaderNotAvailable);
  metadata.topics = {unknown, led};
  EXPECT_EQ(Counted(metadata), (std::map<int16_t, int32_t>{{Code(ErrorCode::kUnknownTopicOrPartition), 1},
                                                           {Code(ErrorCode::kLeaderNotAvailable), 1}}));

  // OffsetFetch: the top-level code, v0-v7 partitions, and v8+ groups and their partitions.
  kafka::OffsetFetchResponse offsets;
  offsets.error_code = Code(ErrorCode::kCoordinatorLoadInProgress);
  offsets.topics.push_back({"a", {{0, -1, -1, std::nullopt, Code(ErrorCode::kUnstableOffsetCommit)}}});
  offsets.groups.push_back({"g", {{"a", {{0, -1, -1, std::nullopt, Code(ErrorCode::kUnstableOffsetCommit)}}}},
                            Code(ErrorCode::kNotCoordinator)});
  EXPECT_EQ(Counted(offsets), (std::map<int16_t, int32_t>{{Code(ErrorCode::kCoordinatorLoadInProgress), 1},
                                                          {Code(ErrorCode::kUnstableOffsetCommit), 2},
                                                          {Code(ErrorCode::kNotCoordinator), 1}}));

  // LeaveGroup's members, FindCoordinator's coordinators, OffsetDelete's partitions.
  kafka::LeaveGroupResponse leave;
  leave.members = {{"m1", std::nullopt, Code(ErrorCode::kUnknownMemberId)}, {"m2", std::nullopt, 0}};
  EXPECT_EQ(Counted(leave), (std::map<int16_t, int32_t>{{Code(ErrorCode::kUnknownMemberId), 1}}));
  kafka::FindCoordinatorResponse find;
  find.coordinators.resize(2);
  find.coordinators[0].error_code = Code(ErrorCode::kCoordinatorNotAvailable);
  find.coordinators[1].error_code = Code(ErrorCode::kCoordinatorNotAvailable);
  EXPECT_EQ(Counted(find), (std::map<int16_t, int32_t>{{Code(ErrorCode::kCoordinatorNotAvailable), 2}}));
  kafka::OffsetDeleteResponse del;
  del.error_code = Code(ErrorCode::kGroupIdNotFound);
  del.topics.push_back({"a", {{0, Code(ErrorCode::kGroupSubscribedToTopic)}}});
  EXPECT_EQ(Counted(del), (std::map<int16_t, int32_t>{{Code(ErrorCode::kGroupIdNotFound), 1},
                                                      {Code(ErrorCode::kGroupSubscribedToTopic), 1}}));
}

TEST(ResponseErrors, CreateTopicsCountsTheTaggedConfigErrorToo) {
  kafka::CreateTopicsResponse r;
  kafka::CreateTopicsResponse::Topic taken;
  taken.error_code = Code(ErrorCode::kTopicAlreadyExists);
  kafka::CreateTopicsResponse::Topic created;
  created.topic_config_error_code = Code(ErrorCode::kInvalidConfig);
  kafka::CreateTopicsResponse::Topic fine;
  fine.topic_config_error_code = 0;
  r.topics = {taken, created, fine};
  EXPECT_EQ(Counted(r), (std::map<int16_t, int32_t>{{Code(ErrorCode::kTopicAlreadyExists), 1},
                                                    {Code(ErrorCode::kInvalidConfig), 1}}));
}

TEST(ResponseErrors, ElectLeadersCountsTheTopLevelCodeAndEachPartition) {
  kafka::ElectLeadersResponse r;
  r.error_code = Code(ErrorCode::kRequestTimedOut);
  r.replica_election_results.push_back(
      {"a", {{0, 0, std::nullopt}, {1, Code(ErrorCode::kElectionNotNeeded), "leads"}, {2, Code(ErrorCode::kRequestTimedOut), "x"}}});
  r.replica_election_results.push_back({"gone", {{0, Code(ErrorCode::kUnknownTopicOrPartition), "no"}}});
  EXPECT_EQ(Counted(r), (std::map<int16_t, int32_t>{{Code(ErrorCode::kRequestTimedOut), 2},
                                                    {Code(ErrorCode::kElectionNotNeeded), 1},
                                                    {Code(ErrorCode::kUnknownTopicOrPartition), 1}}));
}

TEST(ResponseErrors, UpdateFeaturesAndUnregisterBrokerCountTheirTopLevelCode) {
  kafka::UpdateFeaturesResponse refused;
  refused.error_code = Code(ErrorCode::kInvalidUpdateVersion);
  EXPECT_EQ(Counted(refused), (std::map<int16_t, int32_t>{{Code(ErrorCode::kInvalidUpdateVersion), 1}}));
  kafka::UpdateFeaturesResponse passed;
  passed.results = {{"transaction.version", 0, std::nullopt}};
  EXPECT_TRUE(Counted(passed).empty());
  kafka::UnregisterBrokerResponse unknown;
  unknown.error_code = Code(ErrorCode::kBrokerIdNotRegistered);
  EXPECT_EQ(Counted(unknown), (std::map<int16_t, int32_t>{{Code(ErrorCode::kBrokerIdNotRegistered), 1}}));
}

// ---- through the dispatch ----

class DispatchedResponses : public ::testing::Test {
 protected:
  // The response to one request of `key` at `version` with the encoded `body`.
  ApiResponse Call(kafka::ApiKey key, int16_t version, const std::string& body) {
    kafka::RequestHeader header;
    header.api_key = static_cast<int16_t>(key);
    header.api_version = version;
    auto answer = apis_.HandleAndWait(header, body);
    EXPECT_TRUE(answer.ok()) << answer.status();
    if (!answer.ok() || !answer->has_value()) {
      ADD_FAILURE() << "no response";
      return ApiResponse{};
    }
    return std::move(**answer);
  }

  template <typename Request, typename Write>
  std::string Encode(const Request& request, int16_t version, Write write) {
    std::string body;
    kafka::Writer w(&body);
    write(request, version, w);
    return body;
  }

  // What the response body says, counted the same way.
  template <typename Read>
  std::map<int16_t, int32_t> CountedBody(const ApiResponse& response, int16_t version, Read read) {
    kafka::Reader r(response.body);
    auto decoded = read(r, version);
    EXPECT_TRUE(decoded.ok()) << decoded.status();
    if (!decoded.ok()) return {};
    return Counted(*decoded);
  }

  testing::TempDir tmp_;
  testing::BrokerServices services_{tmp_.path()};
  KafkaApis apis_{services_.Context()};
};

TEST_F(DispatchedResponses, ProduceToMissingPartitionsCarriesTheirErrors) {
  kafka::ProduceRequest request;
  request.acks = 1;
  request.timeout_ms = 1000;
  request.topic_data.push_back({"missing", {{0, std::string("x")}, {1, std::string("y")}}});
  ApiResponse response = Call(kafka::ApiKey::kProduce, 9, Encode(request, 9, kafka::WriteProduceRequest));
  auto body = CountedBody(response, 9, kafka::ReadProduceResponse);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(body.begin()->second, 2);
  EXPECT_EQ(AsMap(response.errors), body);
}

TEST_F(DispatchedResponses, FetchOfAMissingPartitionCarriesItsError) {
  kafka::FetchRequest request;
  request.replica_id = -1;
  request.max_bytes = 1 << 20;
  kafka::FetchRequest::Partition p;
  p.partition_max_bytes = 1 << 20;
  request.topics.push_back({"missing", std::string(16, '\0'), {p}});
  ApiResponse response = Call(kafka::ApiKey::kFetch, 12, Encode(request, 12, kafka::WriteFetchRequest));
  auto body = CountedBody(response, 12, kafka::ReadFetchResponse);
  ASSERT_EQ(body.size(), 1u);
  EXPECT_EQ(AsMap(response.errors), body);
}

TEST_F(DispatchedResponses, AnswerAtOnceCountsEveryGroupOfDescribeGroups) {
  kafka::DescribeGroupsRequest request;
  request.groups = {"a", "b", "c"};
  ApiResponse response = Call(kafka::ApiKey::kDescribeGroups, 5, Encode(request, 5, kafka::WriteDescribeGroupsRequest));
  EXPECT_EQ(AsMap(response.errors), (std::map<int16_t, int32_t>{{Code(ErrorCode::kCoordinatorNotAvailable), 3}}));
  EXPECT_EQ(AsMap(response.errors), CountedBody(response, 5, kafka::ReadDescribeGroupsResponse));
}

TEST_F(DispatchedResponses, AnswerLaterCountsEveryPartitionOfOffsetCommit) {
  kafka::OffsetCommitRequest request;
  request.group_id = "g";
  request.topics = {{"missing", {{0, 42, -1, -1, std::nullopt}, {1, 43, -1, -1, std::nullopt}}}};
  ApiResponse response = Call(kafka::ApiKey::kOffsetCommit, 8, Encode(request, 8, kafka::WriteOffsetCommitRequest));
  EXPECT_EQ(AsMap(response.errors), (std::map<int16_t, int32_t>{{Code(ErrorCode::kUnknownTopicOrPartition), 2}}));
  EXPECT_EQ(AsMap(response.errors), CountedBody(response, 8, kafka::ReadOffsetCommitResponse));
}

TEST_F(DispatchedResponses, ApiVersionsCountsNothingWhenItAnswersAndItsErrorWhenTooNew) {
  kafka::ApiVersionsRequest request;
  request.client_software_name = "test";
  request.client_software_version = "1";
  ApiResponse answered = Call(kafka::ApiKey::kApiVersions, 3, Encode(request, 3, kafka::WriteApiVersionsRequest));
  EXPECT_TRUE(answered.errors.empty());
  ApiResponse too_new = Call(kafka::ApiKey::kApiVersions, 99, "");
  EXPECT_EQ(AsMap(too_new.errors), (std::map<int16_t, int32_t>{{Code(ErrorCode::kUnsupportedVersion), 1}}));
}

}  // namespace
}  // namespace strata::broker
