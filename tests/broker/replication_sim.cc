#include "tests/broker/replication_sim.h"

#include <algorithm>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"
#include "broker/common/kafka_error.h"
#include "proto/kafka/error_code.h"
#include "storage/clock.h"
#include "storage/file_ops.h"
#include "storage/record_batch.h"
#include "tests/support/batches.h"
#include "tests/support/metadata_records.h"

namespace strata::broker::sim {

namespace {

using proto::kafka::ErrorCode;

constexpr int64_t kStepMs = 10;
constexpr int32_t kController = 0;
constexpr int32_t kReplicas = 3;
constexpr int64_t kLagMs = 300;            // replica.lag.time.max.ms
constexpr int64_t kRequestTimeout = 30;    // steps: a produce's timeout, a fetch's, a client's
constexpr int64_t kAlterTimeout = 50;      // steps: AlterPartition's deadline
constexpr int64_t kDeliveryTimeout = 150;  // steps: a producer gives a batch up
constexpr uint64_t kMaxFetchBytes = 1 << 20;

int16_t Code(ErrorCode e) { return static_cast<int16_t>(e); }

std::string Join(const std::vector<int32_t>& v) { return absl::StrJoin(v, ","); }

}  // namespace

struct Message {
  enum Kind { kFetch, kFetchResponse, kProduce, kProduceResponse, kAlterPartition, kAlterPartitionResponse };
  Kind kind = kFetch;
  int32_t from = 0;
  int32_t to = 0;
  int to_incarnation = -1;  // a broker's answers go to the incarnation that asked
  int64_t deliver_at = 0;
  int64_t request_id = 0;
  int16_t error = 0;
  // Fetch and its answer.
  int32_t leader_epoch = -1;
  int64_t fetch_offset = 0;
  int32_t last_fetched_epoch = -1;
  std::string records;
  int64_t high_watermark = -1;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
  bool diverging = false;  // the answer names where the follower diverged (maybe -1/-1)
  int32_t diverging_epoch = -1;
  int64_t diverging_end_offset = -1;
  // Produce and its answer.
  int64_t base_offset = -1;
  // AlterPartition.
  int32_t partition_epoch = -1;
  std::vector<int32_t> isr;
  std::vector<int64_t> broker_epochs;  // of isr's members (KIP-903)
};

struct WaitingProduce {
  int32_t producer = 0;
  int64_t request_id = 0;
  int64_t base_offset = 0;
  int64_t required_offset = 0;  // the high watermark that acknowledges it
  int64_t deadline = 0;
  int32_t min_insync_replicas = 1;
};

struct Broker {
  int32_t id = 0;
  std::string dir;
  std::unique_ptr<storage::FaultInjectingFileOps> ops;
  storage::ManualClock clock;
  std::unique_ptr<storage::Log> log;
  std::unique_ptr<Partition> partition;
  bool up = false;
  int incarnation = 0;
  int64_t fence_at = -1;  // down: when the controller's session for it runs out
  bool shutting_down = false;
  bool lost_power = false;  // until the controller fenced it
  // Metadata: entries of the history applied, when the next may arrive, a stall.
  size_t applied = 0;
  int64_t next_metadata = 0;
  int64_t stalled_until = 0;
  // Follower.
  int64_t fetch_id = 0;  // the fetch in flight (0: none)
  int64_t fetch_sent = 0;
  int64_t fetch_backoff_until = 0;
  int16_t last_fetch_error = 0;
  // Leader.
  std::vector<WaitingProduce> waiting;
  std::optional<std::vector<int32_t>> expansion;
  int64_t alter_id = 0;  // the AlterPartition in flight (0: none)
  int64_t alter_sent = 0;
  int64_t next_shrink_check = 0;
};

struct Batch {
  int32_t sequence = 0;
  int16_t epoch = 0;
  std::vector<std::string> values;
  std::string bytes;
  int64_t first_sent = -1;
};

struct Producer {
  int32_t address = 0;  // 100 + index
  int64_t producer_id = 0;
  int16_t epoch = 0;
  int32_t next_sequence = 0;
  std::optional<Batch> batch;
  int32_t leader = -1;
  int64_t request_id = 0;  // of the attempt in flight (0: none)
  int64_t sent_at = 0;
  int64_t retry_at = 0;
  int64_t next_request_id = 1;
};

ReplicationSim::ReplicationSim(uint64_t seed, const std::string& dir) : rng_(seed), dir_(dir), verbose_(std::getenv("STRATA_SIM_VERBOSE") != nullptr) {
  setup_.min_insync_replicas = seed % 4 == 0 ? 1 : 2;
  setup_.faults.drop = std::uniform_real_distribution<double>(0, 0.15)(rng_);
  setup_.faults.duplicate = std::uniform_real_distribution<double>(0, 0.1)(rng_);
  setup_.faults.max_delay = Uniform(0, 5);
  setup_.crash = std::uniform_real_distribution<double>(0.001, 0.008)(rng_);
  Trace(absl::StrCat("seed ", seed, ": min.insync.replicas=", setup_.min_insync_replicas, " drop=",
                     setup_.faults.drop, " duplicate=", setup_.faults.duplicate, " max_delay=",
                     setup_.faults.max_delay, " crash=", setup_.crash));

  topic_id_ = std::string(16, 't');
  for (int32_t id = 1; id <= kReplicas; ++id) {
    ABSL_CHECK_OK(image_.Apply(testing::RegisterBrokerRecord(id, next_broker_epoch_++)));
  }
  ABSL_CHECK_OK(image_.Apply(testing::TopicRecord("t", topic_id_)));
  ABSL_CHECK_OK(image_.Apply(testing::PartitionRecord(topic_id_, 0, {1, 2, 3}, {1, 2, 3}, 1)));
  history_.push_back({ControllerState(), Fenced(), BrokerEpochs()});

  for (int32_t id = 1; id <= kReplicas; ++id) {
    auto b = std::make_unique<Broker>();
    b->id = id;
    b->dir = absl::StrCat(dir_, "/broker-", id, "/t-0");
    b->ops = std::make_unique<storage::FaultInjectingFileOps>();
    ABSL_CHECK_OK(storage::CreateDirRecursively(*b->ops, b->dir));
    brokers_.push_back(std::move(b));
  }
  for (auto& b : brokers_) {
    Start(*b);
    b->applied = 0;  // the first entry, like every later one
  }
  for (int i = 0; i < 2; ++i) {
    auto p = std::make_unique<Producer>();
    p->address = 100 + i;
    p->producer_id = 1000 + i;
    producers_.push_back(std::move(p));
  }
}

ReplicationSim::~ReplicationSim() {
  for (auto& b : brokers_) {
    b->partition.reset();
    b->log.reset();
  }
  (void)storage::RemoveRecursively(*storage::FileOps::Default(), dir_);
}

bool ReplicationSim::Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }

int ReplicationSim::Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

Broker& ReplicationSim::broker(int32_t id) { return *brokers_.at(static_cast<size_t>(id - 1)); }

void ReplicationSim::Trace(const std::string& line) { absl::StrAppend(&trace_, "[", step_, "] ", line, "\n"); }

void ReplicationSim::Fail(const std::string& what) {
  if (!violation_.empty()) return;
  violation_ = absl::StrCat("step ", step_, ": ", what);
  Trace(absl::StrCat("VIOLATION: ", what));
}

bool ReplicationSim::PowerLossPending() const {
  for (const auto& b : brokers_) {
    if (b->lost_power) return true;
  }
  return false;
}

// --- the controller -------------------------------------------------------------------

PartitionState ReplicationSim::ControllerState() const {
  const controller::pb::Partition* p = image_.FindPartition(topic_id_, 0);
  ABSL_CHECK(p != nullptr);
  PartitionState s;
  s.topic_id = topic_id_;
  s.leader = p->leader();
  s.leader_epoch = p->leader_epoch();
  s.partition_epoch = p->partition_epoch();
  s.replicas.assign(p->replicas().begin(), p->replicas().end());
  s.isr.assign(p->isr().begin(), p->isr().end());
  return s;
}

std::map<int32_t, int64_t> ReplicationSim::BrokerEpochs() const {
  std::map<int32_t, int64_t> out;
  for (const auto& [id, b] : image_.brokers()) out[id] = b.registration().broker_epoch();
  return out;
}

std::set<int32_t> ReplicationSim::Fenced() const {
  std::set<int32_t> out;
  for (const auto& [id, b] : image_.brokers()) {
    if (b.fenced()) out.insert(id);
  }
  return out;
}

void ReplicationSim::ApplyPlan(const controller::Plan& plan, const std::string& why) {
  if (!plan.outcome.ok() || plan.records.empty()) return;
  const PartitionState before = ControllerState();
  for (const auto& r : plan.records) ABSL_CHECK_OK(image_.Apply(r));
  const PartitionState after = ControllerState();
  history_.push_back({after, Fenced(), BrokerEpochs()});
  if (after.leader != before.leader || after.leader_epoch != before.leader_epoch) ++leader_changes_;
  Trace(absl::StrCat("controller: ", why, ": leader ", after.leader, " epoch ", after.leader_epoch, " isr [",
                     Join(after.isr), "] partition epoch ", after.partition_epoch, " fenced [",
                     absl::StrJoin(history_.back().fenced, ","), "]"));
  // Unclean leader election is off: a new leader comes from the ISR it had.
  if (after.leader >= 0 && after.leader != before.leader &&
      std::find(before.isr.begin(), before.isr.end(), after.leader) == before.isr.end()) {
    Fail(absl::StrCat("broker ", after.leader, " became leader from outside the ISR [", Join(before.isr), "]"));
  }
}

