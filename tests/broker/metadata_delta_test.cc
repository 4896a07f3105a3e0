// A metadata entry is applied to the hosted partitions incrementally: MetadataDelta names
// the topics and partitions a batch touched (or `full` for a broker record, a
// broker-level config, a restored snapshot, an unknown record), and
// ReplicaManager::ApplyImage(image, delta) brings only those in line. Pinned here: what a
// delta names, that a delta leaves other partitions alone (checked against an image that
// deliberately moved on without telling), that a deleted topic's partitions go, that a
// broker record walks everything, that a log not opened is retried by any entry, and
// that over random sequences of batches the incremental applies leave the hosted
// partitions exactly as full applies do.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "broker/replication/metadata_delta.h"
#include "broker/replication/replica_manager.h"
#include "controller/metadata_store.h"
#include "raft/types.h"
#include "storage/fault_injecting_file_ops.h"
#include "tests/support/broker_services.h"
#include "tests/support/metadata_records.h"
#include "tests/support/temp_dir.h"

namespace strata::broker {
namespace {

namespace pb = metadata::v1;

constexpr int32_t kBroker = 1;

std::string Id(char c) { return std::string(16, c); }

pb::MetadataRecord LeaderChange(const std::string& topic_id, int32_t partition, int32_t leader) {
  pb::MetadataRecord r;
  auto* c = r.mutable_partition_change();
  c->set_topic_id(topic_id);
  c->set_partition_id(partition);
  c->set_leader(leader);
  return r;
}

pb::MetadataRecord TopicConfig(const std::string& topic, const std::string& key, const std::string& value) {
  pb::MetadataRecord r;
  auto* c = r.mutable_config();
  c->set_resource_type(pb::Config::TOPIC);
  c->set_resource_name(topic);
  c->set_name(key);
  c->set_value(value);
  return r;
}

pb::MetadataRecord RemoveTopic(const std::string& topic_id) {
  pb::MetadataRecord r;
  r.mutable_remove_topic()->set_topic_id(topic_id);
  return r;
}

pb::MetadataRecord FenceBroker(int32_t id, bool fence) {
  pb::MetadataRecord r;
  auto* f = fence ? r.mutable_fence_broker() : nullptr;
  auto* u = fence ? nullptr : r.mutable_unfence_broker();
  if (f) {
    f->set_broker_id(id);
    f->set_broker_epoch(1);
  } else {
    u->set_broker_id(id);
    u->set_broker_epoch(1);
  }
  return r;
}

pb::MetadataBatch Batch(std::vector<pb::MetadataRecord> records) {
  pb::MetadataBatch batch;
  for (auto& r : records) *batch.add_records() = std::move(r);
  return batch;
}

// Brokers 1, 2, 3 and topic `name` (id) with `partitions` partitions on all three, led by
// broker 1 with the full ISR.
std::vector<pb::MetadataRecord> TopicOnThreeBrokers(const std::string& name, const std::string& id, int partitions) {
  std::vector<pb::MetadataRecord> out{testing::TopicRecord(name, id)};
  for (int i = 0; i < partitions; ++i) out.push_back(testing::PartitionRecord(id, i, {1, 2, 3}, {1, 2, 3}, 1));
  return out;
}

// ---- What a batch names ----

TEST(MetadataDeltaTest, TopicAndPartitionRecordsNameTheirTopicsAndPartitions) {
  pb::MetadataRecord segment;
  segment.mutable_remote_log_segment()->set_topic_id(Id('c'));
  segment.mutable_remote_log_segment()->set_partition_id(4);
  pb::MetadataRecord producer_ids;
  producer_ids.mutable_producer_ids()->set_next_producer_id(1000);
  MetadataDelta delta = MetadataDelta::FromBatch(
      Batch({testing::TopicRecord("a", Id('a')), testing::PartitionRecord(Id('b'), 2, {1}, {1}, 1),
             LeaderChange(Id('b'), 3, 1), segment, TopicConfig("d", "retention.ms", "1"), RemoveTopic(Id('e')),
             producer_ids}));
  EXPECT_FALSE(delta.full);
  ASSERT_EQ(delta.changed_topics.size(), 3u);
  EXPECT_TRUE(delta.changed_topics.at(Id('a')).all_partitions);
  EXPECT_FALSE(delta.changed_topics.at(Id('b')).all_partitions);
  EXPECT_EQ(delta.changed_topics.at(Id('b')).partitions, (std::set<int32_t>{2, 3}));
  EXPECT_EQ(delta.changed_topics.at(Id('c')).partitions, (std::set<int32_t>{4}));
  EXPECT_EQ(delta.changed_topic_configs, (std::set<std::string>{"d"}));
  EXPECT_EQ(delta.deleted_topic_ids, (std::set<std::string>{Id('e')}));
}

TEST(MetadataDeltaTest, ProducerIdsNameNothing) {
  pb::MetadataRecord producer_ids;
  producer_ids.mutable_producer_ids()->set_next_producer_id(1000);
  MetadataDelta delta = MetadataDelta::FromBatch(Batch({producer_ids}));
  EXPECT_TRUE(delta.empty());
}

TEST(MetadataDeltaTest, BrokerRecordsBrokerConfigsSnapshotsAndUnknownRecordsAreFull) {
  pb::MetadataRecord unregister;
  unregister.mutable_unregister_broker()->set_broker_id(2);
  pb::MetadataRecord change;
  change.mutable_broker_registration_change()->set_broker_id(2);
  pb::MetadataRecord broker_config = TopicConfig("", "log.retention.ms", "1");
  broker_config.mutable_config()->set_resource_type(pb::Config::BROKER);
  pb::MetadataRecord unknown;  // what a record of a newer version parses as
  for (const pb::MetadataRecord& record :
       {testing::RegisterBrokerRecord(2), unregister, FenceBroker(2, true), FenceBroker(2, false), change,
        broker_config, unknown}) {
    SCOPED_TRACE(record.ShortDebugString());
    // Full even among records that name topics.
    EXPECT_TRUE(MetadataDelta::FromBatch(Batch({LeaderChange(Id('a'), 0, 1), record})).full);
  }
  // The store's listener hears a restored snapshot as an empty batch.
  EXPECT_TRUE(MetadataDelta::FromBatch(pb::MetadataBatch()).full);
  EXPECT_TRUE(MetadataDelta::Full().full);
}

// ---- ReplicaManager::ApplyImage(image, delta) ----

class IncrementalApplyTest : public ::testing::Test {
 protected:
  IncrementalApplyTest() : services_(tmp_.Sub("broker"), Options(&faults_)) {}

