#include "raft/voter_set.h"

#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "proto/kafka/wire.h"
#include "storage/meta_properties.h"

namespace strata::raft {
namespace {

namespace kafka = proto::kafka;

constexpr int16_t kVotersRecordVersion = 0;
constexpr int16_t kKraftVersionRecordVersion = 0;
constexpr int16_t kControlKeyVersion = 0;
constexpr size_t kDirectoryIdBytes = 16;

}  // namespace

std::string DirectoryIdText(absl::string_view directory_id) {
  return directory_id.size() == kDirectoryIdBytes ? storage::EncodeBase64Uuid(directory_id)
                                                  : absl::BytesToHexString(directory_id);
}

namespace {

std::string VoterName(const Voter& v) {
  return absl::StrCat("voter ", v.id, " (directory ", DirectoryIdText(v.directory_id), ")");
}

absl::Status CheckVoter(const Voter& v) {
  if (v.directory_id.size() != kDirectoryIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("voter ", v.id, ": a directory id has 16 bytes, not ", v.directory_id.size()));
  }
  if (v.min_kraft_version > v.max_kraft_version) {
    return absl::InvalidArgumentError(absl::StrCat(VoterName(v), ": kraft.version range [", v.min_kraft_version,
                                                   ", ", v.max_kraft_version, "] is empty"));
  }
  std::set<std::string> names;
  for (const Endpoint& e : v.endpoints) {
    if (!names.insert(e.name).second) {
      return absl::InvalidArgumentError(absl::StrCat(VoterName(v), ": endpoint ", e.name, " named twice"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<VoterSet> VoterSet::Of(std::vector<Voter> voters) {
  if (voters.empty()) return absl::InvalidArgumentError("a voter set needs a voter");
  VoterSet set;
  for (Voter& v : voters) {
    if (absl::Status s = CheckVoter(v); !s.ok()) return s;
    NodeId id = v.id;
    if (!set.voters_.emplace(id, std::move(v)).second) {
      return absl::InvalidArgumentError(absl::StrCat("voter ", id, " named twice"));
    }
  }
  return set;
}

VoterSet VoterSet::Static(const std::vector<NodeId>& ids) {
  ABSL_CHECK(!ids.empty()) << "a quorum needs a voter";
  VoterSet set;
  set.is_static_ = true;
  for (NodeId id : ids) {
    Voter v;
    v.id = id;
    v.max_kraft_version = kKraftVersionStatic;
    ABSL_CHECK(set.voters_.emplace(id, std::move(v)).second) << "voter " << id << " named twice";
  }
  return set;
}

std::vector<NodeId> VoterSet::ids() const {
  std::vector<NodeId> out;
  for (const auto& [id, v] : voters_) out.push_back(id);
  return out;
}

bool VoterSet::Contains(NodeId id, absl::string_view directory_id) const {
  auto it = voters_.find(id);
  return it != voters_.end() &&
         (directory_id.empty() || it->second.directory_id.empty() || it->second.directory_id == directory_id);
}

const Voter* VoterSet::Find(NodeId id) const {
  auto it = voters_.find(id);
  return it == voters_.end() ? nullptr : &it->second;
}

absl::StatusOr<VoterSet> VoterSet::Add(Voter voter) const {
  if (absl::Status s = CheckVoter(voter); !s.ok()) return s;
  if (const Voter* known = Find(voter.id)) {
    return absl::AlreadyExistsError(absl::StrCat("node ", voter.id, " is a voter already, as ", VoterName(*known)));
  }
  VoterSet next = *this;
  NodeId id = voter.id;
  next.voters_.emplace(id, std::move(voter));
  return next;
}

absl::StatusOr<VoterSet> VoterSet::Remove(NodeId id, absl::string_view directory_id) const {
  if (!Contains(id, directory_id)) {
    return absl::NotFoundError(absl::StrCat("voter ", id, " (directory ", DirectoryIdText(directory_id),
                                            ") is not in the quorum"));
  }
  if (voters_.size() == 1) {
    return absl::FailedPreconditionError(
        absl::StrCat("voter ", id, " is the last one: a quorum without voters elects no leader"));
  }
  VoterSet next = *this;
  next.voters_.erase(id);
  return next;
}

absl::StatusOr<VoterSet> VoterSet::Update(const Voter& voter) const {
  if (absl::Status s = CheckVoter(voter); !s.ok()) return s;
  if (!Contains(voter.id, voter.directory_id)) {
    return absl::NotFoundError(absl::StrCat(VoterName(voter), " is not in the quorum"));
  }
  VoterSet next = *this;
  next.voters_[voter.id] = voter;
  return next;
}

std::string VoterSet::DebugString() const {
  std::vector<std::string> voters;
  for (const auto& [id, v] : voters_) {
    std::string line = VoterName(v);
    for (const Endpoint& e : v.endpoints) absl::StrAppend(&line, " ", e.name, "://", e.host, ":", e.port);
    absl::StrAppend(&line, " kraft.version [", v.min_kraft_version, ", ", v.max_kraft_version, "]");
    voters.push_back(std::move(line));
  }
  return absl::StrJoin(voters, "; ");
}

std::string VoterSet::Encode() const {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kVotersRecordVersion);
  w.ArrayLength(static_cast<int32_t>(voters_.size()), /*flexible=*/true);
  for (const auto& [id, v] : voters_) {
    ABSL_CHECK_EQ(v.directory_id.size(), kDirectoryIdBytes) << "a static quorum's voters are never encoded";
    w.Int32(v.id);
    w.Uuid(v.directory_id);
    w.ArrayLength(static_cast<int32_t>(v.endpoints.size()), true);
    for (const Endpoint& e : v.endpoints) {
      w.String(e.name, true);
      w.String(e.host, true);
      w.Int16(static_cast<int16_t>(e.port));  // uint16 on the wire
      w.EmptyTaggedFields();
    }
    w.Int16(v.min_kraft_version);  // KRaftVersionFeature
    w.Int16(v.max_kraft_version);
    w.EmptyTaggedFields();
    w.EmptyTaggedFields();  // the voter's
  }
  w.EmptyTaggedFields();
  return out;
}

absl::StatusOr<VoterSet> VoterSet::Decode(absl::string_view data) {
  kafka::Reader r(data);
  int16_t version = r.Int16("Version");
  if (r.ok() && version != kVotersRecordVersion) {
    return absl::InvalidArgumentError(absl::StrCat("VotersRecord version ", version, " is not 0"));
  }
  std::vector<Voter> voters;
  int32_t n = r.ArrayLength(true, "Voters");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    Voter& v = voters.emplace_back();
    v.id = r.Int32("VoterId");
    v.directory_id = r.Uuid("VoterDirectoryId");
    int32_t endpoints = r.ArrayLength(true, "Endpoints");
    for (int32_t j = 0; j < endpoints && r.ok(); ++j) {
      Endpoint& e = v.endpoints.emplace_back();
      e.name = r.String(true, "Name");
      e.host = r.String(true, "Host");
      e.port = static_cast<uint16_t>(r.Int16("Port"));
      r.SkipTaggedFields("Endpoint");
    }
    v.min_kraft_version = r.Int16("MinSupportedVersion");
    v.max_kraft_version = r.Int16("MaxSupportedVersion");
    r.SkipTaggedFields("KRaftVersionFeature");
    r.SkipTaggedFields("Voter");
  }
  r.SkipTaggedFields("VotersRecord");
  if (!r.ok()) return r.status();
  if (r.remaining() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("VotersRecord: ", r.remaining(), " bytes after its end"));
  }
  return Of(std::move(voters));
}

std::string EncodeKraftVersion(int16_t kraft_version) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kKraftVersionRecordVersion);
  w.Int16(kraft_version);
  w.EmptyTaggedFields();
  return out;
}

absl::StatusOr<int16_t> DecodeKraftVersion(absl::string_view data) {
  kafka::Reader r(data);
  int16_t version = r.Int16("Version");
  int16_t kraft_version = r.Int16("KRaftVersion");
  r.SkipTaggedFields("KRaftVersionRecord");
  if (!r.ok()) return r.status();
  if (version != kKraftVersionRecordVersion) {
    return absl::InvalidArgumentError(absl::StrCat("KRaftVersionRecord version ", version, " is not 0"));
  }
  if (r.remaining() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("KRaftVersionRecord: ", r.remaining(), " bytes after its end"));
  }
  if (kraft_version != kKraftVersionStatic && kraft_version != kKraftVersionDynamic) {
    return absl::InvalidArgumentError(absl::StrCat("kraft.version ", kraft_version, " is not 0 or 1"));
  }
  return kraft_version;
}