void ReplicationSim::ControllerStep() {
  for (auto& b : brokers_) {
    const auto& state = image_.brokers().at(b->id);
    // A session that ran out: fenced, its replicas out of the ISR and leadership.
    if (!b->up && !state.fenced() && b->fence_at >= 0 && step_ >= b->fence_at) {
      ApplyPlan(controller::PlanFenceBroker(image_, b->id, config_), absl::StrCat("fence broker ", b->id));
    }
    if (image_.brokers().at(b->id).fenced()) b->lost_power = false;
    // A registered broker that caught up with the metadata is unfenced.
    if (b->up && state.fenced() && !b->shutting_down && b->applied == history_.size()) {
      ApplyPlan(controller::PlanUnfenceBroker(image_, b->id, config_), absl::StrCat("unfence broker ", b->id));
    }
  }
  if (!faults_on_) return;
  if (Chance(setup_.elect)) {
    const controller::TopicState* topic = image_.FindTopicById(topic_id_);
    const controller::pb::Partition* p = image_.FindPartition(topic_id_, 0);
    ApplyPlan(controller::PlanElectLeader(image_, *topic, *p, admin::v1::ElectLeadersRequest::PREFERRED),
              "preferred election");
  }
  if (Chance(setup_.shutdown)) {
    Broker& b = broker(Uniform(1, kReplicas));
    if (b.up && !b.shutting_down && !image_.brokers().at(b.id).fenced() && !PowerLossPending()) {
      b.shutting_down = true;
      ApplyPlan(controller::PlanControlledShutdown(image_, b.id, config_),
                absl::StrCat("controlled shutdown of broker ", b.id));
    }
  }
}

void ReplicationSim::HandleAlterPartition(const Message& m) {
  controller::v1::AlterPartitionRequest::Partition request;
  request.set_topic_id(topic_id_);
  request.set_partition_id(0);
  request.set_leader_epoch(m.leader_epoch);
  request.set_partition_epoch(m.partition_epoch);
  for (int32_t r : m.isr) request.add_new_isr(r);
  for (int64_t e : m.broker_epochs) request.add_new_isr_broker_epochs(e);
  controller::Plan plan = controller::PlanAlterPartition(image_, m.from, request);
  Trace(absl::StrCat("controller: AlterPartition from ", m.from, " epochs ", m.leader_epoch, "/", m.partition_epoch,
                     " isr [", Join(m.isr), "]: ", proto::kafka::ErrorName(plan.outcome.code)));
  ApplyPlan(plan, absl::StrCat("AlterPartition from broker ", m.from));
  Message answer;
  answer.kind = Message::kAlterPartitionResponse;
  answer.from = kController;
  answer.to = m.from;
  answer.to_incarnation = m.to_incarnation;
  answer.request_id = m.request_id;
  answer.error = Code(plan.outcome.code);
  Send(std::move(answer));
}

// --- brokers --------------------------------------------------------------------------

void ReplicationSim::Start(Broker& b) {
  b.clock.Advance(step_ * kStepMs - b.clock.NowMs());
  storage::LogOptions options;
  options.ops = b.ops.get();
  options.dir = b.dir;
  options.clock = &b.clock;
  options.config.segment_bytes = 2048;  // rolls often
  options.config.segment_index_bytes = 1024;
  auto log = storage::Log::Open(options);
  ABSL_CHECK(log.ok()) << log.status() << " " << "broker " << b.id << " reopening its log";
  b.log = std::move(*log);
  b.partition = std::make_unique<Partition>(storage::TopicPartition{"t", 0}, b.id, b.log.get());
  b.up = true;
  ++b.incarnation;
  b.fence_at = -1;
  b.shutting_down = false;
  // A starting broker catches up with the metadata first: the newest entry, at once.
  b.applied = history_.size() - 1;
  b.next_metadata = step_ + Uniform(1, 3);
  b.stalled_until = 0;
  b.fetch_id = 0;
  b.waiting.clear();
  b.expansion.reset();
  b.alter_id = 0;
  b.next_shrink_check = step_;
  Trace(absl::StrCat("broker ", b.id, " starts (incarnation ", b.incarnation, "): log end ",
                     b.log->log_end_offset(), ", high watermark ", b.log->high_watermark()));
}

void ReplicationSim::Crash(Broker& b, bool power_loss) {
  Trace(absl::StrCat("broker ", b.id, power_loss ? " loses power" : " crashes", ": log end ", b.log->log_end_offset(),
                     ", recovery point ", b.log->recovery_point()));
  if (power_loss) {
    b.ops->SimulateCrash(rng_());
    b.lost_power = true;
    ++power_losses_;
  }
  b.partition.reset();
  b.log.reset();
  b.up = false;
  b.fence_at = step_ + Uniform(2, 15);
}

void ReplicationSim::DeliverMetadata(Broker& b) {
  while (b.applied < history_.size() && step_ >= b.next_metadata && step_ >= b.stalled_until) {
    const PartitionState& state = history_[b.applied].state;
    auto changed = b.partition->Update(state, step_ * kStepMs);
    ABSL_CHECK(changed.ok()) << "broker " << b.id << ": " << changed.status();
    b.partition->UpdateReplicaBrokerEpochs(history_[b.applied].broker_epochs);  // as ReplicaManager
    ++b.applied;
    if (*changed) {
      Trace(absl::StrCat("broker ", b.id, (state.leader == b.id ? " leads" : " follows"), " in epoch ",
                         state.leader_epoch, " (isr [", Join(state.isr), "]), log end ", b.log->log_end_offset(),
                         ", high watermark ", b.log->high_watermark()));
      b.fetch_id = 0;  // a new leader or epoch: the fetcher starts over
      b.expansion.reset();
    }
    b.next_metadata = step_ + Uniform(0, 2);
  }
}