  static testing::BrokerServicesOptions Options(storage::FileOps* ops) {
    testing::BrokerServicesOptions o;
    o.broker_id = kBroker;
    o.ops = ops;
    return o;
  }
  // The batch into the image, and to the partitions only what `delta` names (the batch's
  // own delta unless a test says otherwise).
  void Apply(const pb::MetadataBatch& batch, std::optional<MetadataDelta> delta = std::nullopt) {
    controller::MetadataStore& store = services_.store();
    ASSERT_TRUE(store.Apply(raft::Entry{1, store.applied().index + 1, batch.SerializeAsString()}).ok());
    MetadataDelta applied = delta ? *delta : MetadataDelta::FromBatch(batch);
    store.WithImage([&](const controller::MetadataImage& image) { replicas().ApplyImage(image, applied); });
  }
  void ApplyFull(const pb::MetadataBatch& batch) { Apply(batch, MetadataDelta::Full()); }
  ReplicaManager& replicas() { return services_.replicas(); }
  std::shared_ptr<Partition> Get(const std::string& topic, int32_t p) { return replicas().GetPartition({topic, p}); }
  // Brokers 1, 2, 3; topic a (3 partitions) and b (2), led here.
  void TwoTopics() {
    std::vector<pb::MetadataRecord> records{testing::RegisterBrokerRecord(1), testing::RegisterBrokerRecord(2),
                                            testing::RegisterBrokerRecord(3)};
    for (auto& r : TopicOnThreeBrokers("a", Id('a'), 3)) records.push_back(std::move(r));
    for (auto& r : TopicOnThreeBrokers("b", Id('b'), 2)) records.push_back(std::move(r));
    ApplyFull(Batch(std::move(records)));
    ASSERT_EQ(replicas().partitions().size(), 5u);
  }

