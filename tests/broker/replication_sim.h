#pragma once
// A deterministic simulation of one partition's replication, driven by a seed, in the
// manner of the Raft core's (tests/raft/sim.h). What is real and what is simulated:
//
//  * Real: each broker's Partition (broker/replication/partition.h: leader and follower
//    state, the high watermark, the ISR rules, the diverging-epoch answer, truncation)
//    over a real storage::Log (segments, the leader-epoch cache, producer state) in files
//    behind a FaultInjectingFileOps per broker, so that a power loss drops or tears what
//    that broker had not synced; and the controller's decisions: a real MetadataImage
//    changed only by the records of controller/cluster_control.h's plans (fencing,
//    unfencing, registration, controlled shutdown, preferred elections, AlterPartition).
//  * Simulated, mirroring the code named: the network (every message may be dropped,
//    delayed, duplicated and so reordered); the metadata reaching each broker in order
//    but late (and stalled for a while); a follower's fetch loop
//    (replication/replica_fetcher.cc: HandlePartitionAnswer, HandleOutOfRange); the
//    leader's answer to a replica's fetch (handlers/fetch_handler.cc); a produce and its
//    wait for the ISR (handlers/produce_handler.cc, DelayedProduce); the ISR changes a
//    leader asks for (ReplicaManager::SendIsrChanges, RunIsrChanges); acks=all
//    idempotent producers (one request in flight, retried across leader changes, the
//    epoch bumped as KIP-360 clients do when a batch's outcome is unknown); consumers
//    reading from the leader up to the high watermark.
//
// Time is a step of 10 ms. After every step the checker asserts:
//   - no acknowledged record (nor one a consumer read) is lost or changed: the leader
//     holds each at its offset;
//   - the committed prefix (below the leader's high watermark) is equal on every
//     in-sync replica;
//   - the high watermark never goes back within a leader epoch;
//   - no consumer read at or above the high watermark it was answered with;
//   - no batch of one producer epoch is stored twice in any log;
//   - with unclean election off, no replica outside the ISR becomes leader.
// A power loss is only made while another in-sync replica is up, and until the broker
// that lost power is fenced no other broker crashes or shuts down: Kafka keeps
// acknowledged records on the ISR's page caches, not on disk, and a second failure
// before the controller learns of the first can leave the ISR with only the replica
// that lost them (the "last replica standing" of KIP-966, which Strata does not solve
// either; seeds 345 and 450 made it before this rule). A process crash (the page cache
// kept) may otherwise hit any broker.
// Not thread-safe; deterministic for a seed (no threads, no wall clock).

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "broker/replication/partition.h"
#include "controller/cluster_control.h"
#include "controller/metadata_image.h"
#include "storage/fault_injecting_file_ops.h"
#include "storage/log.h"

namespace strata::broker::sim {

struct Faults {
  double drop = 0;       // each message
  double duplicate = 0;  // each message delivered twice
  int max_delay = 0;     // steps a message may wait beyond the next step
};

// What a seed runs with, chosen from the seed.
struct Setup {
  int32_t min_insync_replicas = 2;
  Faults faults;
  double produce = 0.3;       // chance per step that an idle producer sends
  double crash = 0.004;       // per step
  double power_loss = 0.5;    // of crashes, when allowed
  double restart = 0.03;      // per step, a fenced broker
  double shutdown = 0.003;    // controlled shutdown of an up broker
  double elect = 0.01;        // preferred election
  double stall = 0.004;       // a broker's metadata held back for a while
  double flush = 0.05;        // a broker flushes its log
};

struct Message;
struct Broker;
struct Producer;

class ReplicationSim {
 public:
  ReplicationSim(uint64_t seed, const std::string& dir);
  ~ReplicationSim();
  ReplicationSim(const ReplicationSim&) = delete;
  ReplicationSim& operator=(const ReplicationSim&) = delete;

