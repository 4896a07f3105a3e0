#include "broker/replication/metadata_delta.h"

namespace strata::broker {

namespace pb = metadata::v1;

MetadataDelta MetadataDelta::Full() {
  MetadataDelta delta;
  delta.full = true;
  return delta;
}

MetadataDelta MetadataDelta::FromBatch(const pb::MetadataBatch& batch) {
  if (batch.records_size() == 0) return Full();  // a restored snapshot
  MetadataDelta delta;
  using R = pb::MetadataRecord;
  for (const pb::MetadataRecord& record : batch.records()) {
    switch (record.record_case()) {
      case R::kTopic:
        delta.changed_topics[record.topic().topic_id()].all_partitions = true;
        break;
      case R::kRemoveTopic:
        delta.deleted_topic_ids.insert(record.remove_topic().topic_id());
        break;
      case R::kPartition:
        delta.changed_topics[record.partition().topic_id()].partitions.insert(record.partition().partition_id());
        break;
      case R::kPartitionChange:
        delta.changed_topics[record.partition_change().topic_id()].partitions.insert(
            record.partition_change().partition_id());
        break;
      case R::kRemoteLogSegment:
        delta.changed_topics[record.remote_log_segment().topic_id()].partitions.insert(
            record.remote_log_segment().partition_id());
        break;
      case R::kRemoteLogStartOffset:
        delta.changed_topics[record.remote_log_start_offset().topic_id()].partitions.insert(
            record.remote_log_start_offset().partition_id());
        break;
      case R::kConfig:
        if (record.config().resource_type() == pb::Config::TOPIC) {
          delta.changed_topic_configs.insert(record.config().resource_name());
        } else {
          return Full();  // broker-level or cluster-wide
        }
        break;
      case R::kProducerIds:
      case R::kUserScramCredential:
      case R::kRemoveUserScramCredential:
      case R::kAccessControlEntry:
      case R::kRemoveAccessControlEntry:
      case R::kClientQuota:
      case R::kFeatureLevel:
        // No partition depends on it (the authorizer and the quota manager follow
        // versions; ApiVersions reads finalized levels from the image).
        break;
      case R::kRegisterBroker:
      case R::kUnregisterBroker:
      case R::kFenceBroker:
      case R::kUnfenceBroker:
      case R::kBrokerRegistrationChange:
      case R::RECORD_NOT_SET:  // also a record of a newer version this broker cannot read
        return Full();
    }
  }
  return delta;
}

}  // namespace strata::broker