  testing::TempDir tmp_;
  storage::FaultInjectingFileOps faults_;
  testing::BrokerServices services_;
};

TEST_F(IncrementalApplyTest, ADeltaAppliesTheNamedPartitionAndLeavesTheOthersAlone) {
  TwoTopics();
  const int64_t walked = replicas().image_apply_partitions();
  const int64_t full = replicas().image_full_applies();
  // a-0 moves to broker 2: followed here now.
  Apply(Batch({LeaderChange(Id('a'), 0, 2)}));
  EXPECT_FALSE(Get("a", 0)->is_leader());
  EXPECT_EQ(Get("a", 0)->state().leader, 2);
  EXPECT_EQ(replicas().image_apply_partitions() - walked, 1);
  EXPECT_EQ(replicas().image_full_applies(), full);
  // The image moves b-0 to broker 3 too, but the partitions hear only of a-1: b-0 keeps
  // the state it was given (an untouched partition is not re-read from the image),
  // while a-1 is brought in line.
  ASSERT_TRUE(services_.store()
                  .Apply(raft::Entry{1, services_.store().applied().index + 1,
                                     Batch({LeaderChange(Id('b'), 0, 3)}).SerializeAsString()})
                  .ok());
  Apply(Batch({LeaderChange(Id('a'), 1, 3)}));
  EXPECT_EQ(Get("a", 1)->state().leader, 3);
  EXPECT_TRUE(Get("b", 0)->is_leader());
  EXPECT_EQ(Get("b", 0)->leader_epoch(), 0);
  EXPECT_TRUE(Get("a", 2)->is_leader());
  EXPECT_EQ(replicas().image_apply_partitions() - walked, 2);
  // A full apply then finds it.
  Apply(pb::MetadataBatch());  // a restored snapshot
  EXPECT_EQ(Get("b", 0)->state().leader, 3);
  EXPECT_EQ(replicas().image_full_applies(), full + 1);
}

TEST_F(IncrementalApplyTest, ATopicConfigAppliesEveryPartitionOfThatTopicOnly) {
  TwoTopics();
  const int64_t walked = replicas().image_apply_partitions();
  Apply(Batch({TopicConfig("b", "min.insync.replicas", "2"), TopicConfig("b", "retention.ms", "1234")}));
  EXPECT_EQ(replicas().image_apply_partitions() - walked, 2);
  for (int32_t p : {0, 1}) {
    EXPECT_EQ(replicas().FindHosted({"b", p})->min_insync_replicas, 2);
    EXPECT_EQ(Get("b", p)->log()->config().retention_ms, 1234);
  }
  EXPECT_EQ(replicas().FindHosted({"a", 0})->min_insync_replicas, 1);
}

TEST_F(IncrementalApplyTest, RemoveTopicDropsItsPartitionsAndNothingElse) {
  TwoTopics();
  Apply(Batch({RemoveTopic(Id('a'))}));
  for (int32_t p : {0, 1, 2}) {
    EXPECT_EQ(Get("a", p), nullptr);
    EXPECT_EQ(services_.logs().GetLog({"a", p}), nullptr);
    EXPECT_FALSE(replicas().ReplicasEligibleForIsr({"a", p}).has_value());
  }
  EXPECT_NE(Get("b", 0), nullptr);
  EXPECT_NE(Get("b", 1), nullptr);
  // A new topic of the same name, with fewer partitions, in one batch with the removal
  // of the old one: only its own partitions are hosted, on new logs.
  Apply(Batch({RemoveTopic(Id('b')), testing::TopicRecord("b", Id('B')),
               testing::PartitionRecord(Id('B'), 0, {1, 2}, {1, 2}, 1)}));
  ASSERT_NE(Get("b", 0), nullptr);
  EXPECT_EQ(Get("b", 0)->state().topic_id, Id('B'));
  EXPECT_EQ(Get("b", 1), nullptr);
  EXPECT_EQ(services_.logs().GetLog({"b", 1}), nullptr);
  EXPECT_EQ(replicas().partitions().size(), 1u);
}

TEST_F(IncrementalApplyTest, AReplicaMovedAwayIsDropped) {
  TwoTopics();
  pb::MetadataRecord move;
  auto* c = move.mutable_partition_change();
  c->set_topic_id(Id('a'));
  c->set_partition_id(1);
  for (int32_t b : {2, 3}) c->mutable_replicas()->add_ids(b);
  for (int32_t b : {2, 3}) c->mutable_isr()->add_ids(b);
  c->set_leader(2);
  Apply(Batch({move}));
  EXPECT_EQ(Get("a", 1), nullptr);
  EXPECT_FALSE(replicas().ReplicasEligibleForIsr({"a", 1}).has_value());
  EXPECT_EQ(replicas().partitions().size(), 4u);
}

TEST_F(IncrementalApplyTest, AFullApplyDeletesLogsTheImagePlacesOnOtherBrokersOnly) {
  // Logs this broker held before it stopped: one of a partition moved away meanwhile,
  // one of a topic deleted meanwhile (the image never hears of them here again).
  ASSERT_TRUE(services_.logs().GetOrCreateLog({"a", 1}).ok());
  ASSERT_TRUE(services_.logs().GetOrCreateLog({"gone", 0}).ok());
  std::vector<pb::MetadataRecord> records{testing::RegisterBrokerRecord(1), testing::RegisterBrokerRecord(2),
                                          testing::RegisterBrokerRecord(3)};
  for (auto& r : TopicOnThreeBrokers("a", Id('a'), 3)) records.push_back(std::move(r));
  for (auto& r : records) {
    if (r.has_partition() && r.partition().partition_id() == 1) {
      r.mutable_partition()->clear_replicas();
      r.mutable_partition()->clear_isr();
      for (int32_t b : {2, 3}) {
        r.mutable_partition()->add_replicas(b);
        r.mutable_partition()->add_isr(b);
      }
      r.mutable_partition()->set_leader(2);
    }
  }
  ApplyFull(Batch(std::move(records)));
  EXPECT_EQ(services_.logs().GetLog({"a", 1}), nullptr);
  EXPECT_EQ(services_.logs().GetLog({"gone", 0}), nullptr);
  EXPECT_NE(services_.logs().GetLog({"a", 0}), nullptr);
  EXPECT_NE(services_.logs().GetLog({"a", 2}), nullptr);
  EXPECT_EQ(replicas().partitions().size(), 2u);
}

TEST_F(IncrementalApplyTest, ABrokerRecordWalksEveryPartition) {
  TwoTopics();
  const int64_t walked = replicas().image_apply_partitions();
  const int64_t full = replicas().image_full_applies();
  EXPECT_EQ(replicas().ReplicasEligibleForIsr({"b", 1}), (std::set<int32_t>{1, 2, 3}));
  Apply(Batch({FenceBroker(3, true)}));
  EXPECT_EQ(replicas().image_full_applies(), full + 1);
  EXPECT_EQ(replicas().image_apply_partitions() - walked, 5);
  // Broker 3 may join no ISR now, in every partition.
  for (const storage::TopicPartition& tp : replicas().partitions()) {
    EXPECT_EQ(replicas().ReplicasEligibleForIsr(tp), (std::set<int32_t>{1, 2})) << tp.DirName();
  }
  Apply(Batch({FenceBroker(3, false)}));
  EXPECT_EQ(replicas().ReplicasEligibleForIsr({"a", 0}), (std::set<int32_t>{1, 2, 3}));
}

TEST_F(IncrementalApplyTest, ALogNotOpenedIsRetriedByAnEntryThatNamesAnotherTopic) {
  TwoTopics();
  // The first write of c-0's partition.metadata fails: the partition is not hosted yet.
  faults_.AddRule({"c-0/partition.metadata.tmp", storage::FaultOp::kOpen, 0, UINT64_MAX, 5, 1});
  std::vector<pb::MetadataRecord> records = TopicOnThreeBrokers("c", Id('c'), 1);
  Apply(Batch(records));
  EXPECT_EQ(Get("c", 0), nullptr);
  EXPECT_EQ(replicas().ReplicasEligibleForIsr({"c", 0}), (std::set<int32_t>{1, 2, 3}));
  // The next entry is about topic a only; c-0 is opened all the same.
  Apply(Batch({LeaderChange(Id('a'), 0, 2)}));
  ASSERT_NE(Get("c", 0), nullptr);
  EXPECT_TRUE(Get("c", 0)->is_leader());
}

// ---- Incremental and full applies agree ----

// Two brokers with id 1 in their own dirs, fed the same batches: one applies each batch's
// delta, the other the whole image.
class IncrementalEqualsFullTest : public ::testing::Test {
 protected:
  IncrementalEqualsFullTest()
      : incremental_(tmp_.Sub("incremental"), Options()), full_(tmp_.Sub("full"), Options()) {}
  static testing::BrokerServicesOptions Options() {
    testing::BrokerServicesOptions o;
    o.broker_id = kBroker;
    return o;
  }
  void Apply(const pb::MetadataBatch& batch) {
    for (testing::BrokerServices* services : {&incremental_, &full_}) {
      controller::MetadataStore& store = services->store();
      ASSERT_TRUE(store.Apply(raft::Entry{1, store.applied().index + 1, batch.SerializeAsString()}).ok());
    }
    incremental_.store().WithImage([&](const controller::MetadataImage& image) {
      incremental_.replicas().ApplyImage(image, first_ ? MetadataDelta::Full() : MetadataDelta::FromBatch(batch));
    });
    full_.store().WithImage([&](const controller::MetadataImage& image) { full_.replicas().ApplyImage(image); });
    first_ = false;
  }
  // Every hosted partition and what ApplyImage gave it, on both brokers.
  void ExpectSameHostedPartitions() {
    ReplicaManager& a = incremental_.replicas();
    ReplicaManager& b = full_.replicas();
    ASSERT_EQ(a.partitions(), b.partitions());
    for (const storage::TopicPartition& tp : b.partitions()) {
      SCOPED_TRACE(tp.DirName());
      std::shared_ptr<Partition> x = a.GetPartition(tp);
      std::shared_ptr<Partition> y = b.GetPartition(tp);
      ASSERT_NE(x, nullptr);
      ASSERT_NE(y, nullptr);
      EXPECT_EQ(x->state(), y->state());
      EXPECT_EQ(x->is_leader(), y->is_leader());
      EXPECT_EQ(x->high_watermark(), y->high_watermark());
      EXPECT_EQ(x->remote_tier(), y->remote_tier());
      EXPECT_TRUE(x->log()->config() == y->log()->config());
      EXPECT_EQ(a.FindHosted(tp)->min_insync_replicas, b.FindHosted(tp)->min_insync_replicas);
    }
    // Eligibility also for partitions listed here but not hosted.
    full_.store().WithImage([&](const controller::MetadataImage& image) {
      for (const auto& [id, topic] : image.topics()) {
        for (const auto& [index, p] : topic.partitions) {
          storage::TopicPartition tp{topic.name, index};
          EXPECT_EQ(a.ReplicasEligibleForIsr(tp), b.ReplicasEligibleForIsr(tp)) << tp.DirName();
        }
      }
      return 0;
    });
  }

