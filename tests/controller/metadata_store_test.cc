// The metadata image and its RocksDB copy: each record applied, a record that does not
// fit skipped identically, the image after a restart from RocksDB, and a snapshot plus
// the entries after it giving the same image as replaying every entry.

#include "controller/metadata_store.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "raft/snapshot_store.h"
#include "raft/voter_set.h"
#include "tests/support/temp_dir.h"

namespace strata::controller {
namespace {

storage::FileOps& Ops() { return *storage::FileOps::Default(); }

TopicId Id(char c) { return std::string(16, c); }

pb::MetadataRecord RegisterBroker(BrokerId id, int64_t epoch, const std::string& rack = "") {
  pb::MetadataRecord r;
  auto* b = r.mutable_register_broker();
  b->set_broker_id(id);
  b->set_broker_epoch(epoch);
  b->set_incarnation_id(std::string(16, static_cast<char>('a' + id)));
  b->set_rack(rack);
  b->set_fenced(true);
  auto* e = b->add_endpoints();
  e->set_name("PLAINTEXT");
  e->set_host("127.0.0.1");
  e->set_port(9000 + id);
  b->add_log_dirs(std::string(16, 'd'));
  return r;
}

pb::MetadataRecord Unfence(BrokerId id, int64_t epoch) {
  pb::MetadataRecord r;
  r.mutable_unfence_broker()->set_broker_id(id);
  r.mutable_unfence_broker()->set_broker_epoch(epoch);
  return r;
}

pb::MetadataRecord Topic(const std::string& name, const TopicId& id) {
  pb::MetadataRecord r;
  r.mutable_topic()->set_name(name);
  r.mutable_topic()->set_topic_id(id);
  return r;
}

pb::MetadataRecord Partition(const TopicId& id, int32_t p, std::vector<int32_t> replicas) {
  pb::MetadataRecord r;
  auto* part = r.mutable_partition();
  part->set_topic_id(id);
  part->set_partition_id(p);
  for (int32_t b : replicas) {
    part->add_replicas(b);
    part->add_isr(b);
  }
  part->set_leader(replicas[0]);
  return r;
}

pb::MetadataRecord ChangeLeader(const TopicId& id, int32_t p, int32_t leader, std::vector<int32_t> isr) {
  pb::MetadataRecord r;
  auto* c = r.mutable_partition_change();
  c->set_topic_id(id);
  c->set_partition_id(p);
  c->set_leader(leader);
  for (int32_t b : isr) c->mutable_isr()->add_ids(b);
  return r;
}

pb::MetadataRecord TopicConfig(const std::string& topic, const std::string& name, std::optional<std::string> value) {
  pb::MetadataRecord r;
  auto* c = r.mutable_config();
  c->set_resource_type(pb::Config::TOPIC);
  c->set_resource_name(topic);
  c->set_name(name);
  if (value) c->set_value(*value);
  return r;
}

// A transition of a remote copy of orders-like partitions' segments; STARTED carries
// the description (offsets [start, end], one epoch from start).
pb::MetadataRecord Remote(const TopicId& topic, int32_t p, char segment, pb::RemoteLogSegment::State state,
                          int32_t broker, int32_t leader_epoch, int64_t start = 0, int64_t end = 0) {
  pb::MetadataRecord r;
  auto* s = r.mutable_remote_log_segment();
  s->set_topic_id(topic);
  s->set_partition_id(p);
  s->set_segment_id(std::string(16, segment));
  s->set_state(state);
  s->set_broker_id(broker);
  s->set_leader_epoch(leader_epoch);
  if (state == pb::RemoteLogSegment::COPY_SEGMENT_STARTED) {
    s->set_start_offset(start);
    s->set_end_offset(end);
    (*s->mutable_segment_leader_epochs())[leader_epoch] = start;
    s->set_segment_size_in_bytes((end - start + 1) * 100);
    s->set_max_timestamp_ms(1000 + end);
  }
  return r;
}
constexpr auto kStarted = pb::RemoteLogSegment::COPY_SEGMENT_STARTED;
constexpr auto kFinished = pb::RemoteLogSegment::COPY_SEGMENT_FINISHED;
constexpr auto kDeleteStarted = pb::RemoteLogSegment::DELETE_SEGMENT_STARTED;
constexpr auto kDeleteFinished = pb::RemoteLogSegment::DELETE_SEGMENT_FINISHED;

raft::Entry EntryOf(raft::Index index, std::vector<pb::MetadataRecord> records, raft::Term term = 1) {
  pb::MetadataBatch batch;
  for (auto& r : records) *batch.add_records() = std::move(r);
  return raft::Entry{term, index, batch.SerializeAsString()};
}

pb::MetadataRecord RemoteStart(const std::string& topic_id, int32_t partition, int64_t offset, BrokerId leader,
                               int32_t epoch) {
  pb::MetadataRecord r;
  auto* s = r.mutable_remote_log_start_offset();
  s->set_topic_id(topic_id);
  s->set_partition_id(partition);
  s->set_log_start_offset(offset);
  s->set_broker_id(leader);
  s->set_leader_epoch(epoch);
  return r;
}

pb::MetadataRecord FeatureLevel(const std::string& name, int32_t level) {
  pb::MetadataRecord r;
  r.mutable_feature_level()->set_name(name);
  r.mutable_feature_level()->set_level(level);
  return r;
}

// A level an operator set (UpdateFeatures): automatic finalization leaves it alone.
pb::MetadataRecord OperatorLevel(const std::string& name, int32_t level) {
  pb::MetadataRecord r = FeatureLevel(name, level);
  r.mutable_feature_level()->set_set_by_operator(true);
  return r;
}

pb::MetadataRecord Quota(const std::vector<std::pair<std::string, std::optional<std::string>>>& entity,
                         const std::string& key, double value, bool remove = false) {
  pb::MetadataRecord r;
  pb::ClientQuota* q = r.mutable_client_quota();
  for (const auto& [type, name] : entity) {
    pb::ClientQuotaEntityPart* part = q->add_entity();
    part->set_entity_type(type);
    if (name) part->set_entity_name(*name);
  }
  q->set_key(key);
  q->set_value(value);
  q->set_remove(remove);
  return r;
}

// A history touching every kind of record.

std::vector<raft::Entry> History() {
  std::vector<raft::Entry> h;
  raft::Index i = 0;
  for (BrokerId b = 1; b <= 3; ++b) {
    ++i;
    h.push_back(EntryOf(i, {RegisterBroker(b, i)}));  // the broker epoch is its entry's index
  }
  h.push_back(EntryOf(++i, {Unfence(1, 1), Unfence(2, 2), Unfence(3, 3)}));
  h.push_back(raft::Entry{2, ++i, ""});  // a new leader's no-op
  h.push_back(EntryOf(++i, {Topic("orders", Id('o')), Partition(Id('o'), 0, {1, 2, 3}), Partition(Id('o'), 1, {2, 3, 1})}, 2));
  h.push_back(EntryOf(++i, {TopicConfig("orders", "retention.ms", "1000")}, 2));
  h.push_back(EntryOf(++i, {Topic("gone", Id('g')), Partition(Id('g'), 0, {3, 1, 2}), TopicConfig("gone", "x", "y")}, 2));
  // Remote copies of orders-0 by its first leader (broker 1, epoch 0): one finished, one
  // left started, one deleted; and of the topic that goes.
  h.push_back(EntryOf(++i, {Remote(Id('o'), 0, 'a', kStarted, 1, 0, 0, 99), Remote(Id('o'), 0, 'a', kFinished, 1, 0),
                            Remote(Id('o'), 0, 'b', kStarted, 1, 0, 100, 199),
                            Remote(Id('o'), 0, 'c', kStarted, 1, 0, 100, 199), Remote(Id('o'), 0, 'c', kDeleteStarted, 1, 0),
                            Remote(Id('o'), 0, 'c', kDeleteFinished, 1, 0),
                            Remote(Id('g'), 0, 'g', kStarted, 3, 0, 0, 9)}, 2));
  h.push_back(EntryOf(++i, {ChangeLeader(Id('o'), 0, 2, {2, 3})}, 2));
  // The new leader (broker 2, epoch 1) cleans up the copy its predecessor left started.
  h.push_back(EntryOf(++i, {Remote(Id('o'), 0, 'b', kDeleteStarted, 2, 1)}, 2));
  // DeleteRecords on it moves its log start in the remote tier.
  h.push_back(EntryOf(++i, {RemoteStart(Id('o'), 0, 50, 2, 1)}, 2));
  pb::MetadataRecord remove;
  remove.mutable_remove_topic()->set_topic_id(Id('g'));
  h.push_back(EntryOf(++i, {remove}, 2));
  pb::MetadataRecord fence;
  fence.mutable_fence_broker()->set_broker_id(3);
  fence.mutable_fence_broker()->set_broker_epoch(3);
  pb::MetadataRecord pids;
  pids.mutable_producer_ids()->set_broker_id(1);
  pids.mutable_producer_ids()->set_broker_epoch(1);
  pids.mutable_producer_ids()->set_next_producer_id(1000);
  h.push_back(EntryOf(++i, {fence, pids, TopicConfig("orders", "retention.ms", std::nullopt)}, 2));
  h.push_back(EntryOf(++i, {FeatureLevel("transaction.version", 2), FeatureLevel("other.version", 1),
                            FeatureLevel("other.version", 0)},
                      2));
  // An operator's levels, one of them 0 (kept: it holds the feature off), and the fenced
  // broker 3 unregistered.
  pb::MetadataRecord unregister;
  unregister.mutable_unregister_broker()->set_broker_id(3);
  unregister.mutable_unregister_broker()->set_broker_epoch(3);
  h.push_back(EntryOf(++i, {OperatorLevel("pinned.version", 1), OperatorLevel("disabled.version", 0), unregister}, 2));
  // Client quotas: a user's for every client id of it, a client id's, one value removed.
  h.push_back(EntryOf(++i, {Quota({{"user", "alice"}, {"client-id", std::nullopt}}, "producer_byte_rate", 1048576),
                            Quota({{"user", "alice"}, {"client-id", std::nullopt}}, "consumer_byte_rate", 2097152),
                            Quota({{"client-id", "app"}}, "request_percentage", 12.5),
                            Quota({{"user", "alice"}, {"client-id", std::nullopt}}, "consumer_byte_rate", 0, true)},
                      2));
  return h;
}

std::unique_ptr<MetadataStore> OpenStore(const std::string& dir) {
  auto store = MetadataStore::Open(dir);
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

TEST(MetadataImage, EachRecordChangesTheImage) {
  MetadataImage image;
  ASSERT_TRUE(image.Apply(RegisterBroker(1, 10, "r1")).ok());
  EXPECT_TRUE(image.brokers().at(1).fenced());
  ASSERT_TRUE(image.Apply(Unfence(1, 10)).ok());
  EXPECT_FALSE(image.brokers().at(1).fenced());
  EXPECT_FALSE(image.Apply(Unfence(1, 9)).ok()) << "another epoch of broker 1";
  ASSERT_TRUE(image.Apply(RegisterBroker(2, 11)).ok());
  ASSERT_TRUE(image.Apply(Topic("t", Id('t'))).ok());
  EXPECT_FALSE(image.Apply(Topic("t", Id('u'))).ok()) << "the name exists";
  ASSERT_TRUE(image.Apply(Partition(Id('t'), 0, {1, 2})).ok());
  EXPECT_FALSE(image.Apply(Partition(Id('t'), 0, {1, 2})).ok()) << "the partition exists";
  EXPECT_FALSE(image.Apply(Partition(Id('x'), 0, {1})).ok()) << "unknown topic";
  EXPECT_EQ(image.partition_count(), 1);
  const pb::Partition* p = image.FindPartition(Id('t'), 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->leader(), 1);
  EXPECT_EQ(p->leader_epoch(), 0);
  ASSERT_TRUE(image.Apply(ChangeLeader(Id('t'), 0, 2, {2})).ok());
  p = image.FindPartition(Id('t'), 0);
  EXPECT_EQ(p->leader(), 2);
  EXPECT_EQ(p->leader_epoch(), 1);
  EXPECT_EQ(p->partition_epoch(), 1);
  EXPECT_EQ(p->isr_size(), 1);
  // Only the ISR changes: the partition epoch moves, the leader epoch does not.
  ASSERT_TRUE(image.Apply(ChangeLeader(Id('t'), 0, 2, {2, 1})).ok());
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->leader_epoch(), 1);
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->partition_epoch(), 2);
  EXPECT_FALSE(image.Apply(ChangeLeader(Id('t'), 0, 3, {3})).ok()) << "3 is not a replica";
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->partition_epoch(), 2) << "a refused change changes nothing";
  ASSERT_TRUE(image.Apply(TopicConfig("t", "cleanup.policy", "compact")).ok());
  EXPECT_EQ(image.configs().at({pb::Config::TOPIC, "t"}).at("cleanup.policy"), "compact");
  EXPECT_FALSE(image.Apply(TopicConfig("nope", "a", "b")).ok());
  pb::MetadataRecord remove;
  remove.mutable_remove_topic()->set_topic_id(Id('t'));
  ASSERT_TRUE(image.Apply(remove).ok());
  EXPECT_EQ(image.FindTopic("t"), nullptr);
  EXPECT_EQ(image.partition_count(), 0);
  EXPECT_TRUE(image.configs().empty()) << "a removed topic's configs go with it";
  EXPECT_FALSE(image.Apply(pb::MetadataRecord()).ok());
  ASSERT_TRUE(image.Apply(FeatureLevel("transaction.version", 2)).ok());
  EXPECT_EQ(image.FeatureLevelOf("transaction.version"), 2);
  EXPECT_FALSE(image.Apply(FeatureLevel("", 1)).ok());
  EXPECT_FALSE(image.Apply(FeatureLevel("transaction.version", 40000)).ok());
  EXPECT_EQ(image.FeatureLevelOf("transaction.version"), 2) << "a refused level changes nothing";
  ASSERT_TRUE(image.Apply(FeatureLevel("transaction.version", 0)).ok());
  EXPECT_TRUE(image.finalized_features().empty());
  ASSERT_TRUE(image.Apply(OperatorLevel("transaction.version", 1)).ok());
  EXPECT_TRUE(image.FeatureSetByOperator("transaction.version"));
  ASSERT_TRUE(image.Apply(FeatureLevel("transaction.version", 2)).ok());
  EXPECT_FALSE(image.FeatureSetByOperator("transaction.version")) << "each FeatureLevel record says whose it is";
  pb::MetadataRecord unregister;
  unregister.mutable_unregister_broker()->set_broker_id(2);
  unregister.mutable_unregister_broker()->set_broker_epoch(10);
  EXPECT_FALSE(image.Apply(unregister).ok()) << "not broker 2's epoch";
  unregister.mutable_unregister_broker()->set_broker_epoch(11);
  ASSERT_TRUE(image.Apply(unregister).ok());
  EXPECT_EQ(image.brokers().count(2), 0u);
}

