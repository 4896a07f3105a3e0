#pragma once
// Kafka messages built byte by byte from the protocol's field lists, without Writer, so
// that a codec test comparing against them catches a bug that Reader and Writer share.
// Not thread-safe.

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace strata::proto::kafka::testing {

class HandBytes {
 public:
  HandBytes& I8(int v) { return Byte(v); }
  HandBytes& I16(int v) { return Byte(v >> 8).Byte(v); }
  HandBytes& I32(int64_t v) { return Byte(v >> 24).Byte(v >> 16).Byte(v >> 8).Byte(v); }
  HandBytes& I64(int64_t v) { return I32(v >> 32).I32(v); }
  HandBytes& Bool(bool v) { return Byte(v ? 1 : 0); }
  HandBytes& Raw(absl::string_view bytes) {
    out_.append(bytes.data(), bytes.size());
    return *this;
  }
  // Classic: int16 length (-1 for null) and the bytes; arrays have an int32 count.
  HandBytes& Str(absl::string_view s) { return I16(static_cast<int>(s.size())).Raw(s); }
  HandBytes& NullStr() { return I16(-1); }
  HandBytes& Array(int n) { return I32(n); }
  // Classic bytes: int32 length (-1 for null) and the bytes.
  HandBytes& Bytes(absl::string_view b) { return I32(static_cast<int64_t>(b.size())).Raw(b); }
  HandBytes& NullBytes() { return I32(-1); }
  // Compact (flexible versions): unsigned varint length + 1, 0 for null. The lengths here
  // stay below 127, so the varint is one byte.
  HandBytes& CStr(absl::string_view s) { return Byte(static_cast<int>(s.size()) + 1).Raw(s); }
  HandBytes& CBytes(absl::string_view b) { return CStr(b); }  // compact bytes are compact strings' layout
  HandBytes& CNull() { return Byte(0); }
  HandBytes& CArray(int n) { return Byte(n + 1); }
  HandBytes& NoTags() { return Byte(0); }
  HandBytes& Uuid(char fill) { return Raw(std::string(16, fill)); }
  const std::string& str() const { return out_; }

 private:
  HandBytes& Byte(int64_t v) {
    out_.push_back(static_cast<char>(v & 0xff));
    return *this;
  }
  std::string out_;
};

}  // namespace strata::proto::kafka::testing