  testing::TempDir tmp_;
  testing::BrokerServices incremental_;
  testing::BrokerServices full_;
  bool first_ = true;
};

// Random batches over brokers 1-3 and topics t0-t3 (each deleted and created again under
// a new id now and then): leader, ISR and replica changes (also moving replicas away
// from broker 1 and back), topic configs, fencing, controlled shutdown, offline log dirs,
// remote segment copies, producer ids, new partitions.
class RandomBatches {
 public:
  explicit RandomBatches(uint32_t seed) : rng_(seed) {}

  pb::MetadataBatch Start() {
    pb::MetadataBatch batch;
    for (int32_t b : {1, 2, 3}) {
      *batch.add_records() = testing::RegisterBrokerRecord(b);
      batch.mutable_records()->rbegin()->mutable_register_broker()->add_log_dirs(DirOf(b));
    }
    for (int t = 0; t < kTopics; ++t) CreateTopic(t, &batch);
    return batch;
  }

  pb::MetadataBatch Next(const controller::MetadataImage& image) {
    pb::MetadataBatch batch;
    int records = Uniform(1, 3);
    for (int i = 0; i < records; ++i) AddRecord(image, &batch);
    return batch;
  }

 private:
  static constexpr int kTopics = 4;
  int Uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string TopicName(int t) const { return absl::StrCat("t", t); }