TEST(MetadataImage, ATopicsDynamicSettingComesFromTheTopicThenTheBrokerThenTheClusterDefault) {
  auto broker_config = [](const std::string& broker, const std::string& name, const std::string& value) {
    pb::MetadataRecord r = TopicConfig(broker, name, value);
    r.mutable_config()->set_resource_type(pb::Config::BROKER);
    return r;
  };
  MetadataImage image;
  ASSERT_TRUE(image.Apply(Topic("t", Id('t'))).ok());
  EXPECT_EQ(image.DynamicTopicConfig("t", "min.insync.replicas", 1), std::nullopt) << "none set: the static one";
  ASSERT_TRUE(image.Apply(broker_config("", "min.insync.replicas", "2")).ok());
  EXPECT_EQ(image.DynamicTopicConfig("t", "min.insync.replicas", 1), "2");
  ASSERT_TRUE(image.Apply(broker_config("1", "min.insync.replicas", "3")).ok());
  EXPECT_EQ(image.DynamicTopicConfig("t", "min.insync.replicas", 1), "3");
  EXPECT_EQ(image.DynamicTopicConfig("t", "min.insync.replicas", 2), "2") << "broker 1's is its own";
  EXPECT_EQ(image.DynamicTopicConfig("t", "min.insync.replicas", -1), "2") << "the cluster-wide one only";
  ASSERT_TRUE(image.Apply(TopicConfig("t", "min.insync.replicas", "1")).ok());
  EXPECT_EQ(image.DynamicTopicConfig("t", "min.insync.replicas", 1), "1");
  EXPECT_EQ(image.DynamicTopicConfig("u", "min.insync.replicas", 1), "3") << "a topic without its own";
}