void ReplicationSim::BrokerStep(Broker& b) {
  b.clock.Advance(step_ * kStepMs - b.clock.NowMs());
  DeliverMetadata(b);
  if (b.shutting_down && b.applied == history_.size()) {
    Trace(absl::StrCat("broker ", b.id, " shuts down: log end ", b.log->log_end_offset()));
    ABSL_CHECK_OK(b.log->Close());
    b.partition.reset();
    b.log.reset();
    b.up = false;
    b.shutting_down = false;
    b.fence_at = step_ + Uniform(1, 5);
    return;
  }
  CompleteProduces(b);  // answers NOT_LEADER_OR_FOLLOWER once leadership left
  if (b.partition->is_leader()) {
    if (b.alter_id != 0 && step_ - b.alter_sent > kAlterTimeout) {
      // ReplicaManager::SendIsrChanges: unanswered, the change stays pending and goes
      // again.
      Trace(absl::StrCat("broker ", b.id, ": AlterPartition unanswered; asking again"));
      b.alter_id = 0;
      if (!b.expansion) b.expansion = b.partition->pending_isr();
    }
    if (b.expansion) {
      std::vector<int32_t> isr = std::move(*b.expansion);
      b.expansion.reset();
      SendIsrChange(b, std::move(isr), /*pending=*/true);
    } else if (step_ >= b.next_shrink_check) {
      b.next_shrink_check = step_ + kLagMs / kStepMs / 2;
      if (auto isr = b.partition->IsrToShrinkTo(step_ * kStepMs, kLagMs)) {
        SendIsrChange(b, std::move(*isr), /*pending=*/false);
      }
    }
  } else {
    FollowerFetch(b);
  }
  if (Chance(setup_.flush)) ABSL_CHECK_OK(b.log->FlushAll());
}

void ReplicationSim::FollowerFetch(Broker& b) {
  PartitionState state = b.partition->state();
  if (state.leader < 0 || state.leader == b.id) return;
  if (b.fetch_id != 0 && step_ - b.fetch_sent <= kRequestTimeout) return;
  if (step_ < b.fetch_backoff_until) return;
  FollowerLogPosition position = b.partition->follower_log_position();
  Message m;
  m.kind = Message::kFetch;
  m.from = b.id;
  m.to = state.leader;
  m.to_incarnation = b.incarnation;
  m.request_id = b.fetch_id = step_ * 1000 + b.id;
  m.leader_epoch = state.leader_epoch;
  m.fetch_offset = position.log_end_offset;
  m.last_fetched_epoch = position.last_fetched_epoch;
  b.fetch_sent = step_;
  Send(std::move(m));
}

void ReplicationSim::HandleFetch(Broker& leader, const Message& m) {
  Message answer;
  answer.kind = Message::kFetchResponse;
  answer.from = leader.id;
  answer.to = m.from;
  answer.to_incarnation = m.to_incarnation;
  answer.request_id = m.request_id;
  answer.leader_epoch = m.leader_epoch;
  Partition& p = *leader.partition;
  // fetch_handler.cc: a follower whose log diverged truncates before fetching on.
  auto checked = p.DivergingEpoch(m.leader_epoch, m.last_fetched_epoch, m.fetch_offset);
  if (!checked.ok()) {
    answer.error = KafkaErrorOf(checked.status());
  } else if (*checked) {
    answer.diverging = true;
    answer.diverging_epoch = (*checked)->first;
    answer.diverging_end_offset = (*checked)->second;
    answer.high_watermark = p.high_watermark();
  } else {
    auto read = p.ReadRecords(m.fetch_offset, kMaxFetchBytes, FetchIsolation::kLogEnd, m.leader_epoch, true, true);
    if (!read.ok()) {
      answer.error = KafkaErrorOf(read.status());
      answer.log_start_offset = p.log_start_offset();
      answer.log_end_offset = leader.log->log_end_offset();
    } else {
      Partition::FollowerFetch fetched =
          p.UpdateFollowerFetchState(m.from, m.fetch_offset, read->log_end_offset, step_ * kStepMs);
      if (fetched.expand_isr) {
        Trace(absl::StrCat("broker ", leader.id, ": broker ", m.from, " caught up at ", m.fetch_offset,
                           " (high watermark ", p.high_watermark(), ")"));
        // ReplicaManager::UpdateFollowerFetchState: only an eligible replica is asked for.
        if (history_[leader.applied - 1].fenced.count(m.from)) {
          p.ClearPendingIsr();
        } else {
          leader.expansion = std::move(fetched.expand_isr);
        }
      }
      auto bytes = read->data.records.ReadAll();
      ABSL_CHECK_OK(bytes.status());
      if (verbose_) {
        Trace(absl::StrCat("broker ", leader.id, " -> fetch answer to ", m.from, " at ", m.fetch_offset, ": ",
                           bytes->size(), " bytes of ", read->data.records.size, ", log end ", read->log_end_offset,
                           ", position ", read->data.records.position));
      }
      answer.records = std::move(*bytes);
      answer.high_watermark = p.high_watermark();
      answer.log_start_offset = read->log_start_offset;
    }
  }
  Send(std::move(answer));
}

