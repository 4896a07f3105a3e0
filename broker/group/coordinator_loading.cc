// GroupCoordinatorImpl's partitions (group_coordinator_impl.h): leading a partition of
// __consumer_offsets loads its groups (COORDINATOR_LOAD_IN_PROGRESS until then); no
// longer leading it drops them (NOT_COORDINATOR to whoever waits).
#include <algorithm>
#include <chrono>
#include <variant>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "broker/group/consumer_group_log.h"
#include "broker/group/share_group_log.h"
#include "broker/group/group_coordinator_impl.h"

namespace strata::broker {

void GroupCoordinatorImpl::OnLeadership(const std::map<int32_t, int32_t>& led, int32_t topic_partitions) {
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

bool GroupCoordinatorImpl::IsLoaded(int32_t p) const {
  absl::MutexLock lock(&mu_);
  auto it = owned_.find(p);
  return it != owned_.end() && it->second.loaded;
}

void GroupCoordinatorImpl::RunLoads() {
  std::vector<std::pair<int32_t, int32_t>> todo;
  {
    absl::MutexLock lock(&mu_);
    todo.swap(loads_);
  }
  for (auto [p, epoch] : todo) Load(p, epoch);
}

namespace {

// What a read of a partition of __consumer_offsets accumulates, record by record in log
// order, before the coordinator serves it.
struct PartitionReplay {
  std::map<std::string, GroupValue> groups;
  std::map<std::string, ConsumerGroup> consumer_groups;
  std::map<std::string, ShareGroup> share_groups;
  std::map<std::string, std::map<storage::TopicPartition, OffsetValue>> offsets;
  // Transactional offsets by producer, until its marker: group -> partition -> offset.
  std::map<int64_t, std::map<std::string, std::map<storage::TopicPartition, OffsetValue>>> pending;
  // Each offset's record's place in the log (GroupMetadata::offset_order), the same for
  // the pending ones.
  std::map<std::string, std::map<storage::TopicPartition, uint64_t>> order;
  std::map<int64_t, std::map<std::string, std::map<storage::TopicPartition, uint64_t>>> pending_order;
  int64_t records = 0;

  absl::Status Apply(GroupLogRecord r) {
    const uint64_t at = static_cast<uint64_t>(++records);
    if (r.marker_commit) {
      EndTransaction(r.producer_id, *r.marker_commit);
      return absl::OkStatus();
    }
    STRATA_ASSIGN_OR_RETURN(GroupRecordKey key, DecodeGroupRecordKey(r.key));
    if (const auto* k = std::get_if<OffsetKey>(&key); k != nullptr && r.producer_id >= 0 && r.value) {
      STRATA_ASSIGN_OR_RETURN(OffsetValue v, DecodeOffsetValue(*r.value));
      pending[r.producer_id][k->group_id][{k->topic, k->partition}] = std::move(v);
      pending_order[r.producer_id][k->group_id][{k->topic, k->partition}] = at;
      return absl::OkStatus();
    }
    if (const auto* k = std::get_if<OffsetKey>(&key)) {
      storage::TopicPartition tp{k->topic, k->partition};
      if (!r.value) {
        auto it = offsets.find(k->group_id);
        if (it != offsets.end()) it->second.erase(tp);
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(OffsetValue v, DecodeOffsetValue(*r.value));
      offsets[k->group_id][tp] = std::move(v);
      order[k->group_id][tp] = at;
    } else if (const auto* c = std::get_if<ConsumerGroupKey>(&key); c != nullptr && IsShareRecordType(c->type)) {
      STRATA_RETURN_IF_ERROR(ApplyShareRecord(share_groups[c->group_id], *c, r.value));
      if (c->type == ConsumerRecordType::kShareGroupMetadata) {
        if (r.value) {  // the group's last record of any type says which type it is
          groups.erase(c->group_id);
          consumer_groups.erase(c->group_id);
        } else {
          share_groups.erase(c->group_id);
        }
      }
    } else if (const auto* c = std::get_if<ConsumerGroupKey>(&key)) {
      STRATA_RETURN_IF_ERROR(ApplyConsumerRecord(consumer_groups[c->group_id], *c, r.value));
      if (c->type == ConsumerRecordType::kGroupMetadata) {
        // The group's last record of either type says which type it is.
        if (r.value) {
          groups.erase(c->group_id);
          share_groups.erase(c->group_id);
        } else {
          consumer_groups.erase(c->group_id);
        }
      }
    } else {
      const std::string& id = std::get<GroupKey>(key).group_id;
      if (!r.value) {
        groups.erase(id);
        return absl::OkStatus();
      }
      STRATA_ASSIGN_OR_RETURN(GroupValue v, DecodeGroupValue(*r.value));
      groups[id] = std::move(v);
      consumer_groups.erase(id);
      share_groups.erase(id);
    }
    return absl::OkStatus();
  }

  // A transaction marker of producer_id: its pending offsets become the groups' (each
  // over an offset written before it) or go.
  void EndTransaction(int64_t producer_id, bool commit) {
    auto it = pending.find(producer_id);
    if (it == pending.end()) return;
    if (commit) {
      for (auto& [group, by_partition] : it->second) {
        for (auto& [tp, v] : by_partition) {
          const uint64_t written = pending_order[producer_id][group][tp];
          if (!TxnOffsetWins(offsets[group], order[group], tp, written)) continue;
          offsets[group][tp] = std::move(v);
          order[group][tp] = written;
        }
      }
    }
    pending.erase(it);
    pending_order.erase(producer_id);
  }

  // Once every record is read: the consumer groups' derived state.
  absl::Status Finish() {
    std::erase_if(consumer_groups, [](const auto& entry) {
      return entry.second.group_epoch == 0 && entry.second.members.empty();  // no group record
    });
    std::erase_if(share_groups, [](const auto& entry) {
      return entry.second.group_epoch == 0 && entry.second.members.empty();
    });
    for (auto& [id, cg] : consumer_groups) {
      if (absl::Status finished = FinishConsumerGroupLoad(cg); !finished.ok()) {
        return absl::DataLossError(absl::StrCat("consumer group ", id, ": ", finished.message()));
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

// Reads partition p (led in epoch) and serves its groups.
void GroupCoordinatorImpl::Load(int32_t p, int32_t epoch) {
  const auto started = std::chrono::steady_clock::now();
  PartitionReplay replay;
  absl::Status s = log_->Read(p, epoch, [&replay](GroupLogRecord r) { return replay.Apply(std::move(r)); });
  if (s.ok()) s = replay.Finish();
  auto& groups = replay.groups;
  auto& consumer_groups = replay.consumer_groups;
  auto& offsets = replay.offsets;
  auto& order = replay.order;
  const int64_t records = replay.records;
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
    GroupMetadata& g = CreateGroupLocked(id);
    g.protocol_type = v.protocol_type;
    g.generation_id = v.generation_id;
    g.protocol_name = v.protocol_name;
    g.leader_id = v.leader_id;
    g.state = v.members.empty() ? GroupState::kEmpty : GroupState::kStable;
    g.state_timestamp_ms = v.state_timestamp_ms;
    for (GroupValue::Member& vm : v.members) {
      MemberMetadata& m = g.members[vm.member_id];
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
  for (auto& [id, cg] : consumer_groups) {
    if (misplaced(id)) continue;
    GroupMetadata& g = CreateGroupLocked(id);
    g.type = GroupType::kConsumer;
    g.protocol_type = "consumer";
    g.consumer = std::move(cg);
    ResolveConsumerRegexes(g.consumer, topics_);  // not written: resolved from the topics as they are
    g.state = g.consumer.members.empty() ? GroupState::kEmpty : GroupState::kStable;
    // Every member's session starts again (Kafka's coordinator does the same on a load).
    for (auto& [member_id, m] : g.consumer.members) {
      m.session_deadline_ms = now + options_.consumer.session_timeout_ms;
      m.revocation_deadline_ms =
          m.assignment.state == ConsumerMemberState::kUnrevokedPartitions ? now + m.rebalance_timeout_ms : 0;
      ArmConsumerTimersLocked(g, member_id);
    }
  }
  for (auto& [id, sg] : replay.share_groups) {
    if (misplaced(id)) continue;
    GroupMetadata& g = CreateGroupLocked(id);
    g.type = GroupType::kShare;
    g.protocol_type = "share";
    g.share = std::move(sg);
    g.state = g.share.members.empty() ? GroupState::kEmpty : GroupState::kStable;
    for (auto& [member_id, m] : g.share.members) {  // every session starts again
      m.session_deadline_ms = now + options_.share.session_timeout_ms;
      AddTimerLocked(m.session_deadline_ms, Timer::kShareSession, id, member_id, 0);
    }
  }
  int64_t offset_count = 0;
  for (auto& [id, by_partition] : offsets) {
    if (by_partition.empty() || misplaced(id)) continue;
    GroupMetadata* g = FindLocked(id);
    if (g == nullptr) g = &CreateGroupLocked(id);
    offset_count += static_cast<int64_t>(by_partition.size());
    g->offsets = std::move(by_partition);
    g->offset_order = std::move(order[id]);
  }
  for (auto& [producer, by_group] : replay.pending) {
    // Still open: their markers come (WriteTxnMarkers, OnTransactionCompleted).
    for (auto& [id, by_partition] : by_group) {
      if (misplaced(id)) continue;
      GroupMetadata* g = FindLocked(id);
      if (g == nullptr) g = &CreateGroupLocked(id);
      g->pending_txn_offsets[producer] = std::move(by_partition);
      g->pending_txn_order[producer] = std::move(replay.pending_order[producer][id]);
    }
  }
  // Writes from now on lie after everything loaded.
  log_order_ = std::max(log_order_, static_cast<uint64_t>(records));
  it->second.loaded = true;
  ++partitions_loaded_;
  load_time_ms_total_ += took_ms;
  last_load_time_ms_ = took_ms;
  spdlog::info("group coordinator: loaded {}-{} (leader epoch {}) in {} ms: {} records, {} classic, {} consumer and {} "
               "share groups, {} offsets",
               kOffsetsTopic, p, epoch, took_ms, records, groups.size(), consumer_groups.size(),
               replay.share_groups.size(), offset_count);
}

void GroupCoordinatorImpl::UnloadLocked(int32_t p, Deferred& d) {
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

}  // namespace strata::broker
