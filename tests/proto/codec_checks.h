#pragma once
// The checks the Kafka codec tests share: encode a value at a version, decode bytes that
// must be used whole, refuse every truncation, round-trip a value, and compare an encoding
// with hand-built bytes (hand_bytes.h builds them field by field; B() from a literal).
// Not thread-safe (GoogleTest assertions).

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka::testing {

template <typename T>
using WriteFn = void (*)(const T&, int16_t, Writer&);
template <typename T>
using ReadFn = absl::StatusOr<T> (*)(Reader&, int16_t);

// A byte string from a literal that may hold NULs: B("\x00\x01") is two bytes.
template <size_t N>
std::string B(const char (&bytes)[N]) {
  return std::string(bytes, N - 1);
}

template <typename T>
std::string Encode(const T& value, int16_t version, WriteFn<T> write) {
  std::string out;
  Writer w(&out);
  write(value, version, w);
  return out;
}

// Every proper prefix of `bytes` is refused at `version`.
template <typename T>
void ExpectTruncationsRefused(const std::string& bytes, int16_t version, ReadFn<T> read) {
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Reader truncated(absl::string_view(bytes).substr(0, cut));
    EXPECT_FALSE(read(truncated, version).ok()) << "v" << version << " cut at " << cut << " of " << bytes.size();
  }
}

// Decodes all of `bytes` (nothing may be left), and checks that every shorter prefix is
// refused.
template <typename T>
absl::StatusOr<T> DecodeWhole(const std::string& bytes, int16_t version, ReadFn<T> read) {
  ExpectTruncationsRefused(bytes, version, read);
  Reader r(bytes);
  absl::StatusOr<T> value = read(r, version);
  EXPECT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(r.remaining(), 0u);
  return value;
}

// Writes `value` at `version`, reads it back (expecting `expected`: value with the
// fields this version lacks at their defaults), re-encodes what was read, and refuses
// every truncation of the encoding.
template <typename T>
void ExpectRoundTrip(WriteFn<T> write, ReadFn<T> read, const T& value, const T& expected, int16_t version) {
  SCOPED_TRACE(::testing::Message() << "version " << version);
  std::string bytes = Encode(value, version, write);
  absl::StatusOr<T> back = DecodeWhole(bytes, version, read);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(*back == expected) << absl::CHexEscape(bytes);
  EXPECT_EQ(Encode(*back, version, write), bytes);
}

// The hand-built `bytes` are what the writer writes and read back as `value`.
template <typename T>
void ExpectLayout(WriteFn<T> write, ReadFn<T> read, const T& value, const std::string& bytes, int16_t version) {
  SCOPED_TRACE(::testing::Message() << "version " << version);
  EXPECT_EQ(absl::CHexEscape(Encode(value, version, write)), absl::CHexEscape(bytes));
  Reader r(bytes);
  absl::StatusOr<T> back = read(r, version);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(*back == value);
}

}  // namespace strata::proto::kafka::testing