  void CreateTopic(int t, pb::MetadataBatch* batch) {
    ids_[t] = Id(static_cast<char>('A' + next_id_++));
    *batch->add_records() = testing::TopicRecord(TopicName(t), ids_[t]);
    int partitions = Uniform(1, 6);
    for (int p = 0; p < partitions; ++p) AddPartition(t, p, batch);
  }
  void AddPartition(int t, int p, pb::MetadataBatch* batch) {
    std::vector<int32_t> replicas = Replicas();
    pb::MetadataRecord r = testing::PartitionRecord(ids_[t], p, replicas, replicas, replicas[0]);
    for (int32_t b : replicas) r.mutable_partition()->add_directories(DirOf(b));
    *batch->add_records() = std::move(r);
  }
  static std::string DirOf(int32_t broker) { return Id(static_cast<char>('0' + broker)); }
  // One to three distinct brokers, in a random order.
  std::vector<int32_t> Replicas() {
    std::vector<int32_t> all{1, 2, 3};
    std::shuffle(all.begin(), all.end(), rng_);
    all.resize(Uniform(1, 3));
    return all;
  }

  void AddRecord(const controller::MetadataImage& image, pb::MetadataBatch* batch) {
    int t = Uniform(0, kTopics - 1);
    const controller::TopicState* topic = image.FindTopicById(ids_[t]);
    if (topic == nullptr) return;  // removed earlier in this batch
    int32_t p = Uniform(0, static_cast<int>(topic->partitions.size()) - 1);
    const pb::Partition& partition = topic->partitions.at(p);
    pb::MetadataRecord r;
    // Partition changes most often, broker records (which walk everything) seldom.
    std::discrete_distribution<int> kinds({6, 3, 3, 2, 1, 1, 2, 1, 1, 1, 1});
    switch (kinds(rng_)) {
      case 0: {  // a new leader among the ISR, or none
        int32_t leader = partition.isr_size() > 0 ? partition.isr(Uniform(0, partition.isr_size() - 1)) : -1;
        r = LeaderChange(ids_[t], p, Uniform(0, 4) == 0 ? -1 : leader);
        break;
      }
      case 1: {  // the ISR shrinks to the leader or grows back to every replica
        auto* c = r.mutable_partition_change();
        c->set_topic_id(ids_[t]);
        c->set_partition_id(p);
        c->mutable_isr();
        if (Uniform(0, 1) == 0 && partition.leader() >= 0) {
          c->mutable_isr()->add_ids(partition.leader());
        } else {
          *c->mutable_isr()->mutable_ids() = partition.replicas();
        }
        break;
      }
      case 2: {  // a reassignment (broker 1 may leave the partition or join it)
        std::vector<int32_t> replicas = Replicas();
        auto* c = r.mutable_partition_change();
        c->set_topic_id(ids_[t]);
        c->set_partition_id(p);
        for (int32_t b : replicas) c->mutable_replicas()->add_ids(b);
        for (int32_t b : replicas) c->mutable_isr()->add_ids(b);
        for (int32_t b : replicas) c->add_directories(DirOf(b));
        c->set_leader(replicas[0]);
        break;
      }
      case 3: {
        static const char* kKeys[] = {"min.insync.replicas", "retention.ms", "segment.bytes"};
        static const char* kValues[] = {"2", "86400000", "1048576"};
        int k = Uniform(0, 2);
        r = TopicConfig(TopicName(t), kKeys[k], kValues[k]);
        if (Uniform(0, 2) == 0) r.mutable_config()->clear_value();
        break;
      }
      case 4:
        r = FenceBroker(Uniform(2, 3), Uniform(0, 1) == 0);
        break;
      case 5: {
        auto* c = r.mutable_broker_registration_change();
        c->set_broker_id(Uniform(2, 3));
        c->set_broker_epoch(1);
        c->set_in_controlled_shutdown(Uniform(0, 1) == 0);
        break;
      }
      case 6: {  // a remote copy of the partition, started and finished by its leader
        if (partition.leader() < 0) return;
        for (auto state : {pb::RemoteLogSegment::COPY_SEGMENT_STARTED, pb::RemoteLogSegment::COPY_SEGMENT_FINISHED}) {
          pb::MetadataRecord copy;
          auto* s = copy.mutable_remote_log_segment();
          s->set_topic_id(ids_[t]);
          s->set_partition_id(p);
          std::string id = absl::StrCat("segment-", segments_);
          id.resize(16, '.');
          s->set_segment_id(id);
          s->set_state(state);
          s->set_start_offset(10 * segments_);
          s->set_end_offset(10 * segments_ + 9);
          s->set_broker_id(partition.leader());
          s->set_leader_epoch(partition.leader_epoch());
          *batch->add_records() = std::move(copy);
        }
        ++segments_;
        return;
      }
      case 7: {
        pb::MetadataRecord ids;
        ids.mutable_producer_ids()->set_next_producer_id(next_producer_id_ += 1000);
        r = ids;
        break;
      }
      case 8:  // a new partition
        AddPartition(t, static_cast<int32_t>(topic->partitions.size()), batch);
        return;
      case 9: {  // the topic deleted and created again under a new id
        *batch->add_records() = RemoveTopic(ids_[t]);
        CreateTopic(t, batch);
        return;
      }
      case 10: {  // a log dir of broker 2 or 3 goes offline (a broker record)
        auto* c = r.mutable_broker_registration_change();
        int32_t b = Uniform(2, 3);
        c->set_broker_id(b);
        c->set_broker_epoch(1);
        c->add_offline_log_dirs(DirOf(b));
        break;
      }
    }
    *batch->add_records() = std::move(r);
  }