// KIP-405's transitions: each copy moves STARTED -> FINISHED -> DELETE_STARTED ->
// DELETE_FINISHED (or STARTED -> DELETE_STARTED), only from the partition's leader in its
// current epoch; the image answers which finished copy holds an offset.
TEST(MetadataImage, RemoteLogSegmentsFollowTheirTransitionsFromTheCurrentLeader) {
  MetadataImage image;
  ASSERT_TRUE(image.Apply(Topic("t", Id('t'))).ok());
  ASSERT_TRUE(image.Apply(Partition(Id('t'), 0, {1, 2})).ok());  // broker 1 leads in epoch 0
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'a', kFinished, 1, 0)).ok()) << "FINISHED of no copy";
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'a', kStarted, 1, 0, 0, 99)).ok());
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'a', kStarted, 1, 0, 0, 99)).ok()) << "a duplicate segment id";
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'a', kDeleteFinished, 1, 0)).ok()) << "DELETE_FINISHED before DELETE_STARTED";
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'a', kFinished, 2, 0)).ok()) << "broker 2 does not lead";
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'x', kStarted, 1, 0, 50, 10)).ok()) << "offsets backwards";
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 1, 'x', kStarted, 1, 0, 0, 10)).ok()) << "unknown partition";
  const RemoteLogSegments* remote = image.FindRemoteSegments(Id('t'), 0);
  ASSERT_NE(remote, nullptr);
  EXPECT_EQ(remote->SegmentFor(10, 0), nullptr) << "only a finished copy is readable";
  EXPECT_FALSE(remote->LogStartOffset().has_value());
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'a', kFinished, 1, 0)).ok());
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'b', kStarted, 1, 0, 100, 149)).ok());
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'b', kFinished, 1, 0)).ok());
  remote = image.FindRemoteSegments(Id('t'), 0);
  ASSERT_NE(remote->SegmentFor(120, 0), nullptr);
  EXPECT_EQ(remote->SegmentFor(120, 0)->segment_id(), std::string(16, 'b'));
  EXPECT_EQ(remote->SegmentFor(120, -1)->segment_id(), std::string(16, 'b')) << "any epoch";
  EXPECT_EQ(remote->SegmentFor(120, 3), nullptr) << "another epoch at that offset";
  EXPECT_EQ(remote->SegmentFor(150, 0), nullptr) << "past the copies";
  EXPECT_EQ(remote->LogStartOffset(), 0);
  EXPECT_EQ(remote->HighestCopiedOffset(), 149);
  // A new leader (epoch 1): the deposed one is refused, the new one deletes.
  ASSERT_TRUE(image.Apply(ChangeLeader(Id('t'), 0, 2, {2})).ok());
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'c', kStarted, 2, 1, 150, 199)).ok());
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'c', kFinished, 1, 0)).ok()) << "a fenced leader epoch";
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'c', kFinished, 2, 0)).ok()) << "an old epoch of the new leader";
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'c', kDeleteStarted, 2, 1)).ok()) << "a copy left started goes";
  EXPECT_FALSE(image.Apply(Remote(Id('t'), 0, 'c', kFinished, 2, 1)).ok()) << "FINISHED cannot follow DELETE_STARTED";
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'a', kDeleteStarted, 2, 1)).ok());
  EXPECT_EQ(image.FindRemoteSegments(Id('t'), 0)->LogStartOffset(), 100) << "a copy being deleted is not read";
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'a', kDeleteFinished, 2, 1)).ok());
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'c', kDeleteFinished, 2, 1)).ok());
  EXPECT_EQ(image.FindRemoteSegments(Id('t'), 0)->segments().size(), 1u);
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'b', kDeleteStarted, 2, 1)).ok());
  ASSERT_TRUE(image.Apply(Remote(Id('t'), 0, 'b', kDeleteFinished, 2, 1)).ok());
  EXPECT_EQ(image.FindRemoteSegments(Id('t'), 0), nullptr) << "no copies left";
}

