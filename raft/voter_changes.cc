// Raft's voter changes (KIP-853; raft.h, ProposeVoterChange): the learner being added,
// who counts as caught up, the rules each change is checked against, the upgrade of a
// static quorum to a dynamic one, and the change's entry through to its commit.

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "raft/raft.h"

namespace strata::raft {

NodeId Raft::learner() const {
  if (role_ != Role::kLeader || !pending_change_ || pending_change_->change.kind != VoterChange::Kind::kAdd ||
      pending_change_->entry != 0) {
    return kNoNode;
  }
  return pending_change_->change.voter.id;
}

const Voter* Raft::LearnerVoter() const {
  return learner() == kNoNode ? nullptr : &pending_change_->change.voter;
}

Index Raft::LearnerMatchIndex() const {
  auto it = progress_.find(learner());
  return it == progress_.end() || learner() == kNoNode ? 0 : it->second.match;
}

bool Raft::CaughtUp(NodeId id) const {
  if (id == config_.id) return true;
  auto it = progress_.find(id);
  if (it == progress_.end()) return false;
  const Progress& pr = it->second;
  return pr.caught_up_tick >= 0 && ticks_ - pr.caught_up_tick <= config_.election_ticks;
}

std::string Raft::QuorumAfter(const VoterSet& next) const {
  std::vector<NodeId> caught_up;
  for (NodeId id : next.ids()) {
    if (CaughtUp(id)) caught_up.push_back(id);
  }
  if (caught_up.size() >= next.Majority()) return "";
  return absl::StrCat("of the voters {", absl::StrJoin(next.ids(), ","), "} after it, only ", caught_up.size(),
                      caught_up.empty() ? "" : absl::StrCat(" ({", absl::StrJoin(caught_up, ","), "})"),
                      " held the leader's whole log within an election timeout; ", next.Majority(),
                      " are needed to commit");
}

VoterChangeResult Raft::ProposeVoterChange(const VoterChange& change) {
  using Error = VoterChangeError;
  auto refuse = [](Error error, std::string message) { return VoterChangeResult{0, error, std::move(message)}; };
  const Voter& voter = change.voter;
  if (role_ != Role::kLeader) return refuse(Error::kNotLeader, absl::StrCat("not leader; leader is ", leader_));
  if (change.kind == VoterChange::Kind::kUpgrade) return ProposeUpgrade(change);
  if (config().is_static()) {
    return refuse(Error::kStaticQuorum,
                  "the quorum is static (controller.quorum.voters, kraft.version 0): its voters cannot change");
  }
  if (std::optional<VoterChangeResult> refused = RefuseAnyChange()) return *refused;
  const Voter* known = config().Find(voter.id);
  absl::StatusOr<VoterSet> next;
  switch (change.kind) {
    case VoterChange::Kind::kAdd:
      if (known != nullptr) {
        return refuse(Error::kDuplicateVoter, absl::StrCat("node ", voter.id, " is a voter already"));
      }
      if (voter.min_kraft_version > config().kraft_version() || voter.max_kraft_version < config().kraft_version()) {
        return refuse(Error::kInvalidRequest,
                      absl::StrCat("voter ", voter.id, " supports kraft.version [", voter.min_kraft_version, ", ",
                                   voter.max_kraft_version, "], not the quorum's ", config().kraft_version()));
      }
      next = config().Add(voter);
      break;
    case VoterChange::Kind::kRemove:
      if (!config().Contains(voter.id, voter.directory_id) || voter.directory_id.empty()) {
        return refuse(Error::kVoterNotFound, absl::StrCat("voter ", voter.id, " with directory id ",
                                                          DirectoryIdText(voter.directory_id),
                                                          " is not in the quorum"));
      }
      next = config().Remove(voter.id, voter.directory_id);
      break;
    case VoterChange::Kind::kUpdate:
      if (known == nullptr) {
        return refuse(Error::kVoterNotFound, absl::StrCat("node ", voter.id, " is not a voter"));
      }
      if (known->directory_id != voter.directory_id) {
        return refuse(Error::kInvalidVoterKey,
                      absl::StrCat("node ", voter.id, " is a voter with directory id ",
                                   DirectoryIdText(known->directory_id), ", not ",
                                   DirectoryIdText(voter.directory_id)));
      }
      next = config().Update(voter);
      break;
    case VoterChange::Kind::kUpgrade:
      ABSL_CHECK(false) << "ProposeUpgrade takes upgrades";
      break;
  }
  if (!next.ok()) return refuse(Error::kInvalidRequest, std::string(next.status().message()));
  if (change.kind == VoterChange::Kind::kRemove) {
    if (std::string why = QuorumAfter(*next); !why.empty()) {
      return refuse(Error::kInvalidRequest, absl::StrCat("removing voter ", voter.id, " would lose the quorum: ", why));
    }
  }
  pending_change_ = PendingChange{next_change_id_++, change, *std::move(next), ticks_ + change.timeout_ticks, 0};
  int64_t id = pending_change_->id;
  if (change.kind == VoterChange::Kind::kAdd) {
    SyncProgress();  // the learner
    SendAppend(voter.id);
  } else {
    AppendVoterChange();
  }
  return VoterChangeResult{id, Error::kNone, ""};
}

std::optional<VoterChangeResult> Raft::RefuseAnyChange() const {
  using Error = VoterChangeError;
  if (role_ != Role::kLeader) {
    return VoterChangeResult{0, Error::kNotLeader, absl::StrCat("not leader; leader is ", leader_)};
  }
  if (pending_change_ || LatestConfigIndex() > commit_) {
    return VoterChangeResult{
        0, Error::kInProgress,
        pending_change_ && pending_change_->entry == 0
            ? absl::StrCat("a voter change is in progress (voter ", pending_change_->change.voter.id,
                           " is catching up)")
            : absl::StrCat("a voter change is in progress (entry ", LatestConfigIndex(), " is not committed)")};
  }
  if (TermAt(commit_) != term_) {
    return VoterChangeResult{0, Error::kNotReady,
                             absl::StrCat("the leader has not committed an entry of its term ", term_, " yet")};
  }
  return std::nullopt;
}

VoterChangeResult Raft::ProposeUpgrade(const VoterChange& change) {
  using Error = VoterChangeError;
  auto refuse = [](Error error, std::string message) { return VoterChangeResult{0, error, std::move(message)}; };
  if (!config().is_static()) return refuse(Error::kInvalidRequest, "the quorum is dynamic already (kraft.version 1)");
  if (std::optional<VoterChangeResult> refused = RefuseAnyChange()) return *refused;
  std::vector<NodeId> given;
  for (const Voter& v : change.voters) given.push_back(v.id);
  std::sort(given.begin(), given.end());
  if (given != config().ids()) {
    return refuse(Error::kInvalidRequest, absl::StrCat("the upgrade names voters [", absl::StrJoin(given, ", "),
                                                       "], not the quorum's [", absl::StrJoin(config().ids(), ", "),
                                                       "]"));
  }
  std::vector<Voter> voters = change.voters;
  for (Voter& v : voters) {
    auto pr = progress_.find(v.id);
    const std::string& answered =
        v.id == config_.id ? config_.directory_id : pr == progress_.end() ? std::string() : pr->second.directory;
    if (answered.size() != 16) {
      return refuse(Error::kInvalidRequest,
                    absl::StrCat("voter ", v.id, "'s directory id is not known: it has not answered this leader "
                                 "(or runs a build that does not send it)"));
    }
    if (!v.directory_id.empty() && v.directory_id != answered) {
      return refuse(Error::kInvalidVoterKey, absl::StrCat("voter ", v.id, " answers with directory id ",
                                                          DirectoryIdText(answered), ", not ",
                                                          DirectoryIdText(v.directory_id)));
    }
    v.directory_id = answered;
  }
  absl::StatusOr<VoterSet> next = VoterSet::Of(std::move(voters));
  if (!next.ok()) return refuse(Error::kInvalidRequest, std::string(next.status().message()));
  ABSL_CHECK(next->ids() == config().ids()) << "an upgrade keeps the voters";
  pending_change_ = PendingChange{next_change_id_++, change, *std::move(next), ticks_ + change.timeout_ticks, 0};
  int64_t id = pending_change_->id;
  AppendVoterChange();
  return VoterChangeResult{id, Error::kNone, ""};
}

void Raft::MaybeAppendVoterChange() {
  if (!pending_change_ || pending_change_->entry != 0) return;
  if (!CaughtUp(pending_change_->change.voter.id) || !QuorumAfter(pending_change_->next).empty()) return;
  AppendVoterChange();
}

void Raft::AppendVoterChange() {
  ABSL_CHECK(pending_change_ && pending_change_->entry == 0);
  if (pending_change_->change.kind == VoterChange::Kind::kUpgrade) {
    // As a dynamic quorum's first leader writes it (BecomeLeader): kraft.version, then
    // the voters.
    AppendEntry(EncodeKraftVersion(kKraftVersionDynamic), EntryType::kKraftVersion);
  }
  AppendEntry(pending_change_->next.Encode(), EntryType::kVoters);
  pending_change_->entry = last_index();
  BroadcastAppend();
  if (!pending_change_->change.ack_when_committed) EndVoterChange(VoterChangeError::kNone, "");
}

void Raft::MaybeFinishVoterChange() {
  if (pending_change_ && pending_change_->entry != 0 && commit_ >= pending_change_->entry) {
    EndVoterChange(VoterChangeError::kNone, "");
  }
}

void Raft::EndVoterChange(VoterChangeError error, std::string message) {
  ABSL_CHECK(pending_change_);
  change_results_.push_back(VoterChangeResult{pending_change_->id, error, std::move(message)});
  pending_change_.reset();
  SyncProgress();  // a learner that did not make it is replicated to no more
}

}  // namespace strata::raft
