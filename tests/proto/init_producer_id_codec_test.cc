// InitProducerId (key 22) codec: requests and responses round-trip at v0, v1, v2 (the
// first flexible version), v3 and v4; hand-built byte sequences pin the layout in each
// direction; every truncation is refused.

#include <gtest/gtest.h>

#include "proto/kafka/init_producer_id.h"
#include "proto/kafka/wire.h"
#include "tests/proto/codec_checks.h"

namespace strata::proto::kafka {
namespace {

using testing::B;
using testing::DecodeWhole;
using testing::Encode;

std::string Encode(const InitProducerIdRequest& req, int16_t version) {
  return Encode(req, version, WriteInitProducerIdRequest);
}

std::string Encode(const InitProducerIdResponse& resp, int16_t version) {
  return Encode(resp, version, WriteInitProducerIdResponse);
}

TEST(KafkaInitProducerId, RequestsRoundTripAtV0V1V2V3AndV4) {
  for (int16_t version : {0, 1, 2, 3, 4}) {
    SCOPED_TRACE(version);
    for (std::optional<std::string> transactional_id : {std::optional<std::string>(), std::optional<std::string>("tx-1")}) {
      InitProducerIdRequest req;
      req.transactional_id = transactional_id;
      req.transaction_timeout_ms = 60000;
      req.producer_id = 4242;
      req.producer_epoch = 7;
      auto back = DecodeWhole(Encode(req, version), version, ReadInitProducerIdRequest);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(back->transactional_id, transactional_id);
      EXPECT_EQ(back->transaction_timeout_ms, 60000);
      // Before v3 the producer's current id and epoch are not on the wire.
      EXPECT_EQ(back->producer_id, version >= 3 ? 4242 : kNoProducerId);
      EXPECT_EQ(back->producer_epoch, version >= 3 ? 7 : kNoProducerEpoch);
    }
  }
}

TEST(KafkaInitProducerId, ResponsesRoundTripAtV0V1V2V3AndV4) {
  InitProducerIdResponse resp;
  resp.throttle_time_ms = 3;
  resp.error_code = 0;
  resp.producer_id = (int64_t{1} << 40) + 5;
  resp.producer_epoch = 0;
  for (int16_t version : {0, 1, 2, 3, 4}) {
    SCOPED_TRACE(version);
    std::string out = Encode(resp, version);
    EXPECT_EQ(out.size(), version >= 2 ? 17u : 16u);
    auto back = DecodeWhole(out, version, ReadInitProducerIdResponse);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->throttle_time_ms, 3);
    EXPECT_EQ(back->error_code, 0);
    EXPECT_EQ(back->producer_id, (int64_t{1} << 40) + 5);
    EXPECT_EQ(back->producer_epoch, 0);
  }
}

// The bytes a client sends, built by hand from the protocol's field list.
TEST(KafkaInitProducerId, RequestBytesMatchTheProtocolLayout) {
  // v0: nullable string (int16 length, -1 for null), int32 timeout.
  const std::string v0 = B("\xff\xff" "\x00\x00\x75\x30");
  auto a = [&] {
    Reader r(v0);
    return ReadInitProducerIdRequest(r, 0);
  }();
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->transactional_id, std::nullopt);
  EXPECT_EQ(a->transaction_timeout_ms, 30000);
  InitProducerIdRequest idempotent;
  idempotent.transaction_timeout_ms = 30000;
  EXPECT_EQ(Encode(idempotent, 0), v0);

  // v4: compact nullable string ("tx": length + 1 = 3), int32 timeout, int64 producer
  // id, int16 epoch, then an empty tagged-field section.
  const std::string v4 = B("\x03" "tx" "\x00\x00\x03\xe8" "\x00\x00\x00\x00\x00\x00\x01\x02" "\x00\x05" "\x00");
  Reader r4(v4);
  auto b = ReadInitProducerIdRequest(r4, 4);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->transactional_id, std::optional<std::string>("tx"));
  EXPECT_EQ(b->transaction_timeout_ms, 1000);
  EXPECT_EQ(b->producer_id, 258);
  EXPECT_EQ(b->producer_epoch, 5);
  InitProducerIdRequest transactional{std::string("tx"), 1000, 258, 5};
  EXPECT_EQ(Encode(transactional, 4), v4);

  // v2: flexible, without the producer's id and epoch; null is a compact length of 0.
  idempotent.transaction_timeout_ms = -1;
  EXPECT_EQ(Encode(idempotent, 2), B("\x00" "\xff\xff\xff\xff" "\x00"));
}

// The bytes a broker answers, built by hand from the protocol's field list.
TEST(KafkaInitProducerId, ResponseBytesMatchTheProtocolLayout) {
  InitProducerIdResponse resp;
  resp.throttle_time_ms = 0;
  resp.error_code = 0;
  resp.producer_id = 1000;
  resp.producer_epoch = 0;
  // v1: int32 throttle, int16 error, int64 producer id, int16 epoch.
  EXPECT_EQ(Encode(resp, 1), B("\x00\x00\x00\x00" "\x00\x00" "\x00\x00\x00\x00\x00\x00\x03\xe8" "\x00\x00"));
  // v3: the same fields and an empty tagged-field section; an error with no id.
  InitProducerIdResponse refused;
  refused.error_code = 35;
  const std::string v3 = B("\x00\x00\x00\x00" "\x00\x23" "\xff\xff\xff\xff\xff\xff\xff\xff" "\xff\xff" "\x00");
  EXPECT_EQ(Encode(refused, 3), v3);
  Reader r(v3);
  auto back = ReadInitProducerIdResponse(r, 3);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->error_code, 35);
  EXPECT_EQ(back->producer_id, kNoProducerId);
  EXPECT_EQ(back->producer_epoch, kNoProducerEpoch);
}

TEST(KafkaInitProducerId, TaggedFieldsInAFlexibleRequestAreSkipped) {
  // v2, idempotent, one unknown tagged field (tag 9, two bytes).
  const std::string bytes = B("\x00" "\x00\x00\x00\x10" "\x01" "\x09\x02" "ab");
  Reader r(bytes);
  auto req = ReadInitProducerIdRequest(r, 2);
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_EQ(req->transaction_timeout_ms, 16);
  EXPECT_EQ(r.remaining(), 0u);
}

}  // namespace
}  // namespace strata::proto::kafka