TEST(MetadataImage, ARemoteLogStartOffsetMovesOnlyUpAndOnlyFromTheCurrentLeader) {
  MetadataImage image;
  ASSERT_TRUE(image.Apply(Topic("t", Id('t'))).ok());
  ASSERT_TRUE(image.Apply(Partition(Id('t'), 0, {1, 2})).ok());  // broker 1 leads in epoch 0
  EXPECT_FALSE(image.Apply(RemoteStart(Id('t'), 0, 10, 2, 0)).ok()) << "broker 2 does not lead";
  EXPECT_FALSE(image.Apply(RemoteStart(Id('t'), 0, 10, 1, 1)).ok()) << "not the current epoch";
  EXPECT_FALSE(image.Apply(RemoteStart(Id('t'), 1, 10, 1, 0)).ok()) << "unknown partition";
  EXPECT_FALSE(image.Apply(RemoteStart(Id('t'), 0, -1, 1, 0)).ok()) << "a negative offset";
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->log_start_offset(), 0) << "a refused record changes nothing";
  ASSERT_TRUE(image.Apply(RemoteStart(Id('t'), 0, 40, 1, 0)).ok());
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->log_start_offset(), 40);
  ASSERT_TRUE(image.Apply(RemoteStart(Id('t'), 0, 30, 1, 0)).ok()) << "one overtaken is applied as no change";
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->log_start_offset(), 40);
  // A leader change keeps it; the new leader moves it on.
  ASSERT_TRUE(image.Apply(ChangeLeader(Id('t'), 0, 2, {2})).ok());
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->log_start_offset(), 40);
  EXPECT_FALSE(image.Apply(RemoteStart(Id('t'), 0, 60, 1, 0)).ok()) << "the deposed leader";
  ASSERT_TRUE(image.Apply(RemoteStart(Id('t'), 0, 60, 2, 1)).ok());
  EXPECT_EQ(image.FindPartition(Id('t'), 0)->log_start_offset(), 60);
}