void ReplicationSim::HandleFetchResponse(Broker& b, const Message& m) {
  if (m.request_id != b.fetch_id) return;  // not the answer awaited (a connection pairs them)
  b.fetch_id = 0;
  Partition& p = *b.partition;
  // replica_fetcher.cc: removed, or moved to another epoch, while the fetch was out.
  if (p.is_leader() || p.leader_epoch() != m.leader_epoch) return;
  const int64_t end_before = b.log->log_end_offset();
  if (verbose_) {
    Trace(absl::StrCat("broker ", b.id, " <- fetch answer: error ", m.error, " diverging ",
                       m.diverging ? absl::StrCat(m.diverging_epoch, "/", m.diverging_end_offset) : "no", " ", m.records.size(), " bytes, high watermark ", m.high_watermark,
                       "; log end ", end_before));
  }
  auto note_truncation = [&](const char* why) {
    if (b.log->log_end_offset() < end_before) {
      ++truncations_;
      Trace(absl::StrCat("broker ", b.id, " truncates ", end_before, " -> ", b.log->log_end_offset(), " (", why,
                         ")"));
    }
  };
  if (m.error == Code(ErrorCode::kOffsetOutOfRange)) {
    absl::Status s;
    if (m.log_start_offset >= 0 && end_before < m.log_start_offset) {
      s = p.RestartAtLeaderLogStart(m.leader_epoch, m.log_start_offset);
    } else {
      s = p.TruncateToLeaderLogEnd(m.leader_epoch, m.log_end_offset);
    }
    note_truncation("out of range");
    if (!s.ok()) b.fetch_backoff_until = step_ + 2;
    return;
  }
  if (m.error != 0) {
    if (m.error != b.last_fetch_error) {  // said once, not at every retry
      Trace(absl::StrCat("broker ", b.id, ": fetch at ", end_before, " answered ",
                         proto::kafka::ErrorName(static_cast<ErrorCode>(m.error))));
    }
    b.last_fetch_error = m.error;
    b.fetch_backoff_until = step_ + 2;
    return;
  }
  if (m.diverging) {
    absl::Status s = p.TruncateToDivergence(m.leader_epoch, m.diverging_epoch, m.diverging_end_offset);
    note_truncation(absl::StrCat("diverging at epoch ", m.diverging_epoch, " end ", m.diverging_end_offset).c_str());
    if (!s.ok()) b.fetch_backoff_until = step_ + 2;
    return;
  }
  b.last_fetch_error = 0;
  auto appended = p.AppendRecordsToFollower(m.leader_epoch, storage::WholeBatches(m.records), m.high_watermark,
                                            m.log_start_offset);
  if (!appended.ok()) {
    Trace(absl::StrCat("broker ", b.id, ": appending what it fetched at ", end_before, ": ",
                       appended.status().ToString()));
    b.fetch_backoff_until = step_ + 2;
  }
}

void ReplicationSim::HandleProduce(Broker& b, const Message& m) {
  Message answer;
  answer.kind = Message::kProduceResponse;
  answer.from = b.id;
  answer.to = m.from;
  answer.request_id = m.request_id;
  Partition& p = *b.partition;
  if (!p.is_leader()) {
    answer.error = Code(ErrorCode::kNotLeaderOrFollower);
  } else if (static_cast<int32_t>(p.state().isr.size()) < setup_.min_insync_replicas) {
    answer.error = Code(ErrorCode::kNotEnoughReplicas);
  } else {
    std::string records = m.records;
    auto info = p.AppendRecordsToLeader(records);
    if (!info.ok()) {
      answer.error = KafkaErrorOf(info.status());
    } else {
      // handlers/produce_handler.cc: acks=all waits until the ISR has the records.
      b.waiting.push_back({m.from, m.request_id, info->first_offset, info->last_offset + 1, step_ + kRequestTimeout,
                           setup_.min_insync_replicas});
      CompleteProduces(b);
      return;
    }
  }
  Send(std::move(answer));
}

void ReplicationSim::CompleteProduces(Broker& b) {
  // DelayedProduce::TryComplete: leadership gone, acknowledged by the ISR, or timed out.
  Partition& p = *b.partition;
  for (auto it = b.waiting.begin(); it != b.waiting.end();) {
    Message answer;
    answer.kind = Message::kProduceResponse;
    answer.from = b.id;
    answer.to = it->producer;
    answer.request_id = it->request_id;
    answer.base_offset = it->base_offset;
    if (!p.is_leader()) {
      answer.error = Code(ErrorCode::kNotLeaderOrFollower);
    } else if (p.high_watermark() >= it->required_offset) {
      if (static_cast<int32_t>(p.state().isr.size()) < it->min_insync_replicas) {
        answer.error = Code(ErrorCode::kNotEnoughReplicasAfterAppend);
      }
    } else if (step_ >= it->deadline) {
      answer.error = Code(ErrorCode::kRequestTimedOut);
    } else {
      ++it;
      continue;
    }
    Send(std::move(answer));
    it = b.waiting.erase(it);
  }
}

