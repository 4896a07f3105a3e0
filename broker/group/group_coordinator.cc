#include "broker/group/group_coordinator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "proto/kafka/consumer_protocol.h"

namespace strata::broker {

namespace {

// The longest the thread sleeps (GroupLog::Poll's period).
constexpr int64_t kPollMs = 100;
// A member that joined and waits for the rebalance to complete is kept that long at
// most without a heartbeat (Kafka's new member join timeout).
constexpr int64_t kNewMemberJoinTimeoutMs = 5 * 60 * 1000;
constexpr int64_t kLoadRetryMs = 1000;
constexpr size_t kLatencySamples = 1024;

// Answers collected under the lock and given after it is released (a responder may send
// on a socket; none runs under the coordinator's mutex). Declare it before the lock.
class Deferred {
 public:
  Deferred() = default;
  Deferred(const Deferred&) = delete;
  Deferred& operator=(const Deferred&) = delete;
  ~Deferred() {
    for (auto& f : fns_) f();
  }
  void Add(std::function<void()> f) { fns_.push_back(std::move(f)); }

 private:
  std::vector<std::function<void()>> fns_;
};

// What a failed write means for the client, as Kafka's coordinator maps it.
ErrorCode ClientErrorOfWrite(ErrorCode e, bool commit) {
  switch (e) {
    case ErrorCode::kNone:
      return e;
    case ErrorCode::kNotLeaderOrFollower:
    case ErrorCode::kKafkaStorageError:
    case ErrorCode::kNotCoordinator:
    case ErrorCode::kFencedLeaderEpoch:
      return ErrorCode::kNotCoordinator;
    case ErrorCode::kUnknownTopicOrPartition:
    case ErrorCode::kNotEnoughReplicas:
    case ErrorCode::kNotEnoughReplicasAfterAppend:
    case ErrorCode::kRequestTimedOut:
    case ErrorCode::kCoordinatorNotAvailable:
      return ErrorCode::kCoordinatorNotAvailable;
    case ErrorCode::kMessageTooLarge:
    case ErrorCode::kRecordListTooLarge:
      return commit ? ErrorCode::kInvalidCommitOffsetSize : ErrorCode::kUnknownServerError;
    default:
      return ErrorCode::kUnknownServerError;
  }
}

std::string NewMemberId(const std::string& client_id) {
  static absl::Mutex mu(absl::kConstInit);
  static absl::BitGen* gen = new absl::BitGen();
  absl::MutexLock lock(&mu);
  uint64_t hi = absl::Uniform<uint64_t>(*gen), lo = absl::Uniform<uint64_t>(*gen);
  // A UUID v4 after the client id, as Kafka's member ids read.
  hi = (hi & ~uint64_t{0xf000}) | 0x4000;
  lo = (lo & ~(uint64_t{0xc} << 60)) | (uint64_t{0x8} << 60);
  return absl::StrFormat("%s-%08x-%04x-%04x-%04x-%012x", client_id, hi >> 32, (hi >> 16) & 0xffff, hi & 0xffff,
                         lo >> 48, lo & 0xffffffffffff);
}

}  // namespace

const char* GroupStateName(GroupState state) {
  switch (state) {
    case GroupState::kEmpty: return "Empty";
    case GroupState::kPreparingRebalance: return "PreparingRebalance";
    case GroupState::kCompletingRebalance: return "CompletingRebalance";
    case GroupState::kStable: return "Stable";
    case GroupState::kDead: return "Dead";
  }
  return "Unknown";
}

std::optional<GroupState> ParseGroupState(absl::string_view name) {
  for (GroupState s : {GroupState::kEmpty, GroupState::kPreparingRebalance, GroupState::kCompletingRebalance,
                       GroupState::kStable, GroupState::kDead}) {
    if (absl::EqualsIgnoreCase(name, GroupStateName(s))) return s;
  }
  return std::nullopt;
}

class GroupCoordinator::Impl {
  // Written completions and wake-ups, shared with the writes in flight: a write that
  // completes after the coordinator is gone finds the inbox closed.
  struct Inbox {
    absl::Mutex mu;
    std::deque<std::function<void()>> completions ABSL_GUARDED_BY(mu);
    bool poked ABSL_GUARDED_BY(mu) = false;
    bool stopping ABSL_GUARDED_BY(mu) = false;
    bool closed ABSL_GUARDED_BY(mu) = false;
  };

 public:
  Impl(GroupCoordinatorOptions options, GroupLog* log)
      : options_(options), log_(log), partitions_(options.offsets_topic_partitions) {
    ABSL_CHECK(log_ != nullptr);
    ABSL_CHECK_GT(options_.offsets_topic_partitions, 0);
    {
      absl::MutexLock lock(&mu_);
      AddTimerLocked(Now() + options_.offsets_retention_check_interval_ms, Timer::kRetention, "", "", 0);
    }
    if (options_.start_thread) thread_ = std::thread([this] { Run(); });
  }

  ~Impl() {
    {
      absl::MutexLock lock(&inbox_->mu);
      inbox_->stopping = true;
    }
    if (thread_.joinable()) thread_.join();
    // Completions still queued answer their requests; writes that complete later find
    // the inbox closed and are dropped (their requests' connections are gone).
    RunCompletions();
    {
      absl::MutexLock lock(&inbox_->mu);
      inbox_->closed = true;
    }
    RunCompletions();
    Deferred d;
    absl::MutexLock lock(&mu_);
    std::vector<int32_t> owned;
    for (const auto& [p, o] : owned_) owned.push_back(p);
    for (int32_t p : owned) UnloadLocked(p, d);
  }

  int32_t partitions() const { return partitions_.load(); }

  // --- partitions -------------------------------------------------------------------

  void OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
    if (topic_partitions > 0) partitions_.store(topic_partitions);
    Deferred d;
    absl::MutexLock lock(&mu_);
    std::vector<int32_t> gone;
    for (const auto& [p, o] : owned_) {
      auto it = led.find(p);
      if (it == led.end() || it->second != o.epoch) gone.push_back(p);
    }
    for (int32_t p : gone) {
      spdlog::info("group coordinator: no longer leads {}-{}; its groups move", kOffsetsTopic, p);
      UnloadLocked(p, d);
    }
    for (const auto& [p, epoch] : led) {
      if (owned_.count(p) > 0) continue;
      owned_[p] = Owned{.epoch = epoch, .loaded = false, .since_ms = Now()};
      loads_.push_back({p, epoch});
      Poke();
    }
  }

  bool IsLoaded(int32_t p) const {
    absl::MutexLock lock(&mu_);
    auto it = owned_.find(p);
    return it != owned_.end() && it->second.loaded;
  }

  // --- JoinGroup ----------------------------------------------------------------------

  void JoinGroup(JoinGroupParams params, std::function<void(JoinGroupResult)> respond) {
    Deferred d;
    absl::MutexLock lock(&mu_);
    auto fail = [&](ErrorCode e, std::string member_id = "") {
      JoinGroupResult r;
      r.error = e;
      r.member_id = std::move(member_id);
      d.Add([respond, r] { respond(r); });
    };
    if (params.group_id.empty()) return fail(ErrorCode::kInvalidGroupId, params.member_id);
    if (ErrorCode e = ReachLocked(params.group_id); e != ErrorCode::kNone) return fail(e, params.member_id);
    if (params.session_timeout_ms < options_.group_min_session_timeout_ms ||
        params.session_timeout_ms > options_.group_max_session_timeout_ms) {
      return fail(ErrorCode::kInvalidSessionTimeout, params.member_id);
    }
    if (params.rebalance_timeout_ms <= 0) params.rebalance_timeout_ms = params.session_timeout_ms;  // v0
    Group* g = FindLocked(params.group_id);
    if (g == nullptr) {
      if (!params.member_id.empty()) return fail(ErrorCode::kUnknownMemberId, params.member_id);
      g = &CreateGroupLocked(params.group_id);
    }
    if (g->state == GroupState::kDead) return fail(ErrorCode::kCoordinatorNotAvailable, params.member_id);
    bool known = !params.member_id.empty() && (g->members.count(params.member_id) > 0 ||
                                               g->pending_members.count(params.member_id) > 0);
    bool replacing = params.member_id.empty() && params.group_instance_id &&
                     g->static_members.count(*params.group_instance_id) > 0;
    if (!known && !replacing && static_cast<int64_t>(g->members.size()) >= options_.group_max_size) {
      return fail(ErrorCode::kGroupMaxSizeReached, params.member_id);
    }
    if (!SupportsProtocols(*g, params.protocol_type, params.protocols)) {
      return fail(ErrorCode::kInconsistentGroupProtocol, params.member_id);
    }
    if (params.member_id.empty()) {
      JoinUnknownMemberLocked(*g, std::move(params), std::move(respond), d);
    } else {
      JoinKnownMemberLocked(*g, std::move(params), std::move(respond), d);
    }
  }