TEST(MetadataStore, TheImageSurvivesARestartFromRocksDb) {
  testing::TempDir tmp;
  std::string dump;
  {
    auto store = OpenStore(tmp.Sub("db"));
    for (const raft::Entry& e : History()) ASSERT_TRUE(store->Apply(e).ok());
    EXPECT_EQ(store->apply_errors(), 0);
    dump = store->WithImage([](const MetadataImage& i) { return i.Dump(); });
    EXPECT_NE(dump.find("orders"), std::string::npos);
    EXPECT_EQ(dump.find("gone"), std::string::npos);
    // Two of orders-0's copies remain (one finished, one being deleted), none of "gone".
    EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.FindRemoteSegments(Id('o'), 0)->segments().size(); }),
              2u);
  }
  auto store = OpenStore(tmp.Sub("db"));
  EXPECT_EQ(store->applied().index, static_cast<raft::Index>(History().size()));
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.Dump(); }), dump);
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.finalized_features(); }),
            (std::map<std::string, int16_t>{{"pinned.version", 1}, {"transaction.version", 2}}))
      << "a finalized level survives; a level set to 0 is gone";
  EXPECT_TRUE(store->WithImage([](const MetadataImage& i) {
    return i.FeatureSetByOperator("pinned.version") && i.FeatureSetByOperator("disabled.version") &&
           !i.FeatureSetByOperator("transaction.version");
  })) << "an operator's levels survive as the operator's, level 0 too";
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.brokers().count(3); }), 0u)
      << "an unregistered broker stays gone";
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.FindPartition(Id('o'), 0)->log_start_offset(); }), 50)
      << "a remote log start survives";
  using Quotas = std::map<ClientQuotaEntity, ClientQuotaValueMap>;
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.client_quotas().quotas(); }),
            (Quotas{{{{"user", "alice"}, {"client-id", std::nullopt}}, {{"producer_byte_rate", 1048576}}},
                    {{{"client-id", "app"}}, {{"request_percentage", 12.5}}}}))
      << "client quotas survive, a removed value does not";
  // The Raft log is replayed from the start after a restart: what RocksDB holds is
  // skipped, so nothing is applied twice (ProducerIds would refuse going back).
  for (const raft::Entry& e : History()) ASSERT_TRUE(store->Apply(e).ok());
  EXPECT_EQ(store->apply_errors(), 0);
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.Dump(); }), dump);
}

