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
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "storage/file_ops.h"

namespace strata::storage {

inline constexpr uint32_t kDefaultObjectChunkBytes = 1 << 20;

// Copies the file at source (all of it; empty source: no bytes) into the object at path;
// pace (optional) hears each piece's size before it is read.
absl::Status WriteChecksummedObject(FileOps& ops, const std::string& source, const std::string& path,
                                    uint32_t chunk_bytes = kDefaultObjectChunkBytes,
                                    const std::function<void(int64_t)>& pace = nullptr);
// Writes bytes as the object at path.
absl::Status WriteChecksummedObjectFrom(FileOps& ops, absl::string_view bytes, const std::string& path,
                                        uint32_t chunk_bytes = kDefaultObjectChunkBytes);
// Bytes [start, end) of the object's data, end clipped to its length; verified.
absl::StatusOr<std::string> ReadChecksummedObject(FileOps& ops, const std::string& path, uint64_t start,
                                                  uint64_t end);
// The data's length (the footer verified).
absl::StatusOr<uint64_t> ChecksummedObjectLength(FileOps& ops, const std::string& path);

// The format's parts, for stores that are not local files (objectstore/). name is the
// object's name in errors.
struct ObjectFooter {
  uint32_t chunk_bytes = 0;
  uint64_t data_length = 0;
  std::vector<uint32_t> crcs;  // one per chunk
};
inline constexpr size_t kObjectTailBytes = 24;  // the fixed fields at the very end

// The checksum table of data appended in pieces of any size, then the footer's bytes.
class ObjectChecksums {
 public:
  explicit ObjectChecksums(uint32_t chunk_bytes);
  void Append(absl::string_view bytes);
  uint64_t length() const { return length_; }
  std::string Footer() const;  // the CRC table and the tail, to follow the data
  // The size of the whole object that data_length bytes of data make.
  static uint64_t ObjectSize(uint64_t data_length, uint32_t chunk_bytes);

 private:
  const uint32_t chunk_bytes_;
  uint64_t length_ = 0;
  std::vector<uint32_t> crcs_;
};

// From the object's last kObjectTailBytes bytes: how many bytes at its end the whole
// footer (CRC table and tail) takes, checked against the object's size.
absl::StatusOr<uint64_t> ObjectFooterBytes(absl::string_view tail, uint64_t object_size, const std::string& name);
// The footer from the object's last ObjectFooterBytes() bytes, its checksum verified.
absl::StatusOr<ObjectFooter> ParseObjectFooter(absl::string_view footer, uint64_t object_size,
                                               const std::string& name);
// Checks bytes, the data's chunks from first_chunk on (whole chunks, the last one of the
// data possibly short), against the footer.
absl::Status VerifyObjectChunks(const ObjectFooter& footer, uint64_t first_chunk, absl::string_view bytes,
                                const std::string& name);

}  // namespace strata::storage
