#include "storage/crc32c.h"

#include <array>
#include <cstring>

namespace strata::storage {
namespace {

constexpr uint32_t kPolynomial = 0x82F63B78;  // reversed Castagnoli

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t crc = i;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ ((crc & 1) ? kPolynomial : 0);
    table[i] = crc;
  }
  return table;
}
constexpr auto kTable = MakeTable();

uint32_t ExtendPortable(uint32_t crc, const uint8_t* p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint64_t ExtendHardwareRaw(uint64_t c, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n > 0) {
    c32 = __builtin_ia32_crc32qi(c32, *p++);
    --n;
  }
  return c32;
}

// The crc32 instruction has a latency of three cycles and a throughput of one per
// cycle, so large inputs are split into three interleaved streams over consecutive
// blocks of kBlock bytes, whose registers are then combined: the CRC register is
// linear, so state(A || B) = Shift_|B|(state(A)) ^ state_from_zero(B). Shift_n is
// applied with four 256-entry tables per shift distance.
constexpr size_t kBlock = 1024;

struct ShiftTables {
  uint32_t by_one_block[4][256];
  uint32_t by_two_blocks[4][256];
};

__attribute__((target("sse4.2"))) uint32_t ShiftByZeros(uint32_t state, size_t bytes) {
  uint64_t c = state;
  for (size_t i = 0; i < bytes / 8; ++i) c = __builtin_ia32_crc32di(c, 0);
  return static_cast<uint32_t>(c);
}

const ShiftTables& Tables() {
  static const ShiftTables* tables = [] {
    auto* t = new ShiftTables;
    for (int k = 0; k < 4; ++k) {
      for (uint32_t v = 0; v < 256; ++v) {
        t->by_one_block[k][v] = ShiftByZeros(v << (8 * k), kBlock);
        t->by_two_blocks[k][v] = ShiftByZeros(v << (8 * k), 2 * kBlock);
      }
    }
    return t;
  }();
  return *tables;
}

inline uint32_t Shift(const uint32_t (&table)[4][256], uint32_t x) {
  return table[0][x & 0xFF] ^ table[1][(x >> 8) & 0xFF] ^ table[2][(x >> 16) & 0xFF] ^ table[3][x >> 24];
}

__attribute__((target("sse4.2"))) uint32_t ExtendHardware(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = ~crc & 0xFFFFFFFFu;
  if (n >= 3 * kBlock) {
    const ShiftTables& tables = Tables();
    while (n >= 3 * kBlock) {
      uint64_t c1 = 0, c2 = 0;
      const uint8_t* p1 = p + kBlock;
      const uint8_t* p2 = p + 2 * kBlock;
      for (size_t i = 0; i < kBlock; i += 8) {
        uint64_t w0, w1, w2;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p1 + i, 8);
        std::memcpy(&w2, p2 + i, 8);
        c = __builtin_ia32_crc32di(c, w0);
        c1 = __builtin_ia32_crc32di(c1, w1);
        c2 = __builtin_ia32_crc32di(c2, w2);
      }
      c = Shift(tables.by_two_blocks, static_cast<uint32_t>(c)) ^ Shift(tables.by_one_block, static_cast<uint32_t>(c1)) ^
          static_cast<uint32_t>(c2);
      p += 3 * kBlock;
      n -= 3 * kBlock;
    }
  }
  return ~static_cast<uint32_t>(ExtendHardwareRaw(c, p, n));
}
const bool kHardware = __builtin_cpu_supports("sse4.2");
#else
const bool kHardware = false;
#endif

}  // namespace

bool Crc32cIsHardware() { return kHardware; }

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
#if defined(__x86_64__)
  if (kHardware) return ExtendHardware(crc, p, size);
#endif
  return ExtendPortable(crc, p, size);
}

}  // namespace strata::storage
