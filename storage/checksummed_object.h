#pragma once
// A checksummed object: a file's bytes followed by a CRC32C per chunk of them, so that a
// read of any byte range verifies only the chunks it touches. Layout (big-endian):
//   data (data_length bytes)
//   chunk_count x u32  CRC32C of each chunk_size-byte chunk (the last may be shorter)
//   u32 chunk_size, u64 data_length, u32 chunk_count, u32 magic "STRO",
//   u32 CRC32C of the CRC table and the four fields before it
// Written to path.tmp, fsynced and renamed over path (the caller syncs the directory),
// so a reader sees a whole object or none. Every failure — a missing or short file, a
// bad footer, a chunk whose checksum does not match — is Errc::kRemoteStorageError
// naming the object and, for a checksum, the chunk and its byte range.
// Thread-safe (stateless; each call opens the file).

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/file_ops.h"

namespace strata::storage {

inline constexpr uint32_t kDefaultObjectChunkBytes = 1 << 20;

// Copies the file at source (all of it; empty source: no bytes) into the object at path.
absl::Status WriteChecksummedObject(FileOps& ops, const std::string& source, const std::string& path,
                                    uint32_t chunk_bytes = kDefaultObjectChunkBytes);
// Writes bytes as the object at path.
absl::Status WriteChecksummedObjectFrom(FileOps& ops, absl::string_view bytes, const std::string& path,
                                        uint32_t chunk_bytes = kDefaultObjectChunkBytes);
// Bytes [start, end) of the object's data, end clipped to its length; verified.
absl::StatusOr<std::string> ReadChecksummedObject(FileOps& ops, const std::string& path, uint64_t start,
                                                  uint64_t end);
// The data's length (the footer verified).
absl::StatusOr<uint64_t> ChecksummedObjectLength(FileOps& ops, const std::string& path);

}  // namespace strata::storage
