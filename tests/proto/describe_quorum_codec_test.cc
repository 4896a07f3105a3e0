// DescribeQuorum (v0-v2): requests and responses round-trip in every version, the fields
// of later versions (the fetch times v1, error messages, directory ids and nodes v2) are
// left out before them, hand-built bytes pin the v2 response layout (the port as an
// unsigned 16-bit field), and every truncation is refused.

#include <gtest/gtest.h>

#include "proto/kafka/api.h"
#include "proto/kafka/describe_quorum.h"
#include "tests/proto/codec_checks.h"
#include "tests/proto/hand_bytes.h"

namespace strata::proto::kafka {
namespace {

using testing::ExpectLayout;
using testing::ExpectRoundTrip;
using testing::HandBytes;

TEST(KafkaDescribeQuorum, TheApiTableKnowsIt) {
  int16_t key = static_cast<int16_t>(ApiKey::kDescribeQuorum);
  EXPECT_EQ(key, 55);
  EXPECT_EQ(ApiName(key), "DescribeQuorum");
  EXPECT_EQ(FirstFlexibleVersion(key), std::optional<int16_t>(0));
  EXPECT_EQ(RequestHeaderVersion(key, 0), 2);
  EXPECT_EQ(ResponseHeaderVersion(key, 0), 1);
}

TEST(KafkaDescribeQuorum, RequestsRoundTripInEveryVersion) {
  DescribeQuorumRequest req;
  req.topics.push_back({kClusterMetadataTopic, {0}});
  req.topics.push_back({"other", {1, 2}});
  for (int16_t v = 0; v <= 2; ++v) ExpectRoundTrip(WriteDescribeQuorumRequest, ReadDescribeQuorumRequest, req, req, v);
}

DescribeQuorumResponse Full() {
  DescribeQuorumResponse r;
  r.error_message = "fine";
  DescribeQuorumResponse::Partition p;
  p.error_message = "also fine";
  p.leader_id = 2;
  p.leader_epoch = 7;
  p.high_watermark = 1234;
  p.current_voters.push_back({1, std::string(16, 'a'), 1230, 1700000000000, 1699999999000});
  p.current_voters.push_back({2, std::string(16, 'b'), 1234, -1, 1700000000001});
  p.observers.push_back({4, std::string(16, 'c'), 1200, 1700000000002, -1});
  r.topics.push_back({kClusterMetadataTopic, {p}});
  r.nodes.push_back({1, {{"CONTROLLER", "127.0.0.1", 65000}}});
  return r;
}

TEST(KafkaDescribeQuorum, ResponsesRoundTripWithoutTheFieldsAVersionLacks) {
  for (int16_t v = 0; v <= 2; ++v) {
    DescribeQuorumResponse expected = Full();
    if (v < 2) {
      expected.error_message.reset();
      expected.nodes.clear();
      for (auto& t : expected.topics) {
        for (auto& p : t.partitions) {
          p.error_message.reset();
          for (auto* states : {&p.current_voters, &p.observers}) {
            for (auto& s : *states) s.replica_directory_id = std::string(16, '\0');
          }
        }
      }
    }
    if (v < 1) {
      for (auto& t : expected.topics) {
        for (auto& p : t.partitions) {
          for (auto* states : {&p.current_voters, &p.observers}) {
            for (auto& s : *states) s.last_fetch_timestamp = s.last_caught_up_timestamp = -1;
          }
        }
      }
    }
    ExpectRoundTrip(WriteDescribeQuorumResponse, ReadDescribeQuorumResponse, Full(), expected, v);
  }
}

TEST(KafkaDescribeQuorum, TheV2ResponseLayout) {
  DescribeQuorumResponse r;
  DescribeQuorumResponse::Partition p;
  p.leader_id = 1;
  p.leader_epoch = 3;
  p.high_watermark = 9;
  p.current_voters.push_back({1, std::string(16, 'x'), 9, -1, 5});
  r.topics.push_back({"m", {p}});
  r.nodes.push_back({1, {{"C", "h", 65535}}});
  std::string bytes = HandBytes()
                          .I16(0)
                          .CNull()  // error message
                          .CArray(1)
                          .CStr("m")
                          .CArray(1)
                          .I32(0)
                          .I16(0)
                          .CNull()
                          .I32(1)
                          .I32(3)
                          .I64(9)
                          .CArray(1)
                          .I32(1)
                          .Uuid('x')
                          .I64(9)
                          .I64(-1)
                          .I64(5)
                          .NoTags()
                          .CArray(0)  // observers
                          .NoTags()   // partition
                          .NoTags()   // topic
                          .CArray(1)
                          .I32(1)
                          .CArray(1)
                          .CStr("C")
                          .CStr("h")
                          .I16(0xffff)  // uint16 65535
                          .NoTags()     // listener
                          .NoTags()     // node
                          .NoTags()
                          .str();
  ExpectLayout(WriteDescribeQuorumResponse, ReadDescribeQuorumResponse, r, bytes, 2);
}

}  // namespace
}  // namespace strata::proto::kafka