  // --- SyncGroup ----------------------------------------------------------------------

  void SyncGroup(SyncGroupParams params, std::function<void(SyncGroupResult)> respond) {
    Deferred d;
    absl::MutexLock lock(&mu_);
    auto fail = [&](ErrorCode e) {
      SyncGroupResult r;
      r.error = e;
      d.Add([respond, r] { respond(r); });
    };
    if (params.group_id.empty()) return fail(ErrorCode::kInvalidGroupId);
    if (ErrorCode e = ReachLocked(params.group_id); e != ErrorCode::kNone) return fail(e);
    Group* g = FindLocked(params.group_id);
    if (g == nullptr) return fail(ErrorCode::kUnknownMemberId);
    if (g->state == GroupState::kDead) return fail(ErrorCode::kCoordinatorNotAvailable);
    if (ErrorCode e = CheckMemberLocked(*g, params.member_id, params.group_instance_id); e != ErrorCode::kNone) {
      return fail(e);
    }
    if (params.generation_id != g->generation_id) return fail(ErrorCode::kIllegalGeneration);
    if ((params.protocol_type && *params.protocol_type != g->protocol_type) ||
        (params.protocol_name && params.protocol_name != g->protocol_name)) {
      return fail(ErrorCode::kInconsistentGroupProtocol);
    }
    Member& m = g->members.at(params.member_id);
    switch (g->state) {
      case GroupState::kEmpty:
      case GroupState::kDead:
        return fail(ErrorCode::kUnknownMemberId);
      case GroupState::kPreparingRebalance:
        return fail(ErrorCode::kRebalanceInProgress);
      case GroupState::kStable: {
        RenewHeartbeatLocked(*g, m);
        SyncGroupResult r = SyncResultOf(*g, m);
        d.Add([respond, r] { respond(r); });
        return;
      }
      case GroupState::kCompletingRebalance:
        break;
    }
    if (m.awaiting_sync) AnswerSync(m, ErrorCode::kRebalanceInProgress, d);  // a repeated SyncGroup
    m.awaiting_sync = std::move(respond);
    RenewHeartbeatLocked(*g, m);
    if (params.member_id != g->leader_id || g->assignment_write_pending) return;
    // The leader's assignment: written before any member is told its part.
    std::map<std::string, std::string> assignment;
    for (auto& [id, bytes] : params.assignments) {
      if (g->members.count(id) > 0) assignment[id] = std::move(bytes);
    }
    for (const auto& [id, member] : g->members) assignment.try_emplace(id, "");  // not assigned anything
    g->assignment_write_pending = true;
    const int32_t generation = g->generation_id;
    const std::string group_id = g->group_id;
    WriteLocked(*g, {GroupRecordLocked(*g, &assignment)},
                [this, group_id, generation, assignment](ErrorCode e, Deferred& d)
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
                  Group* g = FindLocked(group_id);
                  if (g == nullptr || g->generation_id != generation ||
                      g->state != GroupState::kCompletingRebalance) {
                    return;  // a new rebalance answered the waiting members
                  }
                  g->assignment_write_pending = false;
                  if (e != ErrorCode::kNone) {
                    ErrorCode client = ClientErrorOfWrite(e, false);
                    spdlog::warn("group coordinator: writing the assignment of group {} generation {}: {}", group_id,
                                 generation, proto::kafka::ErrorName(e));
                    for (auto& [id, m] : g->members) AnswerSync(m, client, d);
                    PrepareRebalanceLocked(*g, "the assignment could not be written", d);
                    return;
                  }
                  for (auto& [id, m] : g->members) {
                    auto it = assignment.find(id);
                    m.assignment = it != assignment.end() ? it->second : "";
                  }
                  TransitionLocked(*g, GroupState::kStable);
                  for (auto& [id, m] : g->members) {
                    if (!m.awaiting_sync) continue;
                    SyncGroupResult r = SyncResultOf(*g, m);
                    auto cb = std::move(m.awaiting_sync);
                    m.awaiting_sync = nullptr;
                    d.Add([cb, r] { cb(r); });
                  }
                  spdlog::info("group coordinator: group {} is stable at generation {} with {} members", group_id,
                               generation, g->members.size());
                });
  }

  // --- Heartbeat, LeaveGroup ------------------------------------------------------------

  ErrorCode Heartbeat(const std::string& group_id, const std::string& member_id,
                      const std::optional<std::string>& instance_id, int32_t generation_id) {
    absl::MutexLock lock(&mu_);
    if (group_id.empty()) return ErrorCode::kInvalidGroupId;
    if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) return e;
    Group* g = FindLocked(group_id);
    if (g == nullptr) return ErrorCode::kUnknownMemberId;
    if (g->state == GroupState::kDead) return ErrorCode::kCoordinatorNotAvailable;
    if (ErrorCode e = CheckMemberLocked(*g, member_id, instance_id); e != ErrorCode::kNone) return e;
    if (g->state == GroupState::kEmpty) return ErrorCode::kUnknownMemberId;
    if (generation_id != g->generation_id) return ErrorCode::kIllegalGeneration;
    RenewHeartbeatLocked(*g, g->members.at(member_id));
    return g->state == GroupState::kPreparingRebalance ? ErrorCode::kRebalanceInProgress : ErrorCode::kNone;
  }

  GroupCoordinator::LeaveResult LeaveGroup(const std::string& group_id, const std::vector<MemberIdentity>& members) {
    Deferred d;
    absl::MutexLock lock(&mu_);
    GroupCoordinator::LeaveResult result;
    if (group_id.empty()) {
      result.error = ErrorCode::kInvalidGroupId;
      return result;
    }
    if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
      result.error = e;
      return result;
    }
    Group* g = FindLocked(group_id);
    if (g != nullptr && g->state == GroupState::kDead) {
      result.error = ErrorCode::kCoordinatorNotAvailable;
      return result;
    }
    for (const MemberIdentity& who : members) {
      if (g == nullptr) {
        result.members.push_back(ErrorCode::kUnknownMemberId);
        continue;
      }
      std::string id = who.member_id;
      if (who.group_instance_id) {
        auto it = g->static_members.find(*who.group_instance_id);
        if (it == g->static_members.end()) {
          result.members.push_back(ErrorCode::kUnknownMemberId);
          continue;
        }
        if (!id.empty() && id != it->second) {
          result.members.push_back(ErrorCode::kFencedInstanceId);
          continue;
        }
        id = it->second;
      }
      if (g->pending_members.erase(id) > 0) {
        result.members.push_back(ErrorCode::kNone);
        MaybeCompleteJoinLocked(*g, d);
        continue;
      }
      if (g->members.count(id) == 0) {
        result.members.push_back(ErrorCode::kUnknownMemberId);
        continue;
      }
      spdlog::info("group coordinator: member {} leaves group {}", id, group_id);
      RemoveMemberLocked(*g, id, "a member left", d);
      result.members.push_back(ErrorCode::kNone);
    }
    return result;
  }

  // --- offsets --------------------------------------------------------------------------

  void CommitOffsets(OffsetCommitParams params, std::function<void(std::vector<PartitionError>)> respond) {
    Deferred d;
    absl::MutexLock lock(&mu_);
    ++commit_requests_;
    auto all = [&](ErrorCode e) {
      std::vector<PartitionError> out;
      for (const auto& p : params.partitions) out.push_back({p.topic, p.partition, e});
      d.Add([respond, out] { respond(out); });
    };
    if (ErrorCode e = ReachLocked(params.group_id); e != ErrorCode::kNone) return all(e);
    Group* g = FindLocked(params.group_id);
    if (g == nullptr) {
      // Offsets without group management (assign() consumers, tools): generation -1.
      if (params.generation_id >= 0) return all(ErrorCode::kIllegalGeneration);
      g = &CreateGroupLocked(params.group_id);
    } else if (g->state == GroupState::kDead) {
      return all(ErrorCode::kCoordinatorNotAvailable);
    } else if (params.generation_id < 0 && g->state == GroupState::kEmpty) {
      // a standalone commit to a group nobody is a member of
    } else {
      if (ErrorCode e = CheckMemberLocked(*g, params.member_id, params.group_instance_id); e != ErrorCode::kNone) {
        return all(e);
      }
      if (g->state == GroupState::kCompletingRebalance) return all(ErrorCode::kRebalanceInProgress);
      if (params.generation_id != g->generation_id) return all(ErrorCode::kIllegalGeneration);
      RenewHeartbeatLocked(*g, g->members.at(params.member_id));
    }
    const int64_t now = Now();
    std::vector<PartitionError> out;
    std::vector<GroupLogRecord> records;
    std::vector<std::pair<storage::TopicPartition, OffsetValue>> values;
    for (const PartitionOffsetCommit& p : params.partitions) {
      out.push_back({p.topic, p.partition, ErrorCode::kNone});
      if (p.metadata && static_cast<int64_t>(p.metadata->size()) > options_.offset_metadata_max_bytes) {
        out.back().error = ErrorCode::kOffsetMetadataTooLarge;
        continue;
      }
      OffsetValue v;
      v.offset = p.offset;
      v.leader_epoch = p.leader_epoch;
      v.metadata = p.metadata.value_or("");
      v.commit_timestamp_ms = now;
      v.expire_timestamp_ms = params.retention_time_ms >= 0 ? now + params.retention_time_ms : -1;
      records.push_back({EncodeGroupRecordKey(OffsetKey{g->group_id, p.topic, p.partition}), EncodeOffsetValue(v)});
      values.push_back({{p.topic, p.partition}, v});
    }
    if (records.empty()) {
      d.Add([respond, out] { respond(out); });
      return;
    }
    const auto started = std::chrono::steady_clock::now();
    const std::string group_id = g->group_id;
    WriteLocked(*g, std::move(records),
                [this, group_id, values, out, respond, started](ErrorCode e, Deferred& d)
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
                  ErrorCode client = ClientErrorOfWrite(e, true);
                  std::vector<PartitionError> answer = out;
                  if (e == ErrorCode::kNone) {
                    Group* g = FindLocked(group_id);
                    if (g != nullptr) {
                      for (auto& [tp, v] : values) g->offsets[tp] = v;
                    }
                    commits_ += static_cast<int64_t>(values.size());
                    auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                                    started)
                                  .count();
                    if (commit_latency_us_.size() >= kLatencySamples) commit_latency_us_.pop_front();
                    commit_latency_us_.push_back(us);
                  }
                  for (PartitionError& p : answer) {
                    if (p.error == ErrorCode::kNone) p.error = client;
                  }
                  d.Add([respond, answer] { respond(answer); });
                });
  }

  OffsetFetchResult FetchOffsets(const std::string& group_id,
                                 const std::optional<std::vector<storage::TopicPartition>>& partitions) {
    absl::MutexLock lock(&mu_);
    OffsetFetchResult result;
    if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
      result.error = e;
      if (partitions) {
        for (const auto& tp : *partitions) result.partitions.push_back({.topic = tp.topic, .partition = tp.partition, .error = e});
      }
      return result;
    }
    const Group* g = FindLocked(group_id);
    auto fetched = [](const storage::TopicPartition& tp, const OffsetValue* v) {
      FetchedOffset f{.topic = tp.topic, .partition = tp.partition};
      if (v != nullptr) {
        f.offset = v->offset;
        f.leader_epoch = v->leader_epoch;
        f.metadata = v->metadata;
      }
      return f;
    };
    if (!partitions) {
      if (g != nullptr) {
        for (const auto& [tp, v] : g->offsets) result.partitions.push_back(fetched(tp, &v));
      }
      return result;
    }
    for (const auto& tp : *partitions) {
      const OffsetValue* v = nullptr;
      if (g != nullptr) {
        auto it = g->offsets.find(tp);
        if (it != g->offsets.end()) v = &it->second;
      }
      result.partitions.push_back(fetched(tp, v));
    }
    return result;
  }

  // --- ListGroups, DescribeGroups, DeleteGroups, OffsetDelete -------------------------

  std::pair<ErrorCode, std::vector<GroupOverview>> ListGroups() const {
    absl::MutexLock lock(&mu_);
    ErrorCode e = ErrorCode::kNone;
    for (const auto& [p, o] : owned_) {
      if (!o.loaded) e = ErrorCode::kCoordinatorLoadInProgress;
    }
    std::vector<GroupOverview> out;
    for (const auto& [id, g] : groups_) {
      if (g.state != GroupState::kDead) out.push_back({id, g.protocol_type, g.state});
    }
    return {e, out};
  }

  GroupDescription DescribeGroup(const std::string& group_id) const {
    absl::MutexLock lock(&mu_);
    GroupDescription out;
    out.group_id = group_id;
    if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) {
      out.error = e;
      return out;
    }
    const Group* g = FindLocked(group_id);
    if (g == nullptr) return out;  // Dead, as Kafka describes an unknown group
    out.state = g->state;
    out.protocol_type = g->protocol_type;
    const bool stable = g->state == GroupState::kStable;
    if (stable) out.protocol_name = g->protocol_name.value_or("");
    for (const Member* m : MembersInJoinOrder(*g)) {
      GroupDescription::Member dm{m->member_id, m->group_instance_id, m->client_id, m->client_host, "", ""};
      if (stable) {
        dm.metadata = MetadataFor(*m, g->protocol_name.value_or(""));
        dm.assignment = m->assignment;
      }
      out.members.push_back(std::move(dm));
    }
    return out;
  }

  void DeleteGroups(std::vector<std::string> group_ids,
                    std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond) {
    Deferred d;
    absl::MutexLock lock(&mu_);
    struct Pending {
      std::vector<std::pair<std::string, ErrorCode>> results;
      int outstanding = 1;  // this call's own, dropped at its end
      std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond;
    };
    auto pending = std::make_shared<Pending>();
    pending->respond = std::move(respond);
    auto done_one = [pending](Deferred& d) {
      if (--pending->outstanding == 0) d.Add([pending] { pending->respond(pending->results); });
    };
    for (size_t i = 0; i < group_ids.size(); ++i) {
      const std::string& id = group_ids[i];
      pending->results.push_back({id, ErrorCode::kNone});
      ErrorCode& e = pending->results.back().second;
      e = ReachLocked(id);
      if (e != ErrorCode::kNone) continue;
      Group* g = FindLocked(id);
      if (g == nullptr || g->state == GroupState::kDead) {
        e = ErrorCode::kGroupIdNotFound;
        continue;
      }
      if (g->state != GroupState::kEmpty) {
        e = ErrorCode::kNonEmptyGroup;
        continue;
      }
      std::vector<GroupLogRecord> tombstones = TombstonesLocked(*g);
      ++pending->outstanding;
      WriteLocked(*g, std::move(tombstones), [pending, i, done_one](ErrorCode e, Deferred& d) {
        pending->results[i].second = ClientErrorOfWrite(e, false);
        done_one(d);
      });
      spdlog::info("group coordinator: deleting group {}", id);
      ForgetGroupLocked(id);
    }
    done_one(d);
  }

  void DeleteOffsets(std::string group_id, std::vector<storage::TopicPartition> partitions,
                     std::function<void(ErrorCode, std::vector<PartitionError>)> respond) {
    Deferred d;
    absl::MutexLock lock(&mu_);
    auto fail = [&](ErrorCode e) { d.Add([respond, e] { respond(e, {}); }); };
    if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) return fail(e);
    Group* g = FindLocked(group_id);
    if (g == nullptr || g->state == GroupState::kDead) return fail(ErrorCode::kGroupIdNotFound);
    std::set<std::string> subscribed;
    if (g->state != GroupState::kEmpty) {
      if (g->protocol_type != "consumer") return fail(ErrorCode::kNonEmptyGroup);
      subscribed = SubscribedTopicsLocked(*g);
    }
    std::vector<PartitionError> out;
    std::vector<storage::TopicPartition> removed;
    for (const auto& tp : partitions) {
      out.push_back({tp.topic, tp.partition, ErrorCode::kNone});
      if (subscribed.count(tp.topic) > 0) {
        out.back().error = ErrorCode::kGroupSubscribedToTopic;
        continue;
      }
      if (g->offsets.erase(tp) > 0) removed.push_back(tp);
    }
    if (removed.empty()) {
      d.Add([respond, out] { respond(ErrorCode::kNone, out); });
      return;
    }
    std::vector<GroupLogRecord> tombstones;
    for (const auto& tp : removed) {
      tombstones.push_back({EncodeGroupRecordKey(OffsetKey{group_id, tp.topic, tp.partition}), std::nullopt});
    }
    WriteLocked(*g, std::move(tombstones), [respond, out](ErrorCode e, Deferred& d) mutable {
      for (PartitionError& p : out) {
        if (p.error == ErrorCode::kNone) p.error = ClientErrorOfWrite(e, false);
      }
      d.Add([respond, out] { respond(ErrorCode::kNone, out); });
    });
  }

  // --- time ----------------------------------------------------------------------------

  void RunDueTimers() {
    RunCompletions();
    RunLoads();
    log_->Poll();
    Deferred d;
    absl::MutexLock lock(&mu_);
    const int64_t now = Now();
    while (!timers_.empty() && timers_.begin()->first <= now) {
      Timer t = timers_.begin()->second;
      timers_.erase(timers_.begin());
      FireLocked(t, now, d);
    }
  }

  CoordinatorStats stats() const {
    absl::MutexLock lock(&mu_);
    CoordinatorStats s;
    for (GroupState st : {GroupState::kEmpty, GroupState::kPreparingRebalance, GroupState::kCompletingRebalance,
                          GroupState::kStable, GroupState::kDead}) {
      s.groups_by_state[st] = 0;
    }
    for (const auto& [id, g] : groups_) ++s.groups_by_state[g.state];
    s.rebalances = rebalances_;
    s.offset_commits = commits_;
    s.offset_commit_requests = commit_requests_;
    s.offsets_expired = offsets_expired_;
    s.partitions_loaded = partitions_loaded_;
    s.load_time_ms_total = load_time_ms_total_;
    s.last_load_time_ms = last_load_time_ms_;
    s.commit_latency_us.assign(commit_latency_us_.begin(), commit_latency_us_.end());
    return s;
  }

 private:
  struct Member {
    std::string member_id;
    std::optional<std::string> group_instance_id;
    std::string client_id;
    std::string client_host;
    int32_t rebalance_timeout_ms = 0;
    int32_t session_timeout_ms = 0;
    std::vector<JoinProtocol> protocols;
    std::string assignment;
    int64_t heartbeat_deadline_ms = 0;
    int64_t joined_ms = 0;
    uint64_t join_order = 0;
    bool is_new = false;
    std::function<void(JoinGroupResult)> awaiting_join;
    std::function<void(SyncGroupResult)> awaiting_sync;
  };

  struct Group {
    std::string group_id;
    int32_t partition = 0;
    GroupState state = GroupState::kEmpty;
    int64_t state_timestamp_ms = 0;
    int32_t generation_id = 0;
    std::string protocol_type;  // empty until a member joins (offsets-only groups)
    std::optional<std::string> protocol_name;
    std::optional<std::string> leader_id;
    std::map<std::string, Member> members;
    std::set<std::string> pending_members;                 // KIP-394: ids given, not yet joined with
    std::map<std::string, std::string> static_members;     // group.instance.id -> member id
    std::map<storage::TopicPartition, OffsetValue> offsets;
    // The rebalance being prepared: its deadline's timer, and the initial delay's state.
    uint64_t join_timer = 0;
    bool initial_delay = false;
    bool new_member_added = false;
    int64_t initial_delay_remaining_ms = 0;
    bool assignment_write_pending = false;
  };

  struct Timer {
    enum Kind { kHeartbeat, kPendingMember, kJoin, kSync, kRetention, kLoadRetry } kind;
    std::string group_id;
    std::string member_id;
    uint64_t seq = 0;  // kJoin: the group's join_timer; kSync: the generation; kLoadRetry: the epoch
  };

  struct Owned {
    int32_t epoch = -1;
    bool loaded = false;
    int64_t since_ms = 0;
  };

  int64_t Now() const { return options_.clock->NowMs(); }

  // The coordinator for group_id is here and loaded: NONE, else why not.
  ErrorCode ReachLocked(const std::string& group_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = owned_.find(OffsetsPartitionFor(group_id, partitions_.load()));
    if (it == owned_.end()) return ErrorCode::kNotCoordinator;
    if (!it->second.loaded) return ErrorCode::kCoordinatorLoadInProgress;
    return ErrorCode::kNone;
  }

  Group* FindLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = groups_.find(id);
    return it == groups_.end() ? nullptr : &it->second;
  }
  const Group* FindLocked(const std::string& id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = groups_.find(id);
    return it == groups_.end() ? nullptr : &it->second;
  }

  Group& CreateGroupLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Group& g = groups_[id];
    g.group_id = id;
    g.partition = OffsetsPartitionFor(id, partitions_.load());
    g.state_timestamp_ms = Now();
    return g;
  }

  void ForgetGroupLocked(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { groups_.erase(id); }

  // A known member of g under the identity given (static members: their current id).
  ErrorCode CheckMemberLocked(const Group& g, const std::string& member_id,
                              const std::optional<std::string>& instance_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (instance_id) {
      auto it = g.static_members.find(*instance_id);
      if (it != g.static_members.end() && it->second != member_id) return ErrorCode::kFencedInstanceId;
    }
    if (g.members.count(member_id) == 0) return ErrorCode::kUnknownMemberId;
    return ErrorCode::kNone;
  }

  static bool SupportsProtocols(const Group& g, const std::string& type, const std::vector<JoinProtocol>& protocols) {
    if (type.empty() || protocols.empty()) return false;
    if (g.members.empty()) return true;  // the first member sets the protocol type
    if (type != g.protocol_type) return false;
    for (const JoinProtocol& p : protocols) {
      bool everyone = true;
      for (const auto& [id, m] : g.members) {
        if (std::none_of(m.protocols.begin(), m.protocols.end(), [&](const JoinProtocol& q) { return q.name == p.name; })) {
          everyone = false;
          break;
        }
      }
      if (everyone) return true;
    }
    return false;
  }

  static std::vector<const Member*> MembersInJoinOrder(const Group& g) {
    std::vector<const Member*> out;
    for (const auto& [id, m] : g.members) out.push_back(&m);
    std::sort(out.begin(), out.end(), [](const Member* a, const Member* b) { return a->join_order < b->join_order; });
    return out;
  }

  // The protocol every member supports that most members prefer (Kafka's vote: each
  // member votes for the first of its protocols that all support); ties go to the
  // protocol of the member that joined first. REQUIRES: members.
  static std::string SelectProtocol(const Group& g) {
    std::vector<const Member*> members = MembersInJoinOrder(g);
    ABSL_CHECK(!members.empty());
    auto everyone_supports = [&](const std::string& name) {
      return std::all_of(members.begin(), members.end(), [&](const Member* m) {
        return std::any_of(m->protocols.begin(), m->protocols.end(), [&](const JoinProtocol& p) { return p.name == name; });
      });
    };
    std::map<std::string, int> votes;
    std::vector<std::string> order;
    for (const Member* m : members) {
      for (const JoinProtocol& p : m->protocols) {
        if (!everyone_supports(p.name)) continue;
        if (votes[p.name]++ == 0) order.push_back(p.name);
        break;
      }
    }
    ABSL_CHECK(!order.empty()) << "group " << g.group_id << " has no protocol every member supports";
    std::string best = order.front();
    for (const std::string& name : order) {
      if (votes[name] > votes[best]) best = name;
    }
    return best;
  }

  static std::string MetadataFor(const Member& m, const std::string& protocol) {
    for (const JoinProtocol& p : m.protocols) {
      if (p.name == protocol) return p.metadata;
    }
    return "";
  }

  JoinGroupResult JoinResultOf(const Group& g, const Member& m) const {
    JoinGroupResult r;
    r.generation_id = g.generation_id;
    r.protocol_type = g.protocol_type;
    r.protocol_name = g.protocol_name;
    r.leader_id = g.leader_id.value_or("");
    r.member_id = m.member_id;
    if (g.leader_id == m.member_id) {
      for (const Member* other : MembersInJoinOrder(g)) {
        r.members.push_back({other->member_id, other->group_instance_id, MetadataFor(*other, g.protocol_name.value_or(""))});
      }
    }
    return r;
  }

  static SyncGroupResult SyncResultOf(const Group& g, const Member& m) {
    SyncGroupResult r;
    r.protocol_type = g.protocol_type;
    r.protocol_name = g.protocol_name;
    r.assignment = m.assignment;
    return r;
  }

  static void AnswerJoin(Member& m, ErrorCode e, Deferred& d) {
    if (!m.awaiting_join) return;
    JoinGroupResult r;
    r.error = e;
    r.member_id = m.member_id;
    auto cb = std::move(m.awaiting_join);
    m.awaiting_join = nullptr;
    d.Add([cb, r] { cb(r); });
  }

  static void AnswerSync(Member& m, ErrorCode e, Deferred& d) {
    if (!m.awaiting_sync) return;
    SyncGroupResult r;
    r.error = e;
    auto cb = std::move(m.awaiting_sync);
    m.awaiting_sync = nullptr;
    d.Add([cb, r] { cb(r); });
  }

  void TransitionLocked(Group& g, GroupState to) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    g.state = to;
    g.state_timestamp_ms = Now();
  }

  void RenewHeartbeatLocked(Group& g, Member& m) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    m.heartbeat_deadline_ms = Now() + m.session_timeout_ms;
    AddTimerLocked(m.heartbeat_deadline_ms, Timer::kHeartbeat, g.group_id, m.member_id, 0);
  }

  void UpdateMemberLocked(Member& m, JoinGroupParams& params, std::function<void(JoinGroupResult)> respond,
                          Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    m.client_id = params.client_id;
    m.client_host = params.client_host;
    m.session_timeout_ms = params.session_timeout_ms;
    m.rebalance_timeout_ms = params.rebalance_timeout_ms;
    m.protocols = std::move(params.protocols);
    AnswerJoin(m, ErrorCode::kRebalanceInProgress, d);  // a JoinGroup repeated before the first was answered
    m.awaiting_join = std::move(respond);
  }

  void JoinUnknownMemberLocked(Group& g, JoinGroupParams params, std::function<void(JoinGroupResult)> respond,
                               Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::string new_id = NewMemberId(params.client_id);
    if (params.group_instance_id) {
      auto it = g.static_members.find(*params.group_instance_id);
      if (it != g.static_members.end()) {
        ReplaceStaticMemberLocked(g, it->second, new_id, std::move(params), std::move(respond), d);
        return;
      }
    } else if (params.require_known_member_id) {
      // KIP-394: the member learns its id first and joins with it, so that a client
      // whose first join times out does not leave an unknown member behind.
      g.pending_members.insert(new_id);
      AddTimerLocked(Now() + params.session_timeout_ms, Timer::kPendingMember, g.group_id, new_id, 0);
      JoinGroupResult r;
      r.error = ErrorCode::kMemberIdRequired;
      r.member_id = new_id;
      d.Add([respond, r] { respond(r); });
      return;
    }
    AddMemberAndRebalanceLocked(g, new_id, std::move(params), std::move(respond), d);
  }

  void JoinKnownMemberLocked(Group& g, JoinGroupParams params, std::function<void(JoinGroupResult)> respond,
                             Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const std::string id = params.member_id;
    auto fail = [&](ErrorCode e) {
      JoinGroupResult r;
      r.error = e;
      r.member_id = id;
      d.Add([respond, r] { respond(r); });
    };
    if (g.pending_members.count(id) > 0) {
      if (params.group_instance_id && g.static_members.count(*params.group_instance_id) > 0) {
        return fail(ErrorCode::kFencedInstanceId);
      }
      AddMemberAndRebalanceLocked(g, id, std::move(params), std::move(respond), d);
      return;
    }
    if (ErrorCode e = CheckMemberLocked(g, id, params.group_instance_id); e != ErrorCode::kNone) return fail(e);
    Member& m = g.members.at(id);
    auto same_protocols = [&] {
      if (m.protocols.size() != params.protocols.size()) return false;
      for (size_t i = 0; i < m.protocols.size(); ++i) {
        if (m.protocols[i].name != params.protocols[i].name || m.protocols[i].metadata != params.protocols[i].metadata) {
          return false;
        }
      }
      return true;
    };
    switch (g.state) {
      case GroupState::kEmpty:
      case GroupState::kDead:
        return fail(ErrorCode::kUnknownMemberId);
      case GroupState::kPreparingRebalance:
        UpdateMemberLocked(m, params, std::move(respond), d);
        RenewHeartbeatLocked(g, m);
        MaybeCompleteJoinLocked(g, d);
        return;
      case GroupState::kCompletingRebalance:
        if (same_protocols()) {
          // It lost the answer to its join: the same generation again.
          RenewHeartbeatLocked(g, m);
          JoinGroupResult r = JoinResultOf(g, m);
          d.Add([respond, r] { respond(r); });
          return;
        }
        UpdateMemberLocked(m, params, std::move(respond), d);
        PrepareRebalanceLocked(g, absl::StrCat("member ", id, " rejoined with new metadata"), d);
        return;
      case GroupState::kStable:
        if (g.leader_id == id || !same_protocols()) {
          // The leader asks for a new assignment (a subscription or the metadata changed).
          UpdateMemberLocked(m, params, std::move(respond), d);
          PrepareRebalanceLocked(g, absl::StrCat(g.leader_id == id ? "the leader " : "member ", id, " rejoined"), d);
          return;
        }
        RenewHeartbeatLocked(g, m);
        JoinGroupResult r = JoinResultOf(g, m);
        d.Add([respond, r] { respond(r); });
        return;
    }
  }

  void AddMemberAndRebalanceLocked(Group& g, const std::string& id, JoinGroupParams params,
                                   std::function<void(JoinGroupResult)> respond, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (g.members.empty()) g.protocol_type = params.protocol_type;
    Member& m = g.members[id];
    m.member_id = id;
    m.group_instance_id = params.group_instance_id;
    m.joined_ms = Now();
    m.join_order = ++join_order_;
    m.is_new = true;
    UpdateMemberLocked(m, params, std::move(respond), d);
    if (m.group_instance_id) g.static_members[*m.group_instance_id] = id;
    g.pending_members.erase(id);
    RenewHeartbeatLocked(g, m);
    spdlog::info("group coordinator: member {} joins group {}{}", id, g.group_id,
                 m.group_instance_id ? absl::StrCat(" (instance ", *m.group_instance_id, ")") : "");
    if (g.state == GroupState::kPreparingRebalance) {
      g.new_member_added = true;
      MaybeCompleteJoinLocked(g, d);
    } else {
      PrepareRebalanceLocked(g, absl::StrCat("member ", id, " joined"), d);
    }
  }

  // KIP-345: a static member restarted (a join with its instance id and no member id).
  void ReplaceStaticMemberLocked(Group& g, const std::string& old_id, const std::string& new_id,
                                 JoinGroupParams params, std::function<void(JoinGroupResult)> respond, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto node = g.members.extract(old_id);
    Member& old = node.mapped();
    // The old incarnation's waiting calls are fenced.
    AnswerJoin(old, ErrorCode::kFencedInstanceId, d);
    AnswerSync(old, ErrorCode::kFencedInstanceId, d);
    Member m = std::move(old);
    m.member_id = new_id;
    m.client_id = params.client_id;
    m.client_host = params.client_host;
    m.session_timeout_ms = params.session_timeout_ms;
    m.rebalance_timeout_ms = params.rebalance_timeout_ms;
    m.protocols = params.protocols;
    Member& placed = g.members[new_id] = std::move(m);
    g.static_members[*params.group_instance_id] = new_id;
    if (g.leader_id == old_id) g.leader_id = new_id;
    RenewHeartbeatLocked(g, placed);
    spdlog::info("group coordinator: static member {} of group {} rejoined as {}", *params.group_instance_id,
                 g.group_id, new_id);
    switch (g.state) {
      case GroupState::kStable:
        if (SelectProtocol(g) == g.protocol_name) {
          // No rebalance: the member takes its old assignment back, once the new id is written.
          const std::string group_id = g.group_id;
          const int32_t generation = g.generation_id;
          WriteLocked(g, {GroupRecordLocked(g, nullptr)},
                      [this, group_id, generation, new_id, respond](ErrorCode e, Deferred& d)
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
                        Group* g = FindLocked(group_id);
                        JoinGroupResult r;
                        r.member_id = new_id;
                        if (e != ErrorCode::kNone || g == nullptr || g->members.count(new_id) == 0) {
                          r.error = e != ErrorCode::kNone ? ClientErrorOfWrite(e, false) : ErrorCode::kUnknownMemberId;
                        } else {
                          r = JoinResultOf(*g, g->members.at(new_id));
                          // Kafka's v9 flag: a returning leader keeps the current assignment.
                          r.skip_assignment = g->leader_id == new_id;
                          if (g->generation_id != generation) r.error = ErrorCode::kRebalanceInProgress;
                        }
                        d.Add([respond, r] { respond(r); });
                      });
          return;
        }
        placed.awaiting_join = std::move(respond);
        PrepareRebalanceLocked(g, absl::StrCat("static member ", new_id, " changed the group's protocol"), d);
        return;
      case GroupState::kCompletingRebalance:
        placed.awaiting_join = std::move(respond);
        PrepareRebalanceLocked(g, absl::StrCat("static member ", new_id, " rejoined during the sync"), d);
        return;
      case GroupState::kPreparingRebalance:
        placed.awaiting_join = std::move(respond);
        MaybeCompleteJoinLocked(g, d);
        return;
      case GroupState::kEmpty:
      case GroupState::kDead:
        ABSL_CHECK(false) << "group " << g.group_id << " has a static member in state " << GroupStateName(g.state);
    }
  }

  void PrepareRebalanceLocked(Group& g, const std::string& reason, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (g.state == GroupState::kCompletingRebalance) {
      // The members waiting for their assignment join again.
      for (auto& [id, m] : g.members) AnswerSync(m, ErrorCode::kRebalanceInProgress, d);
      g.assignment_write_pending = false;
    }
    const bool initial = g.state == GroupState::kEmpty;
    TransitionLocked(g, GroupState::kPreparingRebalance);
    int32_t rebalance_timeout = 0;
    for (const auto& [id, m] : g.members) rebalance_timeout = std::max(rebalance_timeout, m.rebalance_timeout_ms);
    int64_t delay = rebalance_timeout;
    g.initial_delay = initial;
    g.new_member_added = false;
    if (initial) {
      delay = std::min<int64_t>(options_.group_initial_rebalance_delay_ms, rebalance_timeout);
      g.initial_delay_remaining_ms = std::max<int64_t>(rebalance_timeout - options_.group_initial_rebalance_delay_ms, 0);
    }
    g.join_timer = ++timer_seq_;
    AddTimerLocked(Now() + delay, Timer::kJoin, g.group_id, "", g.join_timer);
    spdlog::info("group coordinator: preparing to rebalance group {} (generation {}): {}", g.group_id,
                 g.generation_id, reason);
    MaybeCompleteJoinLocked(g, d);
  }

  void MaybeCompleteJoinLocked(Group& g, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (g.state != GroupState::kPreparingRebalance || g.initial_delay || !g.pending_members.empty()) return;
    for (const auto& [id, m] : g.members) {
      if (!m.awaiting_join) return;
    }
    CompleteJoinLocked(g, d);
  }

  void OnJoinDeadlineLocked(Group& g, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (g.initial_delay && g.new_member_added && g.initial_delay_remaining_ms > 0) {
      // Members keep arriving: wait another initial delay, within the rebalance timeout.
      g.new_member_added = false;
      int64_t delay = std::min<int64_t>(options_.group_initial_rebalance_delay_ms, g.initial_delay_remaining_ms);
      g.initial_delay_remaining_ms = std::max<int64_t>(g.initial_delay_remaining_ms - options_.group_initial_rebalance_delay_ms, 0);
      g.join_timer = ++timer_seq_;
      AddTimerLocked(Now() + delay, Timer::kJoin, g.group_id, "", g.join_timer);
      return;
    }
    g.initial_delay = false;
    CompleteJoinLocked(g, d);
  }

  void CompleteJoinLocked(Group& g, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ABSL_CHECK(g.state == GroupState::kPreparingRebalance);
    g.join_timer = 0;
    std::vector<std::string> gone;
    for (const auto& [id, m] : g.members) {
      if (!m.awaiting_join) gone.push_back(id);
    }
    for (const std::string& id : gone) {
      spdlog::info("group coordinator: member {} of group {} did not rejoin in time; removed", id, g.group_id);
      EraseMemberLocked(g, id, d);
    }
    if (!g.leader_id || g.members.count(*g.leader_id) == 0) {
      g.leader_id.reset();
      if (!g.members.empty()) g.leader_id = MembersInJoinOrder(g).front()->member_id;
    }
    ++g.generation_id;
    if (g.members.empty()) {
      g.protocol_name.reset();
      TransitionLocked(g, GroupState::kEmpty);
      spdlog::info("group coordinator: group {} is empty at generation {}", g.group_id, g.generation_id);
      const std::string group_id = g.group_id;
      WriteLocked(g, {GroupRecordLocked(g, nullptr)}, [group_id](ErrorCode e, Deferred&) {
        if (e != ErrorCode::kNone) {
          spdlog::warn("group coordinator: writing empty group {}: {}", group_id, proto::kafka::ErrorName(e));
        }
      });
      return;
    }
    g.protocol_name = SelectProtocol(g);
    TransitionLocked(g, GroupState::kCompletingRebalance);
    ++rebalances_;
    spdlog::info("group coordinator: group {} generation {} ({} {}) with {} members, leader {}", g.group_id,
                 g.generation_id, g.protocol_type, *g.protocol_name, g.members.size(), *g.leader_id);
    int32_t rebalance_timeout = 0;
    for (auto& [id, m] : g.members) {
      rebalance_timeout = std::max(rebalance_timeout, m.rebalance_timeout_ms);
      JoinGroupResult r = JoinResultOf(g, m);
      auto cb = std::move(m.awaiting_join);
      m.awaiting_join = nullptr;
      m.is_new = false;
      d.Add([cb, r] { cb(r); });
      RenewHeartbeatLocked(g, m);
    }
    // Members that do not sync within the rebalance timeout are removed (Kafka's pending sync).
    AddTimerLocked(Now() + rebalance_timeout, Timer::kSync, g.group_id, "", static_cast<uint64_t>(g.generation_id));
  }

  // Removes a member without changing the group's state.
  void EraseMemberLocked(Group& g, const std::string& id, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = g.members.find(id);
    if (it == g.members.end()) return;
    AnswerJoin(it->second, ErrorCode::kUnknownMemberId, d);
    AnswerSync(it->second, ErrorCode::kUnknownMemberId, d);
    if (it->second.group_instance_id) g.static_members.erase(*it->second.group_instance_id);
    g.members.erase(it);
  }

  // A member leaves (LeaveGroup, session expiry): the others rebalance.
  void RemoveMemberLocked(Group& g, const std::string& id, const std::string& reason, Deferred& d)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    EraseMemberLocked(g, id, d);
    switch (g.state) {
      case GroupState::kStable:
      case GroupState::kCompletingRebalance:
        PrepareRebalanceLocked(g, absl::StrCat(reason, " (", id, ")"), d);
        return;
      case GroupState::kPreparingRebalance:
        MaybeCompleteJoinLocked(g, d);
        return;
      case GroupState::kEmpty:
      case GroupState::kDead:
        return;
    }
  }

  bool ShouldKeepAlive(const Member& m, int64_t now) const {
    if (m.awaiting_join) return !m.is_new || m.joined_ms + kNewMemberJoinTimeoutMs > now;
    return static_cast<bool>(m.awaiting_sync);  // the sync deadline decides
  }

  void FireLocked(const Timer& t, int64_t now, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (t.kind == Timer::kRetention) {
      ExpireOffsetsLocked(now);
      AddTimerLocked(now + options_.offsets_retention_check_interval_ms, Timer::kRetention, "", "", 0);
      return;
    }
    if (t.kind == Timer::kLoadRetry) {
      int32_t p = std::stoi(t.group_id);
      auto it = owned_.find(p);
      if (it != owned_.end() && !it->second.loaded && it->second.epoch == static_cast<int32_t>(t.seq)) {
        loads_.push_back({p, it->second.epoch});
        Poke();
      }
      return;
    }
    Group* g = FindLocked(t.group_id);
    if (g == nullptr) return;
    switch (t.kind) {
      case Timer::kHeartbeat: {
        auto it = g->members.find(t.member_id);
        if (it == g->members.end() || it->second.heartbeat_deadline_ms > now || ShouldKeepAlive(it->second, now)) return;
        spdlog::info("group coordinator: member {} of group {} sent no heartbeat for {} ms; removed", t.member_id,
                     g->group_id, it->second.session_timeout_ms);
        RemoveMemberLocked(*g, t.member_id, "a session expired", d);
        return;
      }
      case Timer::kPendingMember:
        if (g->pending_members.erase(t.member_id) > 0) MaybeCompleteJoinLocked(*g, d);
        return;
      case Timer::kJoin:
        if (g->state == GroupState::kPreparingRebalance && g->join_timer == t.seq) OnJoinDeadlineLocked(*g, d);
        return;
      case Timer::kSync: {
        if (g->state != GroupState::kCompletingRebalance || g->generation_id != static_cast<int32_t>(t.seq) ||
            g->assignment_write_pending) {
          return;
        }
        std::vector<std::string> silent;
        for (const auto& [id, m] : g->members) {
          if (!m.awaiting_sync) silent.push_back(id);
        }
        for (const std::string& id : silent) {
          spdlog::info("group coordinator: member {} of group {} did not sync in time; removed", id, g->group_id);
          EraseMemberLocked(*g, id, d);
        }
        if (g->state == GroupState::kCompletingRebalance) {
          PrepareRebalanceLocked(*g, "members did not sync within the rebalance timeout", d);
        }
        return;
      }
      case Timer::kRetention:
      case Timer::kLoadRetry:
        return;
    }
  }

  // offsets.retention.minutes: the offsets of a group nobody is a member of expire
  // once it has been empty that long; offsets committed without group management expire
  // that long after their commit (or at the retention their commit asked for).
  void ExpireOffsetsLocked(int64_t now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<std::string> dead;
    for (auto& [group_id, g] : groups_) {
      const std::string id = group_id;  // captured below (a structured binding cannot be)
      if (g.state != GroupState::kEmpty || !g.pending_members.empty() || ReachLocked(id) != ErrorCode::kNone) continue;
      std::vector<GroupLogRecord> tombstones;
      int64_t expired_here = 0;
      for (auto it = g.offsets.begin(); it != g.offsets.end();) {
        const OffsetValue& v = it->second;
        int64_t base = g.protocol_type.empty() ? v.commit_timestamp_ms : std::max(v.commit_timestamp_ms, g.state_timestamp_ms);
        bool expired = v.expire_timestamp_ms >= 0 ? now >= v.expire_timestamp_ms : now >= base + options_.offsets_retention_ms;
        if (!expired) {
          ++it;
          continue;
        }
        tombstones.push_back({EncodeGroupRecordKey(OffsetKey{id, it->first.topic, it->first.partition}), std::nullopt});
        it = g.offsets.erase(it);
        ++expired_here;
      }
      offsets_expired_ += expired_here;
      if (g.offsets.empty()) {
        tombstones.push_back({EncodeGroupRecordKey(GroupKey{id}), std::nullopt});
        dead.push_back(id);
      }
      if (expired_here > 0) spdlog::info("group coordinator: {} offsets of group {} expired", expired_here, id);
      if (!tombstones.empty()) {
        WriteLocked(g, std::move(tombstones), [id](ErrorCode e, Deferred&) {
          if (e != ErrorCode::kNone) {
            spdlog::warn("group coordinator: writing expired offsets of group {}: {}", id, proto::kafka::ErrorName(e));
          }
        });
      }
    }
    for (const std::string& id : dead) ForgetGroupLocked(id);
  }

  std::set<std::string> SubscribedTopicsLocked(const Group& g) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The group's record: its members with their metadata for the selected protocol and
  // their assignment (assignment: instead of the members' current ones).
  GroupLogRecord GroupRecordLocked(const Group& g, const std::map<std::string, std::string>* assignment) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    GroupValue v;
    v.protocol_type = g.protocol_type;
    v.generation_id = g.generation_id;
    v.protocol_name = g.protocol_name;
    v.leader_id = g.leader_id;
    v.state_timestamp_ms = g.state_timestamp_ms;
    for (const Member* m : MembersInJoinOrder(g)) {
      GroupValue::Member vm;
      vm.member_id = m->member_id;
      vm.group_instance_id = m->group_instance_id;
      vm.client_id = m->client_id;
      vm.client_host = m->client_host;
      vm.rebalance_timeout_ms = m->rebalance_timeout_ms;
      vm.session_timeout_ms = m->session_timeout_ms;
      vm.subscription = MetadataFor(*m, g.protocol_name.value_or(""));
      if (assignment != nullptr) {
        auto it = assignment->find(m->member_id);
        vm.assignment = it != assignment->end() ? it->second : "";
      } else {
        vm.assignment = m->assignment;
      }
      v.members.push_back(std::move(vm));
    }
    return {EncodeGroupRecordKey(GroupKey{g.group_id}), EncodeGroupValue(v)};
  }

  // Tombstones for the group and every offset it committed.
  std::vector<GroupLogRecord> TombstonesLocked(const Group& g) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    std::vector<GroupLogRecord> out;
    for (const auto& [tp, v] : g.offsets) {
      out.push_back({EncodeGroupRecordKey(OffsetKey{g.group_id, tp.topic, tp.partition}), std::nullopt});
    }
    out.push_back({EncodeGroupRecordKey(GroupKey{g.group_id}), std::nullopt});
    return out;
  }

  using WriteDone = std::function<void(ErrorCode, Deferred&)>;

  // Writes records to g's partition; on_done runs under mu_ once they are committed or
  // failed (NOT_COORDINATOR when the partition was dropped or reloaded meanwhile).
  void WriteLocked(const Group& g, std::vector<GroupLogRecord> records, WriteDone on_done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    const int32_t p = g.partition;
    auto it = owned_.find(p);
    ABSL_CHECK(it != owned_.end() && it->second.loaded) << "a write for group " << g.group_id << " of an unloaded partition";
    const int32_t epoch = it->second.epoch;
    auto done = std::make_shared<WriteDone>(std::move(on_done));
    log_->Append(p, epoch, std::move(records), [this, inbox = inbox_, p, epoch, done](ErrorCode e) {
      PushCompletion(*inbox, [this, p, epoch, done, e] {
        Deferred d;
        absl::MutexLock lock(&mu_);
        auto it = owned_.find(p);
        ErrorCode outcome = e;
        if (it == owned_.end() || it->second.epoch != epoch || !it->second.loaded) outcome = ErrorCode::kNotCoordinator;
        (*done)(outcome, d);
      });
    });
  }

  static void PushCompletion(Inbox& inbox, std::function<void()> f) {
    absl::MutexLock lock(&inbox.mu);
    if (inbox.closed) return;
    inbox.completions.push_back(std::move(f));
    inbox.poked = true;
  }

  void Poke() {
    absl::MutexLock lock(&inbox_->mu);
    inbox_->poked = true;
  }

  void AddTimerLocked(int64_t at, Timer::Kind kind, const std::string& group_id, const std::string& member_id,
                      uint64_t seq) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    timers_.emplace(at, Timer{kind, group_id, member_id, seq});
    if (at < planned_wake_ms_.load()) Poke();
  }

  void RunCompletions() {
    std::deque<std::function<void()>> todo;
    {
      absl::MutexLock lock(&inbox_->mu);
      todo.swap(inbox_->completions);
    }
    for (auto& f : todo) f();
  }

  void RunLoads() {
    std::vector<std::pair<int32_t, int32_t>> todo;
    {
      absl::MutexLock lock(&mu_);
      todo.swap(loads_);
    }
    for (auto [p, epoch] : todo) Load(p, epoch);
  }

  // Reads partition p (led in epoch) and serves its groups.
  void Load(int32_t p, int32_t epoch) {
    const auto started = std::chrono::steady_clock::now();
    std::map<std::string, GroupValue> groups;
    std::map<std::string, std::map<storage::TopicPartition, OffsetValue>> offsets;
    int64_t records = 0;
    absl::Status s = log_->Read(p, epoch, [&](GroupLogRecord r) -> absl::Status {
      ++records;
      STRATA_ASSIGN_OR_RETURN(GroupRecordKey key, DecodeGroupRecordKey(r.key));
      if (const auto* k = std::get_if<OffsetKey>(&key)) {
        storage::TopicPartition tp{k->topic, k->partition};
        if (!r.value) {
          auto it = offsets.find(k->group_id);
          if (it != offsets.end()) it->second.erase(tp);
          return absl::OkStatus();
        }
        STRATA_ASSIGN_OR_RETURN(OffsetValue v, DecodeOffsetValue(*r.value));
        offsets[k->group_id][tp] = std::move(v);
      } else {
        const std::string& id = std::get<GroupKey>(key).group_id;
        if (!r.value) {
          groups.erase(id);
          return absl::OkStatus();
        }
        STRATA_ASSIGN_OR_RETURN(GroupValue v, DecodeGroupValue(*r.value));
        groups[id] = std::move(v);
      }
      return absl::OkStatus();
    });
    const int64_t took_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count();
    Deferred d;
    absl::MutexLock lock(&mu_);
    auto it = owned_.find(p);
    if (it == owned_.end() || it->second.epoch != epoch || it->second.loaded) return;  // moved on meanwhile
    if (!s.ok()) {
      spdlog::error("group coordinator: loading {}-{} (leader epoch {}) failed after {} records: {}; retrying",
                    kOffsetsTopic, p, epoch, records, s.ToString());
      AddTimerLocked(Now() + kLoadRetryMs, Timer::kLoadRetry, std::to_string(p), "", static_cast<uint64_t>(epoch));
      return;
    }
    const int64_t now = Now();
    // A group whose id hashes elsewhere (the topic's partition count changed) is not
    // served from here: requests for it go to the partition it hashes to.
    auto misplaced = [&](const std::string& id) {
      if (OffsetsPartitionFor(id, partitions_.load()) == p) return false;
      spdlog::warn("group coordinator: group {} in {}-{} belongs to partition {} of {} partitions; not loaded", id,
                   kOffsetsTopic, p, OffsetsPartitionFor(id, partitions_.load()), partitions_.load());
      return true;
    };
    for (auto& [id, v] : groups) {
      if (misplaced(id)) continue;
      Group& g = CreateGroupLocked(id);
      g.protocol_type = v.protocol_type;
      g.generation_id = v.generation_id;
      g.protocol_name = v.protocol_name;
      g.leader_id = v.leader_id;
      g.state = v.members.empty() ? GroupState::kEmpty : GroupState::kStable;
      g.state_timestamp_ms = v.state_timestamp_ms;
      for (GroupValue::Member& vm : v.members) {
        Member& m = g.members[vm.member_id];
        m.member_id = vm.member_id;
        m.group_instance_id = vm.group_instance_id;
        m.client_id = vm.client_id;
        m.client_host = vm.client_host;
        m.rebalance_timeout_ms = vm.rebalance_timeout_ms;
        m.session_timeout_ms = vm.session_timeout_ms;
        m.protocols = {{v.protocol_name.value_or(""), vm.subscription}};
        m.assignment = vm.assignment;
        m.join_order = ++join_order_;
        m.joined_ms = now;
        if (m.group_instance_id) g.static_members[*m.group_instance_id] = m.member_id;
        RenewHeartbeatLocked(g, m);
      }
    }
    int64_t offset_count = 0;
    for (auto& [id, by_partition] : offsets) {
      if (by_partition.empty() || misplaced(id)) continue;
      Group* g = FindLocked(id);
      if (g == nullptr) g = &CreateGroupLocked(id);
      offset_count += static_cast<int64_t>(by_partition.size());
      g->offsets = std::move(by_partition);
    }
    it->second.loaded = true;
    ++partitions_loaded_;
    load_time_ms_total_ += took_ms;
    last_load_time_ms_ = took_ms;
    spdlog::info("group coordinator: loaded {}-{} (leader epoch {}) in {} ms: {} records, {} groups, {} offsets",
                 kOffsetsTopic, p, epoch, took_ms, records, groups.size(), offset_count);
  }

  void UnloadLocked(int32_t p, Deferred& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    owned_.erase(p);
    for (auto it = groups_.begin(); it != groups_.end();) {
      if (it->second.partition != p) {
        ++it;
        continue;
      }
      for (auto& [id, m] : it->second.members) {
        AnswerJoin(m, ErrorCode::kNotCoordinator, d);
        AnswerSync(m, ErrorCode::kNotCoordinator, d);
      }
      it = groups_.erase(it);
    }
  }

  void Run() {
    while (true) {
      int64_t wait_ms = kPollMs;
      {
        absl::MutexLock lock(&mu_);
        if (!timers_.empty()) wait_ms = std::clamp<int64_t>(timers_.begin()->first - Now(), 0, kPollMs);
        planned_wake_ms_.store(Now() + wait_ms);
      }
      {
        Inbox& inbox = *inbox_;
        absl::MutexLock lock(&inbox.mu);
        inbox.mu.AwaitWithTimeout(absl::Condition(
                                      +[](Inbox* in) ABSL_EXCLUSIVE_LOCKS_REQUIRED(in->mu) {
                                        return in->stopping || in->poked;
                                      },
                                      &inbox),
                                  absl::Milliseconds(wait_ms));
        if (inbox.stopping) return;
        inbox.poked = false;
      }
      RunDueTimers();
    }
  }

  const GroupCoordinatorOptions options_;
  GroupLog* const log_;
  std::atomic<int32_t> partitions_;
  std::atomic<int64_t> planned_wake_ms_{0};

  mutable absl::Mutex mu_;
  std::map<std::string, Group> groups_ ABSL_GUARDED_BY(mu_);
  std::map<int32_t, Owned> owned_ ABSL_GUARDED_BY(mu_);
  std::vector<std::pair<int32_t, int32_t>> loads_ ABSL_GUARDED_BY(mu_);  // (partition, epoch) to load
  std::multimap<int64_t, Timer> timers_ ABSL_GUARDED_BY(mu_);
  uint64_t timer_seq_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t join_order_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t rebalances_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t commits_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t commit_requests_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t offsets_expired_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t partitions_loaded_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t load_time_ms_total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_load_time_ms_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<int64_t> commit_latency_us_ ABSL_GUARDED_BY(mu_);

  // Taken after mu_, or alone.
  const std::shared_ptr<Inbox> inbox_ = std::make_shared<Inbox>();
  std::thread thread_;
};

