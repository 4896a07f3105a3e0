#include "storage/throttled_replicas.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace strata::storage {

std::set<int32_t> ThrottledReplicas::PartitionsOf(int32_t broker_id) const {
  std::set<int32_t> out;
  for (const auto& [partition, broker] : replicas) {
    if (broker == broker_id) out.insert(partition);
  }
  return out;
}

absl::StatusOr<ThrottledReplicas> ParseThrottledReplicas(const std::string& value) {
  ThrottledReplicas out;
  absl::string_view v = absl::StripAsciiWhitespace(value);
  if (v == "*") {
    out.all = true;
    return out;
  }
  for (absl::string_view entry : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
    std::vector<absl::string_view> parts = absl::StrSplit(absl::StripAsciiWhitespace(entry), ':');
    int32_t partition = 0;
    int32_t broker = 0;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &partition) || !absl::SimpleAtoi(parts[1], &broker) ||
        partition < 0 || broker < 0) {
      return absl::InvalidArgumentError(absl::StrCat("'", absl::StripAsciiWhitespace(entry),
                                                     "' is not partition:broker (the value is '*' or a "
                                                     "comma-separated list of partition:broker)"));
    }
    out.replicas.emplace(partition, broker);
  }
  return out;
}

}  // namespace strata::storage
