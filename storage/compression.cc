#include "storage/compression.h"

#include <lz4frame.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "storage/bytes.h"
#include "storage/errc.h"

namespace strata::storage {
namespace {

constexpr size_t kKiB = 1024;
// The xerial framing (github.com/xerial/snappy-java, SnappyOutputStream).
constexpr char kXerialMagic[8] = {'\x82', 'S', 'N', 'A', 'P', 'P', 'Y', '\0'};
constexpr int32_t kXerialVersion = 1;
constexpr size_t kXerialHeaderSize = sizeof(kXerialMagic) + 8;
constexpr size_t kXerialBlockSize = 32 * kKiB;
// A snappy element yields at most 64 bytes per 3 input bytes (a 2-byte-offset copy).
constexpr size_t kSnappyMaxRatio = 22;
// zstd refuses windows above 2^27 by default (ZSTD_WINDOWLOG_LIMIT_DEFAULT); below 2^23
// frames of levels up to 19 would be refused.
constexpr int kZstdMinWindowLog = 23;
constexpr int kZstdMaxWindowLog = 27;
constexpr uint32_t kLz4FrameMagic = 0x184D2204;

absl::Status Corrupt(Compression codec, absl::string_view what) {
  return MakeError(Errc::kCorruptMessage, absl::StrCat(CompressionName(codec), " input ", what));
}

absl::Status PastBound(Compression codec, size_t max_output) {
  return MakeError(Errc::kInvalidRecord,
                   absl::StrCat(CompressionName(codec), " input decompresses past ", max_output, " bytes"));
}

// The output of a streaming decoder: a buffer that grows by doubling up to one byte
// past max_output, so that a decoder filling it has proven the output too long.
class BoundedOutput {
 public:
  // initial: the expected output size (a size the input declares, or a guess).
  BoundedOutput(size_t max_output, size_t initial)
      : max_output_(max_output),
        limit_(max_output == std::numeric_limits<size_t>::max() ? max_output : max_output + 1) {
    buffer_.resize(std::min(limit_, std::max(initial, size_t{1})));
  }

  char* free_space() { return buffer_.data() + used_; }
  size_t free_size() const { return buffer_.size() - used_; }
  void Commit(size_t n) { used_ += n; }
  bool past_bound() const { return used_ > max_output_; }
  // Makes room when the buffer is full; false once the limit is reached.
  bool GrowIfFull() {
    if (free_size() > 0) return true;
    if (buffer_.size() >= limit_) return false;
    size_t doubled = buffer_.size() > limit_ / 2 ? limit_ : buffer_.size() * 2;
    buffer_.resize(std::min(limit_, std::max(doubled, 64 * kKiB)));
    return true;
  }
  std::string Take() {
    buffer_.resize(used_);
    // A declared size that lied leaves a large unused capacity behind.
    if (buffer_.capacity() > 2 * used_ + 64 * kKiB) buffer_.shrink_to_fit();
    return std::move(buffer_);
  }