TEST(MetadataStore, ASnapshotPlusTheEntriesAfterItEqualsAFullReplay) {
  testing::TempDir tmp;
  auto history = History();
  auto full = OpenStore(tmp.Sub("full"));
  for (const raft::Entry& e : history) ASSERT_TRUE(full->Apply(e).ok());

  for (size_t at : {size_t{3}, size_t{6}, history.size()}) {
    SCOPED_TRACE(at);
    auto source = OpenStore(tmp.Sub("source" + std::to_string(at)));
    for (size_t i = 0; i < at; ++i) ASSERT_TRUE(source->Apply(history[i]).ok());
    auto store = raft::SnapshotStore::Open(Ops(), tmp.Sub("snapshots" + std::to_string(at)));
    ASSERT_TRUE(store.ok());
    raft::SnapshotMeta meta = source->applied();
    auto partial = (*store)->BeginPartial(meta);
    ASSERT_TRUE(partial.ok());
    ASSERT_TRUE(source->SaveSnapshot(Ops(), partial->path).ok());
    ASSERT_TRUE((*store)->Seal(*partial).ok());
    // Changes to the source after the checkpoint leave the snapshot as it was.
    for (size_t i = at; i < history.size(); ++i) ASSERT_TRUE(source->Apply(history[i]).ok());

    auto restored = OpenStore(tmp.Sub("restored" + std::to_string(at)));
    ASSERT_TRUE(restored->RestoreSnapshot(Ops(), (*store)->PathOf(meta), meta).ok());
    EXPECT_EQ(restored->applied(), meta);
    for (size_t i = at; i < history.size(); ++i) ASSERT_TRUE(restored->Apply(history[i]).ok());
    EXPECT_EQ(restored->WithImage([](const MetadataImage& i) { return i.Dump(); }),
              full->WithImage([](const MetadataImage& i) { return i.Dump(); }));
    EXPECT_EQ(restored->applied(), full->applied());
    // The snapshot's files are intact after the restored database was written to.
    auto manifest = (*store)->ReadManifest(meta);
    ASSERT_TRUE(manifest.ok());
    for (const auto& f : manifest->files) {
      EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size((*store)->PathOf(meta) + "/" + f.name)), f.bytes) << f.name;
    }
  }
}

