#include "proto/kafka/wire.h"

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::proto::kafka {

// ---- Reader ----

void Reader::Fail(std::string why) {
  if (error_.empty()) error_ = std::move(why);
  pos_ = data_.size();
}

bool Reader::Need(size_t n, const char* field) {
  if (!ok()) return false;
  if (data_.size() - pos_ < n) {
    Fail(absl::StrCat("'", field, "' needs ", n, " bytes at offset ", pos_, " but ", data_.size() - pos_, " remain"));
    return false;
  }
  return true;
}

absl::Status Reader::status() const {
  return ok() ? absl::OkStatus() : absl::InvalidArgumentError(absl::StrCat("malformed request: ", error_));
}

namespace {
uint64_t BigEndian(absl::string_view data, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<uint8_t>(data[pos + i]);
  return v;
}
}  // namespace

int8_t Reader::Int8(const char* field) {
  if (!Need(1, field)) return 0;
  return static_cast<int8_t>(data_[pos_++]);
}

int16_t Reader::Int16(const char* field) {
  if (!Need(2, field)) return 0;
  auto v = static_cast<int16_t>(BigEndian(data_, pos_, 2));
  pos_ += 2;
  return v;
}

int32_t Reader::Int32(const char* field) {
  if (!Need(4, field)) return 0;
  auto v = static_cast<int32_t>(BigEndian(data_, pos_, 4));
  pos_ += 4;
  return v;
}

uint32_t Reader::UInt32(const char* field) { return static_cast<uint32_t>(Int32(field)); }

double Reader::Float64(const char* field) { return absl::bit_cast<double>(Int64(field)); }

int64_t Reader::Int64(const char* field) {
  if (!Need(8, field)) return 0;
  auto v = static_cast<int64_t>(BigEndian(data_, pos_, 8));
  pos_ += 8;
  return v;
}

bool Reader::Bool(const char* field) { return Int8(field) != 0; }

uint32_t Reader::UnsignedVarInt(const char* field) {
  uint32_t v = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (!Need(1, field)) return 0;
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    if (shift == 28 && (b & 0xf0) != 0) break;  // more than 32 bits
    v |= static_cast<uint32_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return v;
  }
  Fail(absl::StrCat("'", field, "' is a varint longer than 5 bytes"));
  return 0;
}

int32_t Reader::VarInt(const char* field) {
  uint32_t z = UnsignedVarInt(field);
  return static_cast<int32_t>((z >> 1) ^ -(z & 1));
}

int64_t Reader::VarLong(const char* field) {
  uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (!Need(1, field)) return 0;
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    if (shift == 63 && (b & 0xfe) != 0) break;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return static_cast<int64_t>((v >> 1) ^ -(v & 1));
  }
  Fail(absl::StrCat("'", field, "' is a varlong longer than 10 bytes"));
  return 0;
}

std::string Reader::Uuid(const char* field) {
  if (!Need(16, field)) return std::string(16, '\0');
  std::string v(data_.substr(pos_, 16));
  pos_ += 16;
  return v;
}

std::optional<std::string> Reader::Sized(int64_t length, const char* field) {
  if (length < 0) return std::nullopt;
  if (!Need(static_cast<size_t>(length), field)) return std::nullopt;
  std::string v(data_.substr(pos_, static_cast<size_t>(length)));
  pos_ += static_cast<size_t>(length);
  return v;
}

std::optional<std::string> Reader::NullableString(bool flexible, const char* field) {
  int64_t length = flexible ? static_cast<int64_t>(UnsignedVarInt(field)) - 1 : Int16(field);
  if (length < -1) {
    Fail(absl::StrCat("'", field, "' has length ", length));
    return std::nullopt;
  }
  return Sized(length, field);
}

std::string Reader::String(bool flexible, const char* field) {
  bool was_ok = ok();
  auto s = NullableString(flexible, field);
  if (!s && was_ok && ok()) Fail(absl::StrCat("'", field, "' is null but may not be"));
  return s.value_or("");
}

std::optional<std::string> Reader::NullableBytes(bool flexible, const char* field) {
  int64_t length = flexible ? static_cast<int64_t>(UnsignedVarInt(field)) - 1 : Int32(field);
  if (length < -1) {
    Fail(absl::StrCat("'", field, "' has length ", length));
    return std::nullopt;
  }
  return Sized(length, field);
}

std::string Reader::Bytes(bool flexible, const char* field) {
  bool was_ok = ok();
  auto b = NullableBytes(flexible, field);
  if (!b && was_ok && ok()) Fail(absl::StrCat("'", field, "' is null but may not be"));
  return b.value_or("");
}

int32_t Reader::ArrayLength(bool flexible, const char* field) {
  int64_t n = flexible ? static_cast<int64_t>(UnsignedVarInt(field)) - 1 : Int32(field);
  if (n < -1) {
    Fail(absl::StrCat("'", field, "' has ", n, " elements"));
    return 0;
  }
  // Each element takes at least one byte: a count beyond what remains is malformed
  // (and must not make the caller reserve memory for it).
  if (n > static_cast<int64_t>(remaining())) {
    Fail(absl::StrCat("'", field, "' claims ", n, " elements but ", remaining(), " bytes remain"));
    return 0;
  }
  return static_cast<int32_t>(n);
}

