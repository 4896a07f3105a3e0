#pragma once
// OffsetMap: the log cleaner's map from a record key to the offset of its latest
// record in the dirty part of a log. Keys are stored whole (no hashing, so no collision
// can ever make the cleaner drop a key's latest value); the map is bounded by bytes
// (log.cleaner.dedupe.buffer.size divided among the cleaner threads), counting each
// entry as its key plus a fixed overhead. Not thread-safe (one cleaning owns one).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"

namespace strata::storage {

class OffsetMap {
 public:
  // What an entry costs beyond its key's bytes (the slot, the string, the offset).
  static constexpr size_t kEntryOverhead = 64;

  explicit OffsetMap(size_t capacity_bytes) : capacity_bytes_(capacity_bytes) {}

  // Whether `key` can be put without passing the capacity (an existing key always can).
  bool HasRoomFor(absl::string_view key) const {
    return map_.contains(key) || used_bytes_ + key.size() + kEntryOverhead <= capacity_bytes_;
  }
  // REQUIRES: HasRoomFor(key); offsets put for one key only grow.
  void Put(absl::string_view key, int64_t offset) {
    auto [it, inserted] = map_.try_emplace(key, offset);
    if (inserted) {
      used_bytes_ += key.size() + kEntryOverhead;
    } else if (offset > it->second) {
      it->second = offset;
    }
  }
  std::optional<int64_t> Get(absl::string_view key) const {
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  size_t size() const { return map_.size(); }
  size_t used_bytes() const { return used_bytes_; }
  size_t capacity_bytes() const { return capacity_bytes_; }

 private:
  const size_t capacity_bytes_;
  size_t used_bytes_ = 0;
  absl::flat_hash_map<std::string, int64_t> map_;
};

}  // namespace strata::storage