void ReplicationSim::SendIsrChange(Broker& b, std::vector<int32_t> isr, bool pending) {
  // ReplicaManager::SendIsrChanges.
  Partition& p = *b.partition;
  if (!p.is_leader()) return;
  if (pending ? p.pending_isr() != isr : p.has_pending_isr()) return;
  PartitionState state = p.state();
  if (!pending) p.SetPendingIsr(isr);
  Message m;
  m.kind = Message::kAlterPartition;
  m.from = b.id;
  m.to = kController;
  m.to_incarnation = b.incarnation;
  m.request_id = b.alter_id = step_ * 1000 + b.id;
  m.leader_epoch = state.leader_epoch;
  m.partition_epoch = state.partition_epoch;
  m.isr = std::move(isr);
  m.broker_epochs = p.pending_isr_broker_epochs();
  b.alter_sent = step_;
  Trace(absl::StrCat("broker ", b.id, " asks for isr [", Join(m.isr), "] from [", Join(state.isr), "] at high watermark ",
                     p.high_watermark(), ", log end ", b.log->log_end_offset()));
  Send(std::move(m));
}

void ReplicationSim::HandleAlterPartitionResponse(Broker& b, const Message& m) {
  if (m.request_id != b.alter_id) return;
  b.alter_id = 0;
  // Accepted, or refused for a view behind the controller's: the metadata settles it.
  // Refused otherwise: ask again from the newest state.
  const auto code = static_cast<ErrorCode>(m.error);
  if (code != ErrorCode::kNone && code != ErrorCode::kInvalidUpdateVersion && code != ErrorCode::kFencedLeaderEpoch &&
      code != ErrorCode::kNotLeaderOrFollower) {
    b.partition->ClearPendingIsr();
  }
}

// --- clients --------------------------------------------------------------------------

void ReplicationSim::ProducerStep(Producer& p) {
  if (p.batch && p.batch->first_sent >= 0 && step_ - p.batch->first_sent > kDeliveryTimeout) {
    // delivery.timeout.ms: the batch fails with its outcome unknown; KIP-360 bumps the
    // epoch so that the sequence can start over.
    Trace(absl::StrCat("producer ", p.producer_id, " gives up sequence ", p.batch->sequence, " of epoch ", p.epoch,
                       " and bumps its epoch"));
    p.batch.reset();
    p.request_id = 0;
    ++p.epoch;
    p.next_sequence = 0;
    ++epoch_bumps_;
  }
  if (!p.batch) {
    if (!faults_on_ || !Chance(setup_.produce)) return;
    Batch batch;
    batch.sequence = p.next_sequence;
    batch.epoch = p.epoch;
    storage::RecordBatchBuilder builder;
    builder.set_producer(p.producer_id, p.epoch, p.next_sequence);
    const int count = Uniform(1, 3);
    for (int i = 0; i < count; ++i) {
      batch.values.push_back(absl::StrCat("p", p.producer_id, ".", p.epoch, ".", p.next_sequence + i));
      builder.Add(std::nullopt, batch.values.back(), step_ * kStepMs);
    }
    batch.bytes = builder.Build();
    p.batch = std::move(batch);
  }
  if (p.request_id != 0 && step_ - p.sent_at <= kRequestTimeout) return;  // one request in flight
  if (step_ < p.retry_at) return;
  if (p.leader < 0) p.leader = ControllerState().leader;  // a metadata refresh
  if (p.leader < 0) {
    p.retry_at = step_ + 5;
    return;
  }
  Message m;
  m.kind = Message::kProduce;
  m.from = p.address;
  m.to = p.leader;
  m.request_id = p.request_id = p.next_request_id++;
  m.records = p.batch->bytes;
  p.sent_at = step_;
  if (p.batch->first_sent < 0) p.batch->first_sent = step_;
  Send(std::move(m));
}

void ReplicationSim::HandleProduceResponse(Producer& p, const Message& m) {
  if (m.request_id != p.request_id || !p.batch) return;  // an earlier attempt's answer
  p.request_id = 0;
  const auto code = static_cast<ErrorCode>(m.error);
  if (code == ErrorCode::kNone) {
    for (size_t i = 0; i < p.batch->values.size(); ++i) {
      const int64_t offset = m.base_offset + static_cast<int64_t>(i);
      auto [it, added] = committed_.emplace(offset, p.batch->values[i]);
      if (!added && it->second != p.batch->values[i]) {
        Fail(absl::StrCat("offset ", offset, " acknowledged as ", p.batch->values[i], " held ", it->second));
      }
    }
    acked_records_ += static_cast<int64_t>(p.batch->values.size());
    p.next_sequence += static_cast<int32_t>(p.batch->values.size());
    p.batch.reset();
    return;
  }
  if (code == ErrorCode::kOutOfOrderSequenceNumber || code == ErrorCode::kUnknownProducerId ||
      code == ErrorCode::kInvalidProducerEpoch) {
    Trace(absl::StrCat("producer ", p.producer_id, " refused: ", proto::kafka::ErrorName(code), "; bumps its epoch"));
    p.batch.reset();
    ++p.epoch;
    p.next_sequence = 0;
    ++epoch_bumps_;
    return;
  }
  // Retriable: the metadata is refreshed and the same batch sent again.
  p.leader = -1;
  p.retry_at = step_ + 2;
}

