// GroupCoordinatorImpl's offsets (group_coordinator_impl.h): OffsetCommit, OffsetFetch,
// OffsetDelete, DeleteGroups, and offsets.retention.minutes.
#include <algorithm>
#include <chrono>

#include "base/logging.h"
#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {

void GroupCoordinatorImpl::CommitOffsets(OffsetCommitParams params, std::function<void(std::vector<PartitionError>)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  ++commit_requests_;
  auto all = [&](ErrorCode e) {
    std::vector<PartitionError> out;
    for (const auto& p : params.partitions) out.push_back({p.topic, p.partition, e});
    d.Add([respond, out] { respond(out); });
  };
  bool created = false;
  auto [g, error] = GroupForCommitLocked(params.group_id, params.generation_id, &created);
  if (error != ErrorCode::kNone) return all(error);
  if (created) {
    // Offsets without group management (assign() consumers, tools): generation -1.
  } else if (g->type == GroupType::kConsumer) {
    // KIP-848: the member's epoch instead of a generation; -1 from outside the group
    // (tools, assign() consumers) only while it has no member (Kafka's validateOffsetCommit).
    if (params.generation_id >= 0 || !g->consumer.members.empty()) {
      if (ErrorCode e = CheckConsumerMemberEpochLocked(*g, params.member_id, params.generation_id);
          e != ErrorCode::kNone) {
        return all(e);
      }
    }
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
  OffsetWrites writes =
      OffsetWritesOf(*g, params.partitions, now, params.retention_time_ms >= 0 ? now + params.retention_time_ms : -1);
  std::vector<PartitionError> out = std::move(writes.answers);
  std::vector<GroupLogRecord> records = std::move(writes.records);
  std::vector<std::pair<storage::TopicPartition, OffsetValue>> values = std::move(writes.values);
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
                  GroupMetadata* g = FindLocked(group_id);
                  if (g != nullptr) {
                    for (auto& [tp, v] : values) {
                      g->offsets[tp] = v;
                      g->offset_order[tp] = ++log_order_;
                    }
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

std::pair<GroupMetadata*, ErrorCode> GroupCoordinatorImpl::GroupForCommitLocked(const std::string& group_id,
                                                                                int32_t generation_id, bool* created) {
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) return {nullptr, e};
  GroupMetadata* g = FindLocked(group_id);
  if (g == nullptr) {
    if (generation_id >= 0) return {nullptr, ErrorCode::kIllegalGeneration};
    if (created != nullptr) *created = true;
    return {&CreateGroupLocked(group_id), ErrorCode::kNone};
  }
  if (g->state == GroupState::kDead) return {nullptr, ErrorCode::kCoordinatorNotAvailable};
  if (g->type == GroupType::kShare) return {nullptr, ErrorCode::kGroupIdNotFound};  // a share group has no offsets
  return {g, ErrorCode::kNone};
}

GroupCoordinatorImpl::OffsetWrites GroupCoordinatorImpl::OffsetWritesOf(
    const GroupMetadata& g, const std::vector<PartitionOffsetCommit>& partitions, int64_t now,
    int64_t expire_timestamp_ms) const {
  OffsetWrites out;
  for (const PartitionOffsetCommit& p : partitions) {
    out.answers.push_back({p.topic, p.partition, ErrorCode::kNone});
    if (p.metadata && static_cast<int64_t>(p.metadata->size()) > options_.offset_metadata_max_bytes) {
      out.answers.back().error = ErrorCode::kOffsetMetadataTooLarge;
      continue;
    }
    OffsetValue v;
    v.offset = p.offset;
    v.leader_epoch = p.leader_epoch;
    v.metadata = p.metadata.value_or("");
    v.commit_timestamp_ms = now;
    v.expire_timestamp_ms = expire_timestamp_ms;
    out.records.push_back({EncodeGroupRecordKey(OffsetKey{g.group_id, p.topic, p.partition}), EncodeOffsetValue(v)});
    out.values.push_back({{p.topic, p.partition}, v});
  }
  return out;
}

OffsetFetchResult GroupCoordinatorImpl::FetchOffsets(const std::string& group_id,
                                                     const std::optional<std::vector<storage::TopicPartition>>& partitions,
                                                     bool require_stable, const OffsetFetchMember& member) {
  absl::MutexLock lock(&mu_);
  OffsetFetchResult result;
  ErrorCode e = ReachLocked(group_id);
  if (e == ErrorCode::kNone && member.member_id) {
    // OffsetFetch v9+ from a consumer group's member (Kafka's validateOffsetFetch): its
    // member id and epoch are checked; none (admin tools) is not. A classic group's
    // members (franz-go sends its member id and generation) are not checked, as in Kafka.
    const GroupMetadata* g = FindLocked(group_id);
    if (g != nullptr && g->type == GroupType::kConsumer) {
      e = CheckConsumerMemberEpochLocked(*g, *member.member_id, member.member_epoch);
    }
  }
  if (e != ErrorCode::kNone) {
    result.error = e;
    if (partitions) {
      for (const auto& tp : *partitions) result.partitions.push_back({.topic = tp.topic, .partition = tp.partition, .error = e});
    }
    return result;
  }
  const GroupMetadata* g = FindLocked(group_id);
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
  auto pending = [&](const storage::TopicPartition& tp) {
    if (g == nullptr) return false;
    for (const auto& [producer, offsets] : g->pending_txn_offsets) {
      if (offsets.count(tp)) return true;
    }
    return false;
  };
  for (const auto& tp : *partitions) {
    const OffsetValue* v = nullptr;
    if (g != nullptr) {
      auto it = g->offsets.find(tp);
      if (it != g->offsets.end()) v = &it->second;
    }
    result.partitions.push_back(fetched(tp, v));
    if (require_stable && pending(tp)) {
      // An open transaction wrote an offset here: the consumer waits for its end (KIP-447).
      result.partitions.back().error = ErrorCode::kUnstableOffsetCommit;
      result.partitions.back().offset = -1;
    }
  }
  return result;
}

void GroupCoordinatorImpl::DeleteGroups(std::vector<std::string> group_ids,
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
    GroupMetadata* g = FindLocked(id);
    if (g == nullptr || g->state == GroupState::kDead) {
      e = ErrorCode::kGroupIdNotFound;
      continue;
    }
    if (g->state != GroupState::kEmpty) {
      e = ErrorCode::kNonEmptyGroup;
      continue;
    }
    std::vector<GroupLogRecord> tombstones = TombstonesOf(*g);
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

void GroupCoordinatorImpl::DeleteOffsets(std::string group_id, std::vector<storage::TopicPartition> partitions,
                                         std::function<void(ErrorCode, std::vector<PartitionError>)> respond) {
  Deferred d;
  absl::MutexLock lock(&mu_);
  auto fail = [&](ErrorCode e) { d.Add([respond, e] { respond(e, {}); }); };
  if (ErrorCode e = ReachLocked(group_id); e != ErrorCode::kNone) return fail(e);
  GroupMetadata* g = FindLocked(group_id);
  if (g == nullptr || g->state == GroupState::kDead) return fail(ErrorCode::kGroupIdNotFound);
  std::set<std::string> subscribed;
  if (g->state != GroupState::kEmpty) {
    if (g->protocol_type != "consumer") return fail(ErrorCode::kNonEmptyGroup);
    subscribed = SubscribedTopics(*g);
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

// offsets.retention.minutes: the offsets of a group nobody is a member of expire
// once it has been empty that long; offsets committed without group management expire
// that long after their commit (or at the retention their commit asked for).
void GroupCoordinatorImpl::ExpireOffsetsLocked(int64_t now) {
  std::vector<std::string> dead;
  for (auto& [group_id, group] : groups_) {
    const std::string id = group_id;  // captured below (a structured binding cannot be)
    GroupMetadata& g = group;
    if (g.state != GroupState::kEmpty || !g.pending_members.empty() || ReachLocked(id) != ErrorCode::kNone) continue;
    int64_t before = static_cast<int64_t>(g.offsets.size());
    auto expired = [&](const storage::TopicPartition&, const OffsetValue& v) {
      int64_t base = g.protocol_type.empty() ? v.commit_timestamp_ms : std::max(v.commit_timestamp_ms, g.state_timestamp_ms);
      return v.expire_timestamp_ms >= 0 ? now >= v.expire_timestamp_ms : now >= base + options_.offsets_retention_ms;
    };
    if (DropOffsetsLocked(g, id, expired, "expired")) dead.push_back(id);
    offsets_expired_ += before - static_cast<int64_t>(g.offsets.size());
  }
  for (const std::string& id : dead) ForgetGroupLocked(id);
}

// Kafka's onPartitionsDeleted: a deleted topic's committed offsets go with it, so that a
// topic created again under the same name is read from auto.offset.reset, not from where
// the old one had been read to (which would skip its first records).
void GroupCoordinatorImpl::OnTopicsDeleted(const std::set<std::string>& topics) {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> dead;
  for (auto& [group_id, g] : groups_) {
    const std::string id = group_id;
    if (ReachLocked(id) != ErrorCode::kNone) continue;
    auto deleted = [&](const storage::TopicPartition& tp, const OffsetValue&) { return topics.count(tp.topic) > 0; };
    // Pending transactional offsets of the topics go too: a later COMMIT marker must not
    // bring them back.
    for (auto p = g.pending_txn_offsets.begin(); p != g.pending_txn_offsets.end();) {
      std::erase_if(p->second, [&](const auto& entry) { return topics.count(entry.first.topic) > 0; });
      if (p->second.empty()) g.pending_txn_order.erase(p->first);
      p = p->second.empty() ? g.pending_txn_offsets.erase(p) : std::next(p);
    }
    if (DropOffsetsLocked(g, id, deleted, "of deleted topics removed")) dead.push_back(id);
  }
  for (const std::string& id : dead) ForgetGroupLocked(id);
}

bool GroupCoordinatorImpl::DropOffsetsLocked(
    GroupMetadata& g, const std::string& id,
    absl::FunctionRef<bool(const storage::TopicPartition&, const OffsetValue&)> drop, absl::string_view why) {
  std::vector<GroupLogRecord> tombstones;
  for (auto it = g.offsets.begin(); it != g.offsets.end();) {
    if (!drop(it->first, it->second)) {
      ++it;
      continue;
    }
    tombstones.push_back({EncodeGroupRecordKey(OffsetKey{id, it->first.topic, it->first.partition}), std::nullopt});
    it = g.offsets.erase(it);
  }
  if (!tombstones.empty()) spdlog::info("group coordinator: {} offsets of group {} {}", tombstones.size(), id, why);
  // Offsets pending in an open transaction keep the group (Kafka's hasOffsets): its COMMIT
  // marker makes them the group's offsets (OnTransactionCompleted). A share group has no
  // offsets and is never expired (its share partitions' state outlives its members, as
  // Kafka's; DeleteGroups removes it).
  bool dead = g.state == GroupState::kEmpty && g.pending_members.empty() && g.offsets.empty() &&
              g.pending_txn_offsets.empty() && g.type != GroupType::kShare;
  if (dead) {
    std::vector<GroupLogRecord> group = GroupTombstonesOf(g);
    tombstones.insert(tombstones.end(), std::make_move_iterator(group.begin()), std::make_move_iterator(group.end()));
  }
  if (!tombstones.empty()) {
    WriteLocked(g, std::move(tombstones), [id](ErrorCode e, Deferred&) {
      if (e != ErrorCode::kNone) {
        spdlog::warn("group coordinator: writing removed offsets of group {}: {}", id, proto::kafka::ErrorName(e));
      }
    });
  }
  return dead;
}

}  // namespace strata::broker
