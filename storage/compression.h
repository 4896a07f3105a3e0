#pragma once
// The four codecs of a RecordBatch v2 records section (attributes bits 0-2), in the
// framings Kafka clients write, and the bound on what a batch may decompress to.
// Decompression is bounded: a decoder never produces more than max_output bytes and
// grows its output as it goes, so a small "bomb" costs at most max_output of memory.
// Thread-safe (stateless functions).
//
// Framings (docs/storage-format.md, "Compression"):
//   gzip    a gzip stream (RFC 1952), several concatenated members accepted as Java's
//           GZIPInputStream does; bytes after the last member that do not start another
//           member are refused. Written at zlib's default level (6, Kafka's default).
//   snappy  read: the raw snappy block (librdkafka's default) or the xerial framing the
//           Java client writes (magic 82 'SNAPPY' 00, i32 version, i32 compatible
//           version, then blocks of i32 big-endian length + raw snappy block), told
//           apart by the 8-byte magic. Written: xerial with 32 KiB blocks, as the Java
//           client and a Java broker recompressing a batch write it; librdkafka, the Java
//           client and the other common clients read it.
//   lz4     LZ4 frames (any valid frame, several concatenated). Written as Java's
//           KafkaLZ4BlockOutputStream writes them: 64 KiB independent blocks (Java's
//           reader refuses linked blocks), no block or content checksum, no content size;
//           liblz4's fast level (librdkafka's default).
//   zstd    zstd frames, decoded with ZSTD_decompressStream, so frames without a content
//           size (zstd-jni's streaming output) work; several frames accepted. Written at
//           level 3 (Kafka's default) with the content size in the frame header.
// Memory beyond the output: zlib's 32 KiB window; an LZ4 frame's block buffer (at most
// 4 MiB, set by the frame); a zstd window of at most max(8 MiB, 2 * max_output) (larger
// windows are refused with INVALID_RECORD; levels up to 19 use at most 8 MiB).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::storage {

// The codec id of attributes bits 0-2. Ids 5-7 are unassigned: a batch carrying one is
// refused wherever its records are needed.
enum class Compression : int8_t { kNone = 0, kGzip = 1, kSnappy = 2, kLz4 = 3, kZstd = 4 };

// "none", "gzip", "snappy", "lz4", "zstd"; "unknown" for ids 5-7.
const char* CompressionName(Compression codec);

// Kafka's topic setting compression.type: "producer" -> nullopt (keep the producer's
// codec), "uncompressed" -> kNone, "gzip", "snappy", "lz4", "zstd" -> that codec.
// Anything else (including "none", a producer-side value) is INVALID_CONFIG.
absl::StatusOr<std::optional<Compression>> ParseCompressionType(absl::string_view name);

// The bound on a batch's decompressed records section: 64 * max_message_bytes, at least
// 16 MiB and at most 512 MiB. Kafka's LogValidator streams records one by one and needs
// no bound; Strata holds the decompressed section whole, so a produce request of
// max.message.bytes could otherwise make it hold any amount. 64x lies well above what
// real record data compresses by (JSON and logs 3-10x, repetitive telemetry rarely past
// 30x) and far below a bomb's 1000x; the 16 MiB floor keeps topics with a small
// max.message.bytes accepting ordinary client batches (librdkafka's batch.size is 1 MB
// uncompressed; Java's is measured compressed); the 512 MiB ceiling bounds what one
// batch can make the broker hold, whatever max.message.bytes says.
size_t MaxUncompressedBatchBytes(int64_t max_message_bytes);
inline constexpr size_t kUncompressedBatchBytesFloor = size_t{16} << 20;
inline constexpr size_t kUncompressedBatchBytesCeiling = size_t{512} << 20;
// For callers without a topic's configuration (timestamp lookups, the Raft log).
inline constexpr size_t kDefaultMaxUncompressedBatchBytes = size_t{64} << 20;

// input compressed with codec in the framing above; kNone returns input unchanged.
// INVALID_ARGUMENT for ids 5-7.
absl::StatusOr<std::string> Compress(Compression codec, absl::string_view input);

// input decompressed. CORRUPT_MESSAGE naming the codec and what was wrong for input that
// does not decode (truncated, garbled, trailing bytes, empty); INVALID_RECORD ("<codec>
// input decompresses past N bytes") as soon as the output would pass max_output; a
// size declared in a frame is trusted only up to max_output. INVALID_RECORD for ids 5-7.
// kNone returns input (INVALID_RECORD when it is longer than max_output).
absl::StatusOr<std::string> Decompress(Compression codec, absl::string_view input, size_t max_output);

}  // namespace strata::storage