std::set<std::string> GroupCoordinator::Impl::SubscribedTopicsLocked(const Group& g) const {
  std::set<std::string> topics;
  for (const auto& [id, m] : g.members) {
    auto sub = proto::kafka::ReadConsumerSubscription(MetadataFor(m, g.protocol_name.value_or("")));
    if (!sub.ok()) continue;
    topics.insert(sub->topics.begin(), sub->topics.end());
  }
  return topics;
}

GroupCoordinator::GroupCoordinator(GroupCoordinatorOptions options, GroupLog* log)
    : impl_(std::make_unique<Impl>(options, log)) {}
GroupCoordinator::~GroupCoordinator() = default;

int32_t GroupCoordinator::PartitionFor(absl::string_view group_id) const {
  return OffsetsPartitionFor(group_id, impl_->partitions());
}
int32_t GroupCoordinator::offsets_topic_partitions() const { return impl_->partitions(); }
void GroupCoordinator::OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
  impl_->OnLeadership(led, topic_partitions);
}
bool GroupCoordinator::IsLoaded(int32_t partition) const { return impl_->IsLoaded(partition); }
void GroupCoordinator::JoinGroup(JoinGroupParams params, std::function<void(JoinGroupResult)> respond) {
  impl_->JoinGroup(std::move(params), std::move(respond));
}
void GroupCoordinator::SyncGroup(SyncGroupParams params, std::function<void(SyncGroupResult)> respond) {
  impl_->SyncGroup(std::move(params), std::move(respond));
}
ErrorCode GroupCoordinator::Heartbeat(const std::string& group_id, const std::string& member_id,
                                      const std::optional<std::string>& group_instance_id, int32_t generation_id) {
  return impl_->Heartbeat(group_id, member_id, group_instance_id, generation_id);
}
GroupCoordinator::LeaveResult GroupCoordinator::LeaveGroup(const std::string& group_id,
                                                           const std::vector<MemberIdentity>& members) {
  return impl_->LeaveGroup(group_id, members);
}
void GroupCoordinator::CommitOffsets(OffsetCommitParams params,
                                     std::function<void(std::vector<PartitionError>)> respond) {
  impl_->CommitOffsets(std::move(params), std::move(respond));
}
OffsetFetchResult GroupCoordinator::FetchOffsets(const std::string& group_id,
                                                 const std::optional<std::vector<storage::TopicPartition>>& partitions) {
  return impl_->FetchOffsets(group_id, partitions);
}
std::pair<ErrorCode, std::vector<GroupOverview>> GroupCoordinator::ListGroups() const { return impl_->ListGroups(); }
GroupDescription GroupCoordinator::DescribeGroup(const std::string& group_id) const {
  return impl_->DescribeGroup(group_id);
}
void GroupCoordinator::DeleteGroups(std::vector<std::string> group_ids,
                                    std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> respond) {
  impl_->DeleteGroups(std::move(group_ids), std::move(respond));
}
void GroupCoordinator::DeleteOffsets(std::string group_id, std::vector<storage::TopicPartition> partitions,
                                     std::function<void(ErrorCode, std::vector<PartitionError>)> respond) {
  impl_->DeleteOffsets(std::move(group_id), std::move(partitions), std::move(respond));
}
void GroupCoordinator::RunDueTimers() { impl_->RunDueTimers(); }
CoordinatorStats GroupCoordinator::stats() const { return impl_->stats(); }

}  // namespace strata::broker