void Reader::SkipTaggedFields(const char* where) {
  ReadTaggedFields(where, [](uint32_t, Reader&) {});
}

void Reader::ReadTaggedFields(const char* where, absl::FunctionRef<void(uint32_t tag, Reader& field)> read_field) {
  uint32_t count = UnsignedVarInt(where);
  for (uint32_t i = 0; i < count && ok(); ++i) {
    uint32_t tag = UnsignedVarInt(where);
    uint32_t size = UnsignedVarInt(where);
    if (!Need(size, where)) return;
    Reader field(data_.substr(pos_, size));
    read_field(tag, field);
    if (!field.ok()) return Fail(absl::StrCat(where, " tag ", tag, ": ", field.error_));
    if (field.remaining() != 0 && field.remaining() != size) {
      return Fail(absl::StrCat(where, " tag ", tag, " leaves ", field.remaining(), " of its ", size, " bytes unread"));
    }
    pos_ += size;
  }
}

// ---- Writer ----

void Writer::Int8(int8_t v) { out_.push_back(static_cast<char>(v)); }

void Writer::Int16(int16_t v) {
  for (int i = 1; i >= 0; --i) out_.push_back(static_cast<char>(static_cast<uint16_t>(v) >> (8 * i)));
}

void Writer::Int32(int32_t v) {
  for (int i = 3; i >= 0; --i) out_.push_back(static_cast<char>(static_cast<uint32_t>(v) >> (8 * i)));
}

void Writer::UInt32(uint32_t v) { Int32(static_cast<int32_t>(v)); }

void Writer::Float64(double v) { Int64(absl::bit_cast<int64_t>(v)); }

void Writer::Int64(int64_t v) {
  for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>(static_cast<uint64_t>(v) >> (8 * i)));
}

void Writer::UnsignedVarInt(uint32_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}

void Writer::VarInt(int32_t v) { UnsignedVarInt((static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31)); }

void Writer::VarLong(int64_t v) {
  uint64_t z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out_.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out_.push_back(static_cast<char>(z));
}

void Writer::Uuid(absl::string_view bytes16) {
  std::string padded(bytes16.substr(0, 16));
  padded.resize(16, '\0');
  out_ += padded;
}

void Writer::String(absl::string_view s, bool flexible) {
  ABSL_CHECK(flexible || s.size() <= 32767) << "a classic string holds at most 32767 bytes";
  if (flexible) {
    UnsignedVarInt(static_cast<uint32_t>(s.size()) + 1);
  } else {
    Int16(static_cast<int16_t>(s.size()));
  }
  out_.append(s.data(), s.size());
}

void Writer::NullableString(const std::optional<std::string>& s, bool flexible) {
  if (s) return String(*s, flexible);
  if (flexible) {
    UnsignedVarInt(0);
  } else {
    Int16(-1);
  }
}

void Writer::NullableBytes(const std::optional<std::string>& b, bool flexible) {
  if (b) return Bytes(*b, flexible);
  if (flexible) {
    UnsignedVarInt(0);
  } else {
    Int32(-1);
  }
}

void Writer::Bytes(absl::string_view b, bool flexible) {
  if (flexible) {
    UnsignedVarInt(static_cast<uint32_t>(b.size()) + 1);
  } else {
    Int32(static_cast<int32_t>(b.size()));
  }
  out_.append(b.data(), b.size());
}

void Writer::ArrayLength(int32_t n, bool flexible) {
  if (flexible) {
    UnsignedVarInt(static_cast<uint32_t>(n + 1));
  } else {
    Int32(n);
  }
}

void Writer::TaggedFields(const std::vector<TaggedField>& fields) {
  UnsignedVarInt(static_cast<uint32_t>(fields.size()));
  for (size_t i = 0; i < fields.size(); ++i) {
    ABSL_CHECK(i == 0 || fields[i - 1].tag < fields[i].tag) << "tagged fields out of order";
    UnsignedVarInt(fields[i].tag);
    UnsignedVarInt(static_cast<uint32_t>(fields[i].data.size()));
    out_ += fields[i].data;
  }
}

void Writer::PatchInt32(size_t offset, int32_t v) {
  for (int i = 0; i < 4; ++i) out_[offset + i] = static_cast<char>(static_cast<uint32_t>(v) >> (8 * (3 - i)));
}

void Writer::SplicedBytes(int32_t first_id, absl::Span<const uint64_t> sizes, bool flexible) {
  ABSL_CHECK(splices_ != nullptr) << "SplicedBytes needs a writer made with a splice list";
  uint64_t size = 0;
  for (uint64_t part : sizes) size += part;
  ABSL_CHECK(size < static_cast<uint64_t>(INT32_MAX)) << "spliced bytes of " << size;
  if (flexible) {
    UnsignedVarInt(static_cast<uint32_t>(size) + 1);
  } else {
    Int32(static_cast<int32_t>(size));
  }
  int32_t id = first_id;
  for (uint64_t part : sizes) splices_->push_back(Splice{out_.size(), id++, part});
}

}  // namespace strata::proto::kafka
