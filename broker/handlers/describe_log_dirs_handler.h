#pragma once
// DescribeLogDirs (v0-v5; kafka-log-dirs.sh, AdminClient.describeLogDirs and
// describeReplicaLogDirs): this broker's log.dirs and the partitions in each, as Kafka's
// ReplicaManager.describeLogDirs answers.
//  * Needs Describe on the cluster: else CLUSTER_AUTHORIZATION_FAILED at the top (v3+;
//    older versions answer no dirs).
//  * Every dir of log.dirs, by its absolute path: an offline one KAFKA_STORAGE_ERROR with
//    no partitions and no sizes; an online one its partitions (those the request names,
//    or all for null: a named partition not here is left out), each with its size in
//    bytes (its local segments) and its offset lag: a current replica
//    max(high watermark - log end, 0), 0 in practice; a future replica (is_future_key,
//    a replica moving to this dir: AlterReplicaLogDirs) how far its copy is behind the
//    current log's end. v4+ the volume's total and usable bytes (statvfs: what an
//    unprivileged writer may still use); v5 is_cordoned false (Strata cordons no dir).
// Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/describe_log_dirs.h"
#include "storage/log_manager.h"

namespace strata::broker {

void HandleDescribeLogDirs(const ApiRequest& request, ApiResponder respond);

// The answer for these logs (the handler's, without the authorization).
proto::kafka::DescribeLogDirsResponse DescribeLogDirs(const storage::LogManager& logs,
                                                      const proto::kafka::DescribeLogDirsRequest& request);

}  // namespace strata::broker