  std::mt19937 rng_;
  std::map<int, std::string> ids_;
  int next_id_ = 0;
  int segments_ = 0;
  int64_t next_producer_id_ = 0;
};

TEST_F(IncrementalEqualsFullTest, RandomBatchesLeaveTheSamePartitions) {
  const uint32_t seed = 20261201;
  RandomBatches batches(seed);
  Apply(batches.Start());
  ExpectSameHostedPartitions();
  for (int step = 0; step < 500 && !HasFailure(); ++step) {
    SCOPED_TRACE(absl::StrCat("seed=", seed, " step=", step));
    // The batch is built against the image before it (each record valid then; a later
    // record of the same batch may be refused by the image, as on a real cluster).
    pb::MetadataBatch batch = full_.store().WithImage(
        [&](const controller::MetadataImage& image) { return batches.Next(image); });
    Apply(batch);
    ExpectSameHostedPartitions();
  }
  // Mostly incremental applies, which brought fewer partitions in line.
  EXPECT_LT(incremental_.replicas().image_full_applies() * 2, incremental_.replicas().image_applies());
  EXPECT_LT(incremental_.replicas().image_apply_partitions() * 2, full_.replicas().image_apply_partitions());
  EXPECT_LT(full_.store().apply_errors(), 50);
}

}  // namespace
}  // namespace strata::broker