std::string EncodeControlKey(int16_t type) {
  std::string out;
  kafka::Writer w(&out);
  w.Int16(kControlKeyVersion);
  w.Int16(type);
  return out;
}

absl::StatusOr<int16_t> DecodeControlKey(absl::string_view key) {
  kafka::Reader r(key);
  int16_t version = r.Int16("ControlRecordType version");
  int16_t type = r.Int16("ControlRecordType type");
  if (!r.ok()) return r.status();
  if (version != kControlKeyVersion) {
    return absl::InvalidArgumentError(absl::StrCat("control record key version ", version, " is not 0"));
  }
  return type;
}

int16_t ControlTypeOf(EntryType type) {
  ABSL_CHECK(type != EntryType::kData) << "a data entry is not a control record";
  return type == EntryType::kKraftVersion ? kKraftVersionControlType : kKraftVotersControlType;
}

absl::StatusOr<EntryType> EntryTypeOfControl(int16_t control_type) {
  switch (control_type) {
    case kKraftVersionControlType: return EntryType::kKraftVersion;
    case kKraftVotersControlType: return EntryType::kVoters;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("control record type ", control_type, " is not KRAFT_VERSION (5) or KRAFT_VOTERS (6)"));
  }
}

absl::Status ValidateConfigurationEntry(const Entry& entry) {
  switch (entry.type) {
    case EntryType::kData: return absl::OkStatus();
    case EntryType::kKraftVersion: return DecodeKraftVersion(entry.data).status();
    case EntryType::kVoters: return VoterSet::Decode(entry.data).status();
  }
  return absl::InvalidArgumentError("unknown entry type");
}

}  // namespace strata::raft
