#pragma once
// CRC32C (Castagnoli), the checksum of RecordBatch v2. Uses the SSE4.2 crc32
// instruction when the CPU has it and a table otherwise. Thread-safe.

#include <cstddef>
#include <cstdint>

namespace strata::storage {

// Extends `crc` (0 for a fresh checksum) over `data[0..size)`.
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size);
inline uint32_t Crc32c(const void* data, size_t size) { return Crc32cExtend(0, data, size); }
// True when the hardware instruction is in use.
bool Crc32cIsHardware();

}  // namespace strata::storage
