#include "raft/log_entry_proto.h"

#include "base/check.h"

namespace strata::raft {

static_assert(static_cast<int>(EntryType::kData) == v1::DATA);
static_assert(static_cast<int>(EntryType::kKraftVersion) == v1::KRAFT_VERSION);
static_assert(static_cast<int>(EntryType::kVoters) == v1::KRAFT_VOTERS);

void EntryToProto(const Entry& entry, v1::LogEntry* out) {
  out->set_term(entry.term);
  out->set_index(entry.index);
  out->set_data(entry.data);
  out->set_type(static_cast<v1::EntryType>(entry.type));
}

Entry EntryFromProto(const v1::LogEntry& in) {
  ABSL_CHECK(PlausibleEntryType(in.type())) << "entry type " << in.type();
  return Entry{in.term(), in.index(), in.data(), static_cast<EntryType>(in.type())};
}

bool PlausibleEntryType(int type) { return type >= v1::DATA && type <= v1::KRAFT_VOTERS; }

}  // namespace strata::raft