 private:
  size_t max_output_;
  size_t limit_;
  std::string buffer_;
  size_t used_ = 0;
};

// The output size to start with when the input declares none.
size_t GuessOutputSize(absl::string_view input) { return std::max(64 * kKiB, input.size() * 4); }

// ---- gzip ----

absl::StatusOr<std::string> GzipCompress(absl::string_view input) {
  // A batch's records section is far below 4 GiB (batchLength is an i32).
  if (input.size() > std::numeric_limits<uInt>::max()) {
    return MakeError(Errc::kInvalidArgument, "gzip: input of 4 GiB or more");
  }
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return MakeError(Errc::kInvalidArgument, "gzip: deflateInit2 failed");
  }
  std::unique_ptr<z_stream, decltype(&deflateEnd)> guard(&z, &deflateEnd);
  std::string out(deflateBound(&z, static_cast<uLong>(input.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  z.avail_in = static_cast<uInt>(input.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) return MakeError(Errc::kInvalidArgument, "gzip: deflate failed");
  out.resize(z.total_out);
  return out;
}

absl::StatusOr<std::string> GzipDecompress(absl::string_view input, size_t max_output) {
  constexpr Compression kCodec = Compression::kGzip;
  if (input.empty()) return Corrupt(kCodec, "is empty");
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return MakeError(Errc::kInvalidArgument, "gzip: inflateInit2 failed");
  std::unique_ptr<z_stream, decltype(&inflateEnd)> guard(&z, &inflateEnd);
  // The trailer's ISIZE is the last member's length mod 2^32: a hint only.
  size_t declared = input.size() >= 18 ? LoadLittleEndian<uint32_t>(input.data() + input.size() - 4) + size_t{1}
                                        : GuessOutputSize(input);
  BoundedOutput out(max_output, declared);
  absl::string_view rest = input;
  while (true) {
    if (!out.GrowIfFull()) return PastBound(kCodec, max_output);
    size_t in_chunk = std::min<size_t>(rest.size(), std::numeric_limits<uInt>::max());
    size_t out_chunk = std::min<size_t>(out.free_size(), std::numeric_limits<uInt>::max());
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(rest.data()));
    z.avail_in = static_cast<uInt>(in_chunk);
    z.next_out = reinterpret_cast<Bytef*>(out.free_space());
    z.avail_out = static_cast<uInt>(out_chunk);
    int r = inflate(&z, Z_NO_FLUSH);
    rest.remove_prefix(in_chunk - z.avail_in);
    out.Commit(out_chunk - z.avail_out);
    if (out.past_bound()) return PastBound(kCodec, max_output);
    if (r == Z_STREAM_END) {
      if (rest.empty()) return out.Take();
      // Another member follows (or garbage, which its header check refuses).
      if (inflateReset(&z) != Z_OK) return Corrupt(kCodec, "cannot restart after a member");
      continue;
    }
    if (r != Z_OK && r != Z_BUF_ERROR) {
      return Corrupt(kCodec, absl::StrCat("at byte ", input.size() - rest.size(), ": ",
                                          z.msg != nullptr ? z.msg : "inflate failed"));
    }
    // No error and room left for output: the decoder wants input that is not there.
    if (z.avail_out > 0 && (rest.empty() || z.avail_in == in_chunk)) return Corrupt(kCodec, "is truncated");
  }
}

// ---- snappy ----

// The length a raw snappy block declares it decodes to, when `so_far` bytes are out
// already: refused past max_output, and refused as corrupt when more than the block's
// bytes can encode (so a tiny block cannot make the caller allocate the bound).
absl::StatusOr<size_t> SnappyBlockLength(absl::string_view block, size_t so_far, size_t max_output) {
  constexpr Compression kCodec = Compression::kSnappy;
  size_t length = 0;
  if (!snappy::GetUncompressedLength(block.data(), block.size(), &length)) {
    return Corrupt(kCodec, "block has no valid length preamble");
  }
  if (length > max_output || so_far > max_output - length) return PastBound(kCodec, max_output);
  if (length / kSnappyMaxRatio > block.size()) {
    return Corrupt(kCodec, absl::StrCat("block of ", block.size(), " bytes declares ", length,
                                        " bytes, more than snappy can encode in it"));
  }
  return length;
}

absl::Status SnappyBlockDecode(absl::string_view block, char* out) {
  if (!snappy::RawUncompress(block.data(), block.size(), out)) {
    return Corrupt(Compression::kSnappy, "block does not decode");
  }
  return absl::OkStatus();
}

// Calls fn for each raw snappy block of a xerial stream; CORRUPT_MESSAGE when the
// framing is broken.
absl::Status ForEachXerialBlock(absl::string_view input, const std::function<absl::Status(absl::string_view)>& fn) {
  constexpr Compression kCodec = Compression::kSnappy;
  absl::string_view rest = input;
  while (!rest.empty()) {
    // A stream written by several xerial writers back to back repeats the header.
    if (rest.size() >= sizeof(kXerialMagic) && std::memcmp(rest.data(), kXerialMagic, sizeof(kXerialMagic)) == 0) {
      if (rest.size() < kXerialHeaderSize) return Corrupt(kCodec, "xerial header is truncated");
      rest.remove_prefix(kXerialHeaderSize);
      continue;
    }
    if (rest.size() < 4) return Corrupt(kCodec, "xerial block length is truncated");
    int32_t length = LoadBigEndian<int32_t>(rest.data());
    rest.remove_prefix(4);
    if (length <= 0 || static_cast<size_t>(length) > rest.size()) {
      return Corrupt(kCodec, absl::StrCat("xerial block of ", length, " bytes at byte ", input.size() - rest.size() - 4,
                                          ", ", rest.size(), " bytes follow"));
    }
    STRATA_RETURN_IF_ERROR(fn(rest.substr(0, length)));
    rest.remove_prefix(length);
  }
  return absl::OkStatus();
}

// Two passes: the blocks' declared lengths first (framing and the bound checked before
// anything is decoded or allocated), then each block straight into its place.
absl::StatusOr<std::string> XerialDecompress(absl::string_view input, size_t max_output) {
  size_t total = 0;
  STRATA_RETURN_IF_ERROR(ForEachXerialBlock(input, [&](absl::string_view block) -> absl::Status {
    STRATA_ASSIGN_OR_RETURN(size_t length, SnappyBlockLength(block, total, max_output));
    total += length;
    return absl::OkStatus();
  }));
  std::string out(total, '\0');
  size_t at = 0;
  STRATA_RETURN_IF_ERROR(ForEachXerialBlock(input, [&](absl::string_view block) -> absl::Status {
    size_t length = 0;
    snappy::GetUncompressedLength(block.data(), block.size(), &length);  // checked in the first pass
    STRATA_RETURN_IF_ERROR(SnappyBlockDecode(block, out.data() + at));
    at += length;
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::string> SnappyDecompress(absl::string_view input, size_t max_output) {
  if (input.empty()) return Corrupt(Compression::kSnappy, "is empty");
  if (input.size() >= sizeof(kXerialMagic) && std::memcmp(input.data(), kXerialMagic, sizeof(kXerialMagic)) == 0) {
    return XerialDecompress(input, max_output);
  }
  STRATA_ASSIGN_OR_RETURN(size_t length, SnappyBlockLength(input, 0, max_output));
  std::string out(length, '\0');
  STRATA_RETURN_IF_ERROR(SnappyBlockDecode(input, out.data()));
  return out;
}

std::string SnappyCompress(absl::string_view input) {
  std::string out(kXerialMagic, sizeof(kXerialMagic));
  AppendBigEndian(&out, kXerialVersion);
  AppendBigEndian(&out, kXerialVersion);  // compatible version
  std::string block;
  for (size_t at = 0; at < input.size(); at += kXerialBlockSize) {
    size_t n = std::min(kXerialBlockSize, input.size() - at);
    block.resize(snappy::MaxCompressedLength(n));
    size_t written = 0;
    snappy::RawCompress(input.data() + at, n, block.data(), &written);
    AppendBigEndian(&out, static_cast<int32_t>(written));
    out.append(block.data(), written);
  }
  return out;
}

// ---- lz4 ----

absl::StatusOr<std::string> Lz4Compress(absl::string_view input) {
  LZ4F_preferences_t prefs{};
  prefs.frameInfo.blockSizeID = LZ4F_max64KB;
  prefs.frameInfo.blockMode = LZ4F_blockIndependent;
  prefs.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  prefs.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
  prefs.compressionLevel = 0;
  std::string out(LZ4F_compressFrameBound(input.size(), &prefs), '\0');
  size_t n = LZ4F_compressFrame(out.data(), out.size(), input.data(), input.size(), &prefs);
  if (LZ4F_isError(n)) return MakeError(Errc::kInvalidArgument, absl::StrCat("lz4: ", LZ4F_getErrorName(n)));
  out.resize(n);
  return out;
}

// The content size of an LZ4 frame header, when it carries one.
std::optional<uint64_t> Lz4DeclaredSize(absl::string_view input) {
  if (input.size() < 14 || LoadLittleEndian<uint32_t>(input.data()) != kLz4FrameMagic) return std::nullopt;
  if ((static_cast<uint8_t>(input[4]) & 0x08) == 0) return std::nullopt;
  return LoadLittleEndian<uint64_t>(input.data() + 6);
}

absl::StatusOr<std::string> Lz4Decompress(absl::string_view input, size_t max_output) {
  constexpr Compression kCodec = Compression::kLz4;
  if (input.empty()) return Corrupt(kCodec, "is empty");
  LZ4F_dctx* raw_ctx = nullptr;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&raw_ctx, LZ4F_VERSION))) {
    return MakeError(Errc::kInvalidArgument, "lz4: cannot create a decompression context");
  }
  std::unique_ptr<LZ4F_dctx, decltype(&LZ4F_freeDecompressionContext)> ctx(raw_ctx, &LZ4F_freeDecompressionContext);
  std::optional<uint64_t> declared = Lz4DeclaredSize(input);
  if (declared && *declared > max_output) {
    // Only a header that checks out (version, header checksum) is taken at its word.
    LZ4F_frameInfo_t info{};
    size_t consumed = input.size();
    size_t checked = LZ4F_getFrameInfo(ctx.get(), &info, input.data(), &consumed);
    if (LZ4F_isError(checked)) return Corrupt(kCodec, absl::StrCat("frame header: ", LZ4F_getErrorName(checked)));
    return PastBound(kCodec, max_output);
  }
  BoundedOutput out(max_output, declared ? *declared + 1 : GuessOutputSize(input));
  absl::string_view rest = input;
  while (true) {
    if (!out.GrowIfFull()) return PastBound(kCodec, max_output);
    size_t src_size = rest.size();
    size_t dst_size = out.free_size();
    size_t hint = LZ4F_decompress(ctx.get(), out.free_space(), &dst_size, rest.data(), &src_size, nullptr);
    if (LZ4F_isError(hint)) {
      return Corrupt(kCodec, absl::StrCat("at byte ", input.size() - rest.size(), ": ", LZ4F_getErrorName(hint)));
    }
    rest.remove_prefix(src_size);
    out.Commit(dst_size);
    if (out.past_bound()) return PastBound(kCodec, max_output);
    if (hint == 0) {
      // A frame ended; the context starts the next one on the next call.
      if (rest.empty()) return out.Take();
      continue;
    }
    // Neither input taken nor output made with room for it: the frame is cut short.
    if (src_size == 0 && dst_size == 0) return Corrupt(kCodec, "is truncated");
  }
}

// ---- zstd ----

absl::StatusOr<std::string> ZstdCompress(absl::string_view input) {
  std::string out(ZSTD_compressBound(input.size()), '\0');
  size_t n = ZSTD_compress(out.data(), out.size(), input.data(), input.size(), 3);
  if (ZSTD_isError(n)) return MakeError(Errc::kInvalidArgument, absl::StrCat("zstd: ", ZSTD_getErrorName(n)));
  out.resize(n);
  return out;
}

absl::StatusOr<std::string> ZstdDecompress(absl::string_view input, size_t max_output) {
  constexpr Compression kCodec = Compression::kZstd;
  if (input.empty()) return Corrupt(kCodec, "is empty");
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> ctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  if (!ctx) return MakeError(Errc::kInvalidArgument, "zstd: cannot create a decompression context");
  // The window is memory the decoder allocates whatever the output: at most twice the bound.
  int window_log = std::bit_width(std::min<size_t>(max_output, size_t{1} << 40));  // floor(log2) + 1
  ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, std::clamp(window_log, kZstdMinWindowLog, kZstdMaxWindowLog));
  unsigned long long declared = ZSTD_getFrameContentSize(input.data(), input.size());
  bool known = declared != ZSTD_CONTENTSIZE_UNKNOWN && declared != ZSTD_CONTENTSIZE_ERROR;
  if (known && declared > max_output) return PastBound(kCodec, max_output);
  BoundedOutput out(max_output, known ? declared + 1 : GuessOutputSize(input));
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  while (true) {
    if (!out.GrowIfFull()) return PastBound(kCodec, max_output);
    ZSTD_outBuffer dst{out.free_space(), out.free_size(), 0};
    size_t consumed = in.pos;
    size_t hint = ZSTD_decompressStream(ctx.get(), &dst, &in);
    if (ZSTD_isError(hint)) {
      if (ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge) {
        return MakeError(Errc::kInvalidRecord, absl::StrCat("zstd input needs a window larger than this bound of ",
                                                            max_output, " bytes allows"));
      }
      return Corrupt(kCodec, absl::StrCat("at byte ", in.pos, ": ", ZSTD_getErrorName(hint)));
    }
    out.Commit(dst.pos);
    if (out.past_bound()) return PastBound(kCodec, max_output);
    if (hint == 0) {
      // A frame ended and is flushed; another may follow.
      if (in.pos == in.size) return out.Take();
      continue;
    }
    // Output room left and no input (or none taken): the frame is cut short.
    if (dst.pos < dst.size && (in.pos == in.size || (in.pos == consumed && dst.pos == 0))) {
      return Corrupt(kCodec, "is truncated");
    }
  }
}

}  // namespace

const char* CompressionName(Compression codec) {
  switch (codec) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kSnappy: return "snappy";
    case Compression::kLz4: return "lz4";
    case Compression::kZstd: return "zstd";
  }
  return "unknown";
}

absl::StatusOr<std::optional<Compression>> ParseCompressionType(absl::string_view name) {
  struct Entry {
    absl::string_view name;
    std::optional<Compression> codec;
  };
  static constexpr Entry kTypes[] = {
      {"producer", std::nullopt},         {"uncompressed", Compression::kNone}, {"gzip", Compression::kGzip},
      {"snappy", Compression::kSnappy},   {"lz4", Compression::kLz4},           {"zstd", Compression::kZstd},
  };
  for (const Entry& e : kTypes) {
    if (e.name == name) return e.codec;
  }
  return MakeError(Errc::kInvalidConfig,
                   absl::StrCat("compression.type \"", name,
                                "\" is not one of producer, uncompressed, gzip, snappy, lz4, zstd"));
}

size_t MaxUncompressedBatchBytes(int64_t max_message_bytes) {
  constexpr int64_t kFactor = 64;
  if (max_message_bytes <= 0) return kUncompressedBatchBytesFloor;
  if (max_message_bytes > static_cast<int64_t>(kUncompressedBatchBytesCeiling / kFactor)) {
    return kUncompressedBatchBytesCeiling;
  }
  return std::clamp(static_cast<size_t>(max_message_bytes) * kFactor, kUncompressedBatchBytesFloor,
                    kUncompressedBatchBytesCeiling);
}

absl::StatusOr<std::string> Compress(Compression codec, absl::string_view input) {
  switch (codec) {
    case Compression::kNone: return std::string(input);
    case Compression::kGzip: return GzipCompress(input);
    case Compression::kSnappy: return SnappyCompress(input);
    case Compression::kLz4: return Lz4Compress(input);
    case Compression::kZstd: return ZstdCompress(input);
  }
  return MakeError(Errc::kInvalidArgument, absl::StrCat("unknown compression codec ", static_cast<int>(codec)));
}

absl::StatusOr<std::string> Decompress(Compression codec, absl::string_view input, size_t max_output) {
  switch (codec) {
    case Compression::kNone:
      if (input.size() > max_output) return PastBound(codec, max_output);
      return std::string(input);
    case Compression::kGzip: return GzipDecompress(input, max_output);
    case Compression::kSnappy: return SnappyDecompress(input, max_output);
    case Compression::kLz4: return Lz4Decompress(input, max_output);
    case Compression::kZstd: return ZstdDecompress(input, max_output);
  }
  return MakeError(Errc::kInvalidRecord, absl::StrCat("unknown compression codec ", static_cast<int>(codec)));
}

}  // namespace strata::storage
