#pragma once
// Metadata records for tests that build an image by hand: a registered broker, a topic,
// a partition. Fill in what a test needs beyond these through the returned message.

#include <cstdint>
#include <string>
#include <vector>

#include "metadata.pb.h"

namespace strata::testing {

// Broker `id`, registered in `epoch`, unfenced, incarnation id 16 x ('a' + id), with
// these log dir ids.
inline metadata::v1::MetadataRecord RegisterBrokerRecord(int32_t id, int64_t epoch = 1,
                                                         const std::vector<std::string>& log_dirs = {}) {
  metadata::v1::MetadataRecord record;
  auto* r = record.mutable_register_broker();
  r->set_broker_id(id);
  r->set_broker_epoch(epoch);
  r->set_incarnation_id(std::string(16, static_cast<char>('a' + id)));
  for (const std::string& dir : log_dirs) r->add_log_dirs(dir);
  return record;
}

inline metadata::v1::MetadataRecord FenceBrokerRecord(int32_t id, int64_t epoch = 1) {
  metadata::v1::MetadataRecord record;
  record.mutable_fence_broker()->set_broker_id(id);
  record.mutable_fence_broker()->set_broker_epoch(epoch);
  return record;
}

inline metadata::v1::MetadataRecord TopicRecord(const std::string& name, const std::string& topic_id) {
  metadata::v1::MetadataRecord record;
  record.mutable_topic()->set_name(name);
  record.mutable_topic()->set_topic_id(topic_id);
  return record;
}

inline metadata::v1::MetadataRecord PartitionRecord(const std::string& topic_id, int32_t index,
                                                    const std::vector<int32_t>& replicas,
                                                    const std::vector<int32_t>& isr, int32_t leader) {
  metadata::v1::MetadataRecord record;
  auto* p = record.mutable_partition();
  p->set_topic_id(topic_id);
  p->set_partition_id(index);
  for (int32_t r : replicas) p->add_replicas(r);
  for (int32_t r : isr) p->add_isr(r);
  p->set_leader(leader);
  return record;
}

// A PartitionChange naming a new leader (the ISR and replicas as they were).
inline metadata::v1::MetadataRecord LeaderChangeRecord(const std::string& topic_id, int32_t index, int32_t leader) {
  metadata::v1::MetadataRecord record;
  auto* c = record.mutable_partition_change();
  c->set_topic_id(topic_id);
  c->set_partition_id(index);
  c->set_leader(leader);
  return record;
}

}  // namespace strata::testing