void ReplicationSim::ConsumerStep() {
  Broker* leader = nullptr;
  const PartitionState state = ControllerState();
  if (state.leader >= 0 && broker(state.leader).up) leader = &broker(state.leader);
  if (leader == nullptr || !Chance(0.5)) return;
  auto read = leader->partition->ReadRecords(consumer_position_, 4096, FetchIsolation::kHighWatermark,
                                             state.leader_epoch, true, true);
  if (!read.ok()) return;  // not (yet) the leader in that epoch, or out of range
  auto bytes = read->data.records.ReadAll();
  ABSL_CHECK_OK(bytes.status());
  auto records = testing::DecodeAll(storage::WholeBatches(*bytes), consumer_position_);
  ABSL_CHECK_OK(records.status());
  for (const auto& r : *records) {
    if (r.offset >= read->high_watermark) {
      Fail(absl::StrCat("a consumer read offset ", r.offset, " from broker ", leader->id, " whose high watermark is ",
                        read->high_watermark));
    }
    auto [it, added] = committed_.emplace(r.offset, r.value);
    if (!added && it->second != r.value) {
      Fail(absl::StrCat("a consumer read ", r.value, " at offset ", r.offset, " where ", it->second, " was committed"));
    }
    consumer_position_ = r.offset + 1;
  }
}

// --- the network ----------------------------------------------------------------------

void ReplicationSim::Send(Message m) {
  if (faults_on_ && Chance(setup_.faults.drop)) return;
  const int copies = faults_on_ && Chance(setup_.faults.duplicate) ? 2 : 1;
  for (int i = 0; i < copies; ++i) {
    Message copy = m;
    copy.deliver_at = step_ + 1 + (faults_on_ ? Uniform(0, setup_.faults.max_delay) : 0);
    network_.push_back(std::move(copy));
  }
}

void ReplicationSim::Deliver() {
  std::vector<Message> due;
  for (auto it = network_.begin(); it != network_.end();) {
    if (it->deliver_at <= step_) {
      due.push_back(std::move(*it));
      it = network_.erase(it);
    } else {
      ++it;
    }
  }
  for (const Message& m : due) {
    if (m.to == kController) {
      HandleAlterPartition(m);
      continue;
    }
    if (m.to >= 100) {
      HandleProduceResponse(*producers_.at(static_cast<size_t>(m.to - 100)), m);
      continue;
    }
    Broker& b = broker(m.to);
    if (!b.up) continue;
    if (m.kind == Message::kFetch && (!broker(m.from).up || broker(m.from).incarnation != m.to_incarnation)) {
      continue;  // its process is gone, and its connection with it
    }
    if (m.to_incarnation >= 0 && m.kind != Message::kFetch && m.kind != Message::kAlterPartition &&
        m.to_incarnation != b.incarnation) {
      continue;  // an answer to the broker's previous process
    }
    switch (m.kind) {
      case Message::kFetch:
        HandleFetch(b, m);
        break;
      case Message::kFetchResponse:
        HandleFetchResponse(b, m);
        break;
      case Message::kProduce:
        HandleProduce(b, m);
        break;
      case Message::kAlterPartitionResponse:
        HandleAlterPartitionResponse(b, m);
        break;
      case Message::kProduceResponse:
      case Message::kAlterPartition:
        break;
    }
  }
}

// --- a step ---------------------------------------------------------------------------

bool ReplicationSim::Step() {
  ++step_;
  Deliver();
  ControllerStep();
  if (faults_on_) {
    if (Chance(setup_.crash)) {
      Broker& b = broker(Uniform(1, kReplicas));
      // One failure at a time while a power loss is pending (see the header).
      if (b.up && !PowerLossPending()) {
        // A power loss only while another in-sync replica is up and holds what was
        // acknowledged (see the header).
        const PartitionState state = ControllerState();
        bool another = false;
        for (int32_t r : state.isr) another = another || (r != b.id && broker(r).up);
        Crash(b, another && Chance(setup_.power_loss));
      }
    }
    if (Chance(setup_.stall)) {
      Broker& b = broker(Uniform(1, kReplicas));
      b.stalled_until = step_ + Uniform(10, 80);
      Trace(absl::StrCat("broker ", b.id, "'s metadata stalls until step ", b.stalled_until));
    }
  }
  for (auto& b : brokers_) {
    // A fenced broker that is down starts again (its new incarnation registers).
    if (!b->up && image_.brokers().at(b->id).fenced() && (!faults_on_ || Chance(setup_.restart))) {
      Start(*b);
      controller::v1::BrokerRegistrationRequest request;
      request.set_broker_id(b->id);
      std::string incarnation(14, 'i');
      incarnation += static_cast<char>('0' + b->id);
      incarnation += static_cast<char>('a' + b->incarnation % 26);
      request.set_incarnation_id(incarnation);
      ApplyPlan(controller::PlanRegisterBroker(image_, request, next_broker_epoch_++),
                absl::StrCat("register broker ", b->id));
    }
  }
  for (auto& b : brokers_) {
    if (b->up) BrokerStep(*b);
  }
  for (auto& p : producers_) ProducerStep(*p);
  ConsumerStep();
  Check();
  return violation_.empty();
}

