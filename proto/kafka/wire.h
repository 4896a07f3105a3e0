#pragma once
// The Kafka protocol's primitive types (protocol.html "Protocol Primitive Types"):
// fixed-width big-endian integers, zig-zag varints, unsigned varints, strings and
// bytes (classic: int16/int32 length, -1 for null; compact, in flexible versions:
// unsigned varint length + 1, 0 for null), arrays (int32 or compact length), UUIDs and
// tagged fields.
// Reader never reads past its input: the first failure sticks, later reads return
// zero values, and status() names the field that did not fit. Writer appends to a
// string.
// Not thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace strata::proto::kafka {

class Reader {
 public:
  explicit Reader(absl::string_view data) : data_(data) {}

  int8_t Int8(const char* field);
  int16_t Int16(const char* field);
  int32_t Int32(const char* field);
  int64_t Int64(const char* field);
  double Float64(const char* field);  // IEEE 754 binary64, big-endian
  uint32_t UInt32(const char* field);
  bool Bool(const char* field);
  int32_t VarInt(const char* field);
  int64_t VarLong(const char* field);
  uint32_t UnsignedVarInt(const char* field);
  std::string Uuid(const char* field);  // 16 bytes

  // Strings and bytes; `flexible` selects the compact encoding.
  std::string String(bool flexible, const char* field);  // null is an error here
  std::optional<std::string> NullableString(bool flexible, const char* field);
  std::optional<std::string> NullableBytes(bool flexible, const char* field);
  std::string Bytes(bool flexible, const char* field);  // null is an error here
  // An array's element count; -1 for null.
  int32_t ArrayLength(bool flexible, const char* field);
  // Reads and drops a tagged-field section (flexible versions only).
  void SkipTaggedFields(const char* where);
  // Reads a tagged-field section, handing each field to `read_field` with a Reader over
  // exactly that field's bytes; a tag the callback does not know it leaves unread (and
  // so skipped). A field read that fails, or leaves bytes of a field it read unread,
  // fails this reader.
  void ReadTaggedFields(const char* where, absl::FunctionRef<void(uint32_t tag, Reader& field)> read_field);

  bool ok() const { return error_.empty(); }
  absl::Status status() const;
  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  absl::string_view rest() const { return data_.substr(pos_); }

 private:
  bool Need(size_t n, const char* field);
  void Fail(std::string why);
  std::optional<std::string> Sized(int64_t length, const char* field);

  absl::string_view data_;
  size_t pos_ = 0;
  std::string error_;
};

// A byte range the writer leaves out of its string: the caller sends `size` bytes of
// its own (a file slice, with sendfile) at `position` of the output. How a Fetch
// response carries record data without copying it.
struct Splice {
  size_t position = 0;  // in the writer's string: the spliced bytes go before this byte
  int32_t id = 0;       // the caller's handle
  uint64_t size = 0;
};

// One tagged field to write: its tag and its encoded value.
struct TaggedField {
  uint32_t tag = 0;
  std::string data;
};

class Writer {
 public:
  explicit Writer(std::string* out, std::vector<Splice>* splices = nullptr) : out_(*out), splices_(splices) {}

  void Int8(int8_t v);
  void Int16(int16_t v);
  void Int32(int32_t v);
  void Int64(int64_t v);
  void Float64(double v);
  void UInt32(uint32_t v);
  void Bool(bool v) { Int8(v ? 1 : 0); }
  void VarInt(int32_t v);
  void VarLong(int64_t v);
  void UnsignedVarInt(uint32_t v);
  void Uuid(absl::string_view bytes16);
  void String(absl::string_view s, bool flexible);
  void NullableString(const std::optional<std::string>& s, bool flexible);
  void NullableBytes(const std::optional<std::string>& b, bool flexible);
  void Bytes(absl::string_view b, bool flexible);
  void ArrayLength(int32_t n, bool flexible);  // -1: null
  void EmptyTaggedFields() { UnsignedVarInt(0); }
  // A tagged-field section. REQUIRES: tags strictly ascending.
  void TaggedFields(const std::vector<TaggedField>& fields);
  // Bytes (classic int32 or compact length) whose content the caller splices in, in
  // parts sent one after another: writes the length of them all and records a Splice
  // per part, with ids first_id, first_id + 1, ... REQUIRES: a writer made with splices.
  void SplicedBytes(int32_t first_id, absl::Span<const uint64_t> sizes, bool flexible);
  bool can_splice() const { return splices_ != nullptr; }

  size_t size() const { return out_.size(); }
  // Overwrites 4 bytes at offset with v (a frame's size, known at the end).
  void PatchInt32(size_t offset, int32_t v);

 private:
  std::string& out_;
  std::vector<Splice>* splices_;
};

}  // namespace strata::proto::kafka
