#pragma once
// AlterReplicaLogDirs (v0-v2; kafka-reassign-partitions.sh with log dirs in its plan,
// AdminClient.alterReplicaLogDirs): moves replicas of this broker to other dirs of its
// log.dirs, as Kafka's KafkaApis.handleAlterReplicaLogDirsRequest answers.
//  * Needs Alter on the cluster: else every partition of the request is
//    CLUSTER_AUTHORIZATION_FAILED and nothing moves.
//  * Each partition goes to the dir named for it; a partition named under two dirs goes
//    to the last one (Kafka keeps the last of its map). ReplicaManager::AlterReplicaLogDirs
//    starts the moves (a future log filled while the replica keeps serving, then put in
//    the current log's place) and answers at once; the handler does not wait for a copy.
//    kafka-reassign-partitions.sh --verify and describeReplicaLogDirs show the progress
//    (DescribeLogDirs: the future replica).
//  * Per partition: NONE once its move is under way or when it is in that dir already;
//    LOG_DIR_NOT_FOUND for a path not in log.dirs; KAFKA_STORAGE_ERROR when a log dir
//    involved is offline; REPLICA_NOT_AVAILABLE when this broker does not host the
//    replica yet (it is created in that dir when it comes); INVALID_TOPIC_EXCEPTION for a
//    name too long for the future log's directory.
//  * The answer names every partition of the request once, grouped by topic.
// Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/alter_replica_log_dirs.h"

namespace strata::broker {

void HandleAlterReplicaLogDirs(const ApiRequest& request, ApiResponder respond);

// The answer of these replicas to an authorized request (the handler's, without the
// authorization).
proto::kafka::AlterReplicaLogDirsResponse AlterReplicaLogDirs(ReplicaManager& replicas,
                                                              const proto::kafka::AlterReplicaLogDirsRequest& request);

}  // namespace strata::broker
