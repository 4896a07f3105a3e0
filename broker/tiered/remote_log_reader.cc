#include "broker/tiered/remote_log_reader.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "broker/common/remote_segment_id.h"
#include "controller/metadata_image.h"
#include "storage/bytes.h"
#include "storage/errc.h"
#include "storage/offset_index.h"
#include "storage/record_batch.h"

namespace strata::broker {
namespace {

namespace layout = storage::batch_layout;

// Bytes read past what a fetch asked for, so that one read usually finds the batch
// that holds the fetch offset after the index entry below it.
constexpr uint64_t kReadAhead = 64 * 1024;


absl::Status Corrupt(const controller::RemoteLogSegments::Segment& s, absl::string_view what) {
  return storage::MakeError(storage::Errc::kRemoteStorageError,
                            absl::StrCat("remote segment ", absl::WebSafeBase64Escape(s.segment_id()), ": ", what));
}

}  // namespace

RemoteLogReader::RemoteLogReader(RemoteLogReaderOptions options)
    : options_(options),
      pool_(std::max(options.threads, 1), options.max_pending),
      indexes_(options.index_cache_bytes) {
  ABSL_CHECK(options_.remote_storage != nullptr);
  ABSL_CHECK(options_.chunk_cache != nullptr);
}

RemoteLogReader::~RemoteLogReader() { Shutdown(); }

absl::Status RemoteLogReader::Submit(std::function<void()> work) {
  return pool_.Schedule("remote-read", std::chrono::milliseconds(0), std::move(work)).status();
}

void RemoteLogReader::Shutdown() { pool_.Shutdown(); }

absl::StatusOr<std::shared_ptr<const std::string>> RemoteLogReader::Index(const Segment& segment,
                                                                          storage::RemoteIndexType type) {
  RemoteReadCache::Key key{segment.segment_id(), static_cast<int64_t>(type)};
  if (auto hit = indexes_.Get(key)) {
    ++hits_;
    return hit;
  }
  ++misses_;
  STRATA_ASSIGN_OR_RETURN(std::string data, options_.remote_storage->FetchIndex(RemoteIdOf(segment), type));
  auto value = std::make_shared<const std::string>(std::move(data));
  indexes_.Put(key, value);
  return value;
}

absl::StatusOr<bool> RemoteLogReader::CollectAbortedTxns(const Segment& segment, int64_t fetch_offset,
                                                         int64_t upper_bound, std::vector<storage::AbortedTxn>* out) {
  STRATA_ASSIGN_OR_RETURN(auto data, Index(segment, storage::RemoteIndexType::kTransaction));
  STRATA_ASSIGN_OR_RETURN(std::vector<storage::AbortedTxn> entries,
                          storage::TransactionIndex::Decode(*data, absl::StrCat("remote segment ", segment.segment_id(),
                                                                                " aborted index")));
  return storage::TransactionIndex::CollectFrom(entries, fetch_offset, upper_bound, out);
}

absl::StatusOr<RemoteChunkCache::Block> RemoteLogReader::GetBlock(const Segment& segment, int64_t block) {
  return options_.chunk_cache->Get({segment.segment_id(), block}, [&]() -> absl::StatusOr<std::string> {
    const uint64_t start = static_cast<uint64_t>(block) * kBlockBytes;
    STRATA_ASSIGN_OR_RETURN(std::string read,
                            options_.remote_storage->FetchLogSegment(RemoteIdOf(segment), start, start + kBlockBytes));
    read_bytes_ += static_cast<int64_t>(read.size());
    return read;
  });
}

void RemoteLogReader::Prefetch(const Segment& segment, int64_t block, const Segment* next) {
  if (options_.prefetch_max_bytes <= 0) return;
  constexpr int64_t kBlock = static_cast<int64_t>(kBlockBytes);
  // prefetch.max.size in whole blocks (rounded up): how far ahead of the reader, and how
  // many blocks may be coming at once over every reader.
  const int64_t ahead = (options_.prefetch_max_bytes + kBlock - 1) / kBlock;
  auto blocks_of = [](const Segment& s) { return (s.segment_size_in_bytes() + kBlock - 1) / kBlock; };
  // The `ahead` blocks after `block`: the rest of this segment, then the next one's first.
  std::vector<std::pair<const Segment*, int64_t>> wanted;
  for (int64_t b = block + 1; b < blocks_of(segment) && static_cast<int64_t>(wanted.size()) < ahead; ++b) {
    wanted.emplace_back(&segment, b);
  }
  for (int64_t b = 0; next != nullptr && b < blocks_of(*next) && static_cast<int64_t>(wanted.size()) < ahead; ++b) {
    wanted.emplace_back(next, b);
  }
  for (const auto& [of, b] : wanted) {
    RemoteChunkCache::Key key{of->segment_id(), b};
    if (options_.chunk_cache->Has(key)) continue;
    {
      absl::MutexLock lock(&prefetch_mu_);
      if (prefetching_.count(key) > 0) continue;
      if (static_cast<int64_t>(prefetching_.size()) >= ahead) return;
      prefetching_.insert(key);
    }
    absl::Status submitted = pool_.Schedule("remote-prefetch", std::chrono::milliseconds(0), [this, target = *of, key] {
      ++prefetches_;
      if (auto fetched = GetBlock(target, key.second); !fetched.ok()) {
        // The reader that wants it fetches it again and answers the error.
        spdlog::debug("prefetch of block {} of remote segment {} failed: {}", key.second,
                      absl::WebSafeBase64Escape(target.segment_id()), fetched.status().ToString());
      }
      absl::MutexLock lock(&prefetch_mu_);
      prefetching_.erase(key);
    }).status();
    if (!submitted.ok()) {  // the readers' queue is full: no prefetch now
      absl::MutexLock lock(&prefetch_mu_);
      prefetching_.erase(key);
      return;
    }
  }
}

absl::StatusOr<std::optional<int64_t>> RemoteLogReader::ForEachBlock(const Segment& segment, uint64_t start,
                                                                     uint64_t end, const BlockPartFn& each) {
  std::optional<int64_t> last;  // the last block read
  for (uint64_t block = start / kBlockBytes; block * kBlockBytes < end; ++block) {
    STRATA_ASSIGN_OR_RETURN(RemoteChunkCache::Block bytes, GetBlock(segment, static_cast<int64_t>(block)));
    last = static_cast<int64_t>(block);
    uint64_t from = std::max(start, block * kBlockBytes) - block * kBlockBytes;
    if (from >= bytes.size()) break;  // the segment ends before start
    uint64_t to = std::min<uint64_t>(end - block * kBlockBytes, bytes.size());
    STRATA_RETURN_IF_ERROR(each(bytes, from, to));
    if (bytes.size() < kBlockBytes) break;  // its last block
  }
  return last;
}

absl::StatusOr<std::string> RemoteLogReader::ReadRange(const Segment& segment, uint64_t start, uint64_t end) {
  std::string out;
  STRATA_RETURN_IF_ERROR(ForEachBlock(segment, start, end, [&](const RemoteChunkCache::Block& block, uint64_t from,
                                                               uint64_t to) { return block.AppendTo(out, from, to); })
                             .status());
  return out;
}

absl::StatusOr<uint64_t> RemoteLogReader::PositionFor(const Segment& segment, int64_t offset) {
  STRATA_ASSIGN_OR_RETURN(auto index_data, Index(segment, storage::RemoteIndexType::kOffset));
  const std::string& index = *index_data;
  constexpr size_t kEntry = storage::OffsetIndex::kEntrySize;
  if (index.size() % kEntry != 0) return Corrupt(segment, "its offset index is not whole entries");
  size_t lo = 0, hi = index.size() / kEntry;  // the first entry above offset
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t at = segment.start_offset() + storage::LoadBigEndian<uint32_t>(index.data() + mid * kEntry);
    if (at <= offset) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return 0;
  return storage::LoadBigEndian<uint32_t>(index.data() + (lo - 1) * kEntry + 4);
}

absl::StatusOr<std::optional<RemoteLogReader::Found>> RemoteLogReader::SeekBatch(const Segment& segment,
                                                                                 uint64_t position, int64_t offset,
                                                                                 uint64_t want) {
  std::string bytes;
  uint64_t at = position;  // where bytes starts in the .log
  while (true) {
    if (bytes.size() < layout::kHeaderSize) {
      STRATA_ASSIGN_OR_RETURN(std::string more,
                              ReadRange(segment, at + bytes.size(), at + bytes.size() + want + kReadAhead));
      if (more.empty()) {
        if (!bytes.empty()) return Corrupt(segment, absl::StrCat("a batch header is cut at byte ", at));
        return std::optional<Found>();
      }
      bytes += more;
      continue;
    }
    storage::RecordBatchHeader h = storage::RecordBatchHeader::Parse(bytes.data());
    if (h.batch_length < static_cast<int32_t>(layout::kHeaderSize - layout::kLogOverhead) ||
        h.magic != storage::kMagicV2) {
      return Corrupt(segment, absl::StrCat("no record batch at byte ", at));
    }
    if (h.last_offset() >= offset) return std::optional<Found>(Found{at, std::move(bytes)});
    uint64_t size = static_cast<uint64_t>(h.size_in_bytes());
    if (bytes.size() >= size) {
      bytes.erase(0, size);
    } else {
      bytes.clear();
    }
    at += size;
  }
}

absl::StatusOr<std::string> RemoteLogReader::Records::ReadAll() const {
  std::string out;
  out.reserve(size);
  for (const storage::FileSlice& slice : slices) {
    STRATA_ASSIGN_OR_RETURN(std::string bytes, slice.ReadAll());
    out += bytes;
  }
  return out;
}

absl::StatusOr<RemoteLogReader::Records> RemoteLogReader::Read(const Segment& segment, int64_t fetch_offset,
                                                               uint64_t max_bytes, bool min_one_batch,
                                                               const Segment* next) {
  ++reads_;
  auto read = [&]() -> absl::StatusOr<Records> {
    STRATA_ASSIGN_OR_RETURN(uint64_t position, PositionFor(segment, fetch_offset));
    STRATA_ASSIGN_OR_RETURN(auto found, SeekBatch(segment, position, fetch_offset, 0));
    Records out;
    if (!found) return out;
    storage::RecordBatchHeader first = storage::RecordBatchHeader::Parse(found->bytes.data());
    const uint64_t want = std::max<uint64_t>(max_bytes, min_one_batch ? first.size_in_bytes() : 0);
    // The blocks' files as they are, from the first batch on.
    STRATA_ASSIGN_OR_RETURN(std::optional<int64_t> last,
                            ForEachBlock(segment, found->position, found->position + want,
                                         [&](const RemoteChunkCache::Block& block, uint64_t from, uint64_t to) {
                                           out.slices.push_back(block.Slice(from, to - from));
                                           out.size += to - from;
                                           return absl::OkStatus();
                                         }));
    // A consumer reads on: the blocks after the last one it read are fetched ahead of it.
    if (last) Prefetch(segment, *last, next);
    if (min_one_batch && out.size < static_cast<uint64_t>(first.size_in_bytes())) {
      return Corrupt(segment, absl::StrCat("the batch at byte ", found->position, " is cut by the segment's end"));
    }
    return out;
  };
  auto out = read();
  if (!out.ok()) ++read_errors_;
  if (out.ok() && options_.fetch_quota != nullptr) {
    options_.fetch_quota->Record(static_cast<int64_t>(out->size), RateQuota::Clock::now());
  }
  return out;
}

bool RemoteLogReader::FetchQuotaExceeded() {
  if (options_.fetch_quota == nullptr || !options_.fetch_quota->Exceeded(RateQuota::Clock::now())) return false;
  ++fetch_throttled_;
  return true;
}

absl::StatusOr<std::optional<storage::TimestampOffset>> RemoteLogReader::FindOffsetByTimestamp(const Segment& segment,
                                                                                               int64_t target,
                                                                                               int64_t start_offset) {
  ++reads_;
  auto find = [&]() -> absl::StatusOr<std::optional<storage::TimestampOffset>> {
    STRATA_ASSIGN_OR_RETURN(auto index_data, Index(segment, storage::RemoteIndexType::kTimestamp));
    const std::string& index = *index_data;
    constexpr size_t kEntry = storage::TimeIndex::kEntrySize;
    if (index.size() % kEntry != 0) return Corrupt(segment, "its time index is not whole entries");
    int64_t from = segment.start_offset();
    for (size_t i = 0; i < index.size() / kEntry; ++i) {
      int64_t timestamp = storage::LoadBigEndian<uint64_t>(index.data() + i * kEntry);
      if (timestamp > target) break;
      from = segment.start_offset() + storage::LoadBigEndian<uint32_t>(index.data() + i * kEntry + 8);
    }
    from = std::max(from, start_offset);
    STRATA_ASSIGN_OR_RETURN(uint64_t position, PositionFor(segment, from));
    while (true) {
      STRATA_ASSIGN_OR_RETURN(auto found, SeekBatch(segment, position, from, 0));
      if (!found) return std::optional<storage::TimestampOffset>();
      storage::RecordBatchHeader h = storage::RecordBatchHeader::Parse(found->bytes.data());
      position = found->position + static_cast<uint64_t>(h.size_in_bytes());
      from = h.next_offset();
      auto read_batch = [&]() -> absl::StatusOr<std::string> {
        std::string batch = std::move(found->bytes);
        if (batch.size() < static_cast<size_t>(h.size_in_bytes())) {
          STRATA_ASSIGN_OR_RETURN(std::string more, ReadRange(segment, found->position + batch.size(), position));
          batch += more;
        }
        batch.resize(std::min<size_t>(batch.size(), h.size_in_bytes()));
        STRATA_RETURN_IF_ERROR(storage::ValidateStoredBatch(batch, "remote segment"));
        return batch;
      };
      STRATA_ASSIGN_OR_RETURN(auto record, storage::FindRecordByTimestamp(h, target, start_offset, read_batch));
      if (record) return record;
    }
  };
  auto out = find();
  if (!out.ok()) ++read_errors_;
  return out;
}

RemoteLogReaderStats RemoteLogReader::stats() const {
  return RemoteLogReaderStats{reads_.load(),           read_bytes_.load(), read_errors_.load(),
                              hits_.load(),            misses_.load(),     fetch_throttled_.load(),
                              prefetches_.load(),      options_.chunk_cache->stats()};
}

}  // namespace strata::broker