TEST(MetadataStore, ARecordThatDoesNotFitIsSkippedAndTheRestOfTheBatchApplied) {
  testing::TempDir tmp;
  auto store = OpenStore(tmp.Sub("db"));
  ASSERT_TRUE(store->Apply(EntryOf(1, {Partition(Id('x'), 0, {1}), Topic("kept", Id('k'))})).ok());
  EXPECT_EQ(store->apply_errors(), 1);
  EXPECT_NE(store->WithImage([](const MetadataImage& i) { return i.FindTopic("kept"); }), nullptr);
  ASSERT_TRUE(store->Apply(raft::Entry{1, 2, "not a protobuf \xff\xff"}).ok());
  EXPECT_EQ(store->apply_errors(), 2);
  EXPECT_EQ(store->applied().index, 2);
}

TEST(MetadataStore, TheQuorumsConfigurationEntriesAreAppliedWithoutTouchingTheImage) {
  testing::TempDir tmp;
  auto store = OpenStore(tmp.Sub("db"));
  ASSERT_TRUE(store->Apply(EntryOf(1, {Topic("kept", Id('k'))})).ok());
  std::string before = store->WithImage([](const MetadataImage& i) { return i.Dump(); });
  // A VotersRecord's bytes would not parse as a MetadataBatch: read as one, they would
  // count as an error.
  ASSERT_TRUE(store->Apply(raft::Entry{1, 2, "\x00\x01\x02\xff", raft::EntryType::kVoters}).ok());
  EXPECT_EQ(store->apply_errors(), 0);
  EXPECT_EQ(store->applied().index, 2);
  EXPECT_EQ(store->WithImage([](const MetadataImage& i) { return i.Dump(); }), before);
}

// A KRaftVersion record is the kraft.version feature's level in the image (features.h),
// kept through a restart; one that does not decode is an apply error, not a level.
TEST(MetadataStore, AKraftVersionRecordIsTheKraftVersionFeaturesLevel) {
  testing::TempDir tmp;
  auto level = [](MetadataStore& s) { return s.WithImage([](const MetadataImage& i) { return i.FeatureLevelOf("kraft.version"); }); };
  {
    auto store = OpenStore(tmp.Sub("db"));
    ASSERT_TRUE(store->Apply(raft::Entry{1, 1, "\x00\x00", raft::EntryType::kKraftVersion}).ok());
    EXPECT_EQ(store->apply_errors(), 1);
    EXPECT_EQ(level(*store), 0);
    ASSERT_TRUE(store->Apply(raft::Entry{1, 2, raft::EncodeKraftVersion(1), raft::EntryType::kKraftVersion}).ok());
    EXPECT_EQ(store->apply_errors(), 1);
    EXPECT_EQ(level(*store), 1);
    EXPECT_FALSE(store->WithImage([](const MetadataImage& i) { return i.FeatureSetByOperator("kraft.version"); }));
  }
  auto store = OpenStore(tmp.Sub("db"));
  EXPECT_EQ(level(*store), 1) << "the level survives a restart";
}

}  // namespace
}  // namespace strata::controller