  const Setup& setup() const { return setup_; }
  // One step: messages due are delivered, the controller, the brokers, the producers
  // and the consumer act (faults chosen from the seed while faults are on), then the
  // checker runs. Returns false once an invariant failed (violation() says which).
  bool Step();
  // Healing: no more faults; every broker is brought back.
  void Heal();
  // After healing: every broker up, unfenced and in the ISR, every log equal, every
  // produced batch answered.
  bool Settled(std::string* why) const;

  int64_t now() const { return step_; }
  const std::string& violation() const { return violation_; }
  // What happened, one line per event: printed with a violation.
  const std::string& trace() const { return trace_; }
  int64_t acknowledged() const { return acked_records_; }
  int64_t leader_changes() const { return leader_changes_; }
  int64_t truncations() const { return truncations_; }
  int64_t power_losses() const { return power_losses_; }
  int64_t epoch_bumps() const { return epoch_bumps_; }

 private:
  // Whether a broker lost power and the controller has not fenced it yet.
  bool PowerLossPending() const;

  // The controller.
  void ApplyPlan(const controller::Plan& plan, const std::string& why);
  PartitionState ControllerState() const;
  std::set<int32_t> Fenced() const;
  std::map<int32_t, int64_t> BrokerEpochs() const;
  void ControllerStep();
  void HandleAlterPartition(const Message& m);

  // Brokers.
  Broker& broker(int32_t id);
  void Start(Broker& b);
  void Crash(Broker& b, bool power_loss);
  void DeliverMetadata(Broker& b);
  void BrokerStep(Broker& b);
  void FollowerFetch(Broker& b);
  void HandleFetch(Broker& leader, const Message& m);
  void HandleFetchResponse(Broker& b, const Message& m);
  void HandleProduce(Broker& b, const Message& m);
  void CompleteProduces(Broker& b);
  void SendIsrChange(Broker& b, std::vector<int32_t> isr, bool pending);
  void HandleAlterPartitionResponse(Broker& b, const Message& m);

  // Clients.
  void ProducerStep(Producer& p);
  void HandleProduceResponse(Producer& p, const Message& m);
  void ConsumerStep();

  // The network.
  void Send(Message m);
  void Deliver();

  // The checker.
  void Check();
  void Fail(const std::string& what);
  void Trace(const std::string& line);
  // The leader that has applied the newest metadata, or null.
  Broker* SettledLeader();

  std::mt19937_64 rng_;
  bool Chance(double p);
  int Uniform(int lo, int hi);  // inclusive

  const std::string dir_;
  const bool verbose_;  // STRATA_SIM_VERBOSE: every fetch answer in the trace
  Setup setup_;
  bool faults_on_ = true;
  int64_t step_ = 0;
  std::string violation_;
  std::string trace_;

  controller::MetadataImage image_;
  controller::ControllerConfig config_;
  std::string topic_id_;
  // The metadata log as the brokers see it: the partition and the fenced brokers after
  // each entry.
  struct Entry {
    PartitionState state;
    std::set<int32_t> fenced;
    std::map<int32_t, int64_t> broker_epochs;  // registrations
  };
  std::vector<Entry> history_;
  int64_t next_broker_epoch_ = 100;

  std::vector<std::unique_ptr<Broker>> brokers_;
  std::vector<std::unique_ptr<Producer>> producers_;
  std::vector<Message> network_;

  // The consumer.
  int64_t consumer_position_ = 0;
  // What must never be lost or changed: acknowledged records and records a consumer
  // read, offset -> value.
  std::map<int64_t, std::string> committed_;
  // The highest high watermark a leader answered with, per leader epoch.
  std::map<int32_t, int64_t> high_watermarks_;

  int64_t acked_records_ = 0;
  int64_t leader_changes_ = 0;
  int64_t truncations_ = 0;
  int64_t power_losses_ = 0;
  int64_t epoch_bumps_ = 0;
};

}  // namespace strata::broker::sim