void ReplicationSim::Heal() {
  faults_on_ = false;
  for (auto& b : brokers_) b->stalled_until = 0;
  Trace("healed: no more faults");
}

// --- the checker ----------------------------------------------------------------------

Broker* ReplicationSim::SettledLeader() {
  const PartitionState state = ControllerState();
  if (state.leader < 0) return nullptr;
  Broker& b = broker(state.leader);
  if (!b.up || b.applied != history_.size() || !b.partition->is_leader()) return nullptr;
  return &b;
}

void ReplicationSim::Check() {
  std::map<int32_t, std::vector<testing::ReadRecord>> logs;
  for (auto& b : brokers_) {
    if (!b->up) continue;
    auto records = testing::ReadAll(*b->log);
    ABSL_CHECK(records.ok()) << "broker " << b->id << ": " << records.status();
    // No batch of one producer epoch is stored twice: every value names its producer,
    // epoch and sequence.
    std::set<std::string> seen;
    for (const auto& r : *records) {
      if (!seen.insert(r.value).second) {
        Fail(absl::StrCat("broker ", b->id, " stores ", r.value, " twice (again at offset ", r.offset, ")"));
      }
    }
    // The high watermark never goes back within a leader epoch.
    if (b->partition->is_leader()) {
      int64_t& highest = high_watermarks_[b->partition->leader_epoch()];
      if (b->partition->high_watermark() < highest) {
        Fail(absl::StrCat("broker ", b->id, "'s high watermark went back from ", highest, " to ",
                          b->partition->high_watermark(), " in leader epoch ", b->partition->leader_epoch()));
      }
      highest = std::max(highest, b->partition->high_watermark());
    }
    logs[b->id] = std::move(*records);
  }
  Broker* leader = SettledLeader();
  if (leader == nullptr) return;
  const auto& held = logs[leader->id];
  std::map<int64_t, const std::string*> at;
  for (const auto& r : held) at[r.offset] = &r.value;
  // No acknowledged record (nor one a consumer read) lost or changed.
  for (const auto& [offset, value] : committed_) {
    auto it = at.find(offset);
    if (it == at.end()) {
      Fail(absl::StrCat("leader ", leader->id, " (epoch ", leader->partition->leader_epoch(), ", log end ",
                        leader->log->log_end_offset(), ") lacks committed offset ", offset, " (", value, ")"));
      return;
    }
    if (*it->second != value) {
      Fail(absl::StrCat("leader ", leader->id, " holds ", *it->second, " at committed offset ", offset, " (was ",
                        value, ")"));
      return;
    }
  }
  // The committed prefix is the same on every in-sync replica.
  const int64_t hw = leader->partition->high_watermark();
  const PartitionState state = ControllerState();
  const std::vector<int32_t> leader_isr = leader->partition->state().isr;
  for (int32_t r : state.isr) {
    if (r == leader->id || !broker(r).up || history_.back().fenced.count(r) ||
        std::find(leader_isr.begin(), leader_isr.end(), r) == leader_isr.end()) {
      continue;
    }
    const auto& theirs = logs[r];
    size_t i = 0;
    for (const auto& mine : held) {
      if (mine.offset >= hw) break;
      while (i < theirs.size() && theirs[i].offset < mine.offset) ++i;
      if (i == theirs.size() || theirs[i].offset != mine.offset || theirs[i].value != mine.value) {
        Fail(absl::StrCat("in-sync replica ", r, " differs from leader ", leader->id, " at offset ", mine.offset,
                          " below the high watermark ", hw, ": ",
                          i < theirs.size() ? absl::StrCat(theirs[i].offset, "=", theirs[i].value) : "nothing",
                          " instead of ", mine.value));
        return;
      }
    }
  }
}

bool ReplicationSim::Settled(std::string* why) const {
  const PartitionState state = ControllerState();
  for (const auto& b : brokers_) {
    if (!b->up) return *why = absl::StrCat("broker ", b->id, " is down"), false;
    if (image_.brokers().at(b->id).fenced()) return *why = absl::StrCat("broker ", b->id, " is fenced"), false;
    if (std::find(state.isr.begin(), state.isr.end(), b->id) == state.isr.end()) {
      return *why = absl::StrCat("broker ", b->id, " is not in the ISR [", Join(state.isr), "]"), false;
    }
    if (b->applied != history_.size()) return *why = absl::StrCat("broker ", b->id, " lags the metadata"), false;
  }
  if (state.leader < 0) return *why = "no leader", false;
  const Broker& leader = *brokers_.at(static_cast<size_t>(state.leader - 1));
  for (const auto& b : brokers_) {
    if (b->log->log_end_offset() != leader.log->log_end_offset() ||
        b->log->high_watermark() != leader.log->log_end_offset()) {
      return *why = absl::StrCat("broker ", b->id, " ends at ", b->log->log_end_offset(), " with high watermark ",
                                 b->log->high_watermark(), "; the leader ends at ", leader.log->log_end_offset()),
             false;
    }
  }
  for (const auto& p : producers_) {
    if (p->batch) return *why = absl::StrCat("producer ", p->producer_id, " still sends"), false;
  }
  return true;
}

}  // namespace strata::broker::sim
