#pragma once
// Big-endian integer access and Kafka's zig-zag varints, used by the batch codec,
// the indexes and the snapshot files; little-endian loads for the codecs' frame headers
// (gzip, LZ4). Thread-safe (stateless).

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace strata::storage {

template <typename T>
inline T LoadBigEndian(const char* p) {
  using U = std::make_unsigned_t<T>;
  U value = 0;
  for (size_t i = 0; i < sizeof(T); ++i) value = static_cast<U>((value << 8) | static_cast<uint8_t>(p[i]));
  return static_cast<T>(value);
}

template <typename T>
inline T LoadLittleEndian(const char* p) {
  using U = std::make_unsigned_t<T>;
  U value = 0;
  for (size_t i = sizeof(T); i > 0; --i) value = static_cast<U>((value << 8) | static_cast<uint8_t>(p[i - 1]));
  return static_cast<T>(value);
}

template <typename T>
inline void StoreBigEndian(char* p, T value) {
  using U = std::make_unsigned_t<T>;
  U v = static_cast<U>(value);
  for (size_t i = sizeof(T); i > 0; --i) {
    p[i - 1] = static_cast<char>(v & 0xFF);
    v = static_cast<U>(v >> 8);
  }
}

template <typename T>
inline void AppendBigEndian(std::string* out, T value) {
  char buf[sizeof(T)];
  StoreBigEndian(buf, value);
  out->append(buf, sizeof(T));
}

inline void AppendVarlong(std::string* out, int64_t value) {
  uint64_t v = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
inline void AppendVarint(std::string* out, int32_t value) { AppendVarlong(out, value); }

// Reads a zig-zag varlong from the front of `*in`, advancing it; nullopt if the bytes
// end first or the encoding is longer than `max_bytes`.
inline std::optional<int64_t> ReadVarlong(absl::string_view* in, int max_bytes = 10) {
  uint64_t raw = 0;
  for (int i = 0; i < max_bytes; ++i) {
    if (in->empty()) return std::nullopt;
    uint8_t b = static_cast<uint8_t>(in->front());
    in->remove_prefix(1);
    raw |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
  }
  return std::nullopt;
}
inline std::optional<int32_t> ReadVarint(absl::string_view* in) {
  auto v = ReadVarlong(in, 5);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*v);
}

}  // namespace strata::storage
