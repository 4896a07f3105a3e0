#pragma once
// DeleteRecords (v0-v2; kafka-delete-records.sh, AdminClient.deleteRecords): moves the
// log start offset of partitions this broker leads, as Kafka's ReplicaManager does.
//  * Each partition needs Delete on its topic (TOPIC_AUTHORIZATION_FAILED); an unknown
//    one is UNKNOWN_TOPIC_OR_PARTITION, one led elsewhere NOT_LEADER_OR_FOLLOWER.
//  * The leader moves its log start to the offset (-1: the high watermark) at once,
//    deleting the whole segments below it: OFFSET_OUT_OF_RANGE above the high watermark
//    (nothing moves), POLICY_VIOLATION when cleanup.policy lacks delete.
//  * With remote storage the remote tier's log start moves too, through the controller
//    (ReplicaManager::MoveRemoteLogStart, on this thread, bounded as forwarded admin
//    requests are: REQUEST_TIMED_OUT when no controller answers); the remote copies that
//    end below it are then deleted by the remote log manager.
//  * The answer waits (the delete-records purgatory) until the low watermark — the
//    smallest log start among the leader and the replicas on live brokers, as the
//    followers report it in their fetches — reaches the offset, and names it; past
//    timeout_ms a partition still waiting is REQUEST_TIMED_OUT (its leader moved
//    already; the followers follow at their next fetch). A leadership lost while
//    waiting is NOT_LEADER_OR_FOLLOWER.
// Thread-safe.

#include "broker/handlers/request_context.h"
#include "proto/kafka/delete_records.h"

namespace strata::broker {

void HandleDeleteRecords(const ApiRequest& request, ApiResponder respond);

}  // namespace strata::broker
