#include "broker/handlers/alter_replica_log_dirs_handler.h"

#include <map>
#include <string>

#include "broker/common/kafka_error.h"
#include "broker/handlers/authorization.h"
#include "broker/replication/replica_manager.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = proto::kafka;

namespace {

// Each partition of the request with its destination dir. A partition named under two
// dirs goes to the last one: Kafka's AlterReplicaLogDirsRequest.partitionDirs puts every
// (partition, dir) into one map in the request's order, so the last put wins.
std::map<storage::TopicPartition, std::string> DestinationDirs(const kafka::AlterReplicaLogDirsRequest& request) {
  std::map<storage::TopicPartition, std::string> dirs;
  for (const auto& dir : request.dirs) {
    for (const auto& topic : dir.topics) {
      for (int32_t partition : topic.partitions) dirs[{topic.name, partition}] = dir.path;
    }
  }
  return dirs;
}

// One result per topic, each partition once (the map's order: by topic, then partition),
// with the error code error_of gives it.
template <typename ErrorOf>
kafka::AlterReplicaLogDirsResponse ByTopic(const std::map<storage::TopicPartition, std::string>& dirs,
                                           ErrorOf error_of) {
  kafka::AlterReplicaLogDirsResponse response;
  for (const auto& [tp, dir] : dirs) {
    if (response.results.empty() || response.results.back().topic_name != tp.topic) {
      response.results.push_back({tp.topic, {}});
    }
    response.results.back().partitions.push_back({tp.partition, error_of(tp)});
  }
  return response;
}

}  // namespace

kafka::AlterReplicaLogDirsResponse AlterReplicaLogDirs(ReplicaManager& replicas,
                                                       const kafka::AlterReplicaLogDirsRequest& request) {
  const std::map<storage::TopicPartition, std::string> dirs = DestinationDirs(request);
  if (dirs.empty()) return {};
  // Starts the moves and answers at once (log_dir_mover.h copies in the background).
  const std::map<storage::TopicPartition, absl::Status> moved = replicas.AlterReplicaLogDirs(dirs);
  return ByTopic(dirs, [&](const storage::TopicPartition& tp) -> int16_t {
    auto it = moved.find(tp);
    // ReplicaManager answers every partition it is given; one left out would be its bug,
    // not the client's, and still gets an answer.
    if (it == moved.end()) return static_cast<int16_t>(kafka::ErrorCode::kUnknownServerError);
    return KafkaErrorOf(it->second);
  });
}

void HandleAlterReplicaLogDirs(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t version) { return kafka::ReadAlterReplicaLogDirsRequest(reader, version); },
      [&](const kafka::AlterReplicaLogDirsRequest& r) {
        if (!AuthorizedOnCluster(request, security::AclOperation::kAlter)) {
          // Every partition refused, answered in the same shape as an allowed request
          // (Kafka's refusal repeats a topic per dir that names it; a client reads both).
          return ByTopic(DestinationDirs(r), [](const storage::TopicPartition&) {
            return static_cast<int16_t>(kafka::ErrorCode::kClusterAuthorizationFailed);
          });
        }
        return AlterReplicaLogDirs(request.broker.replicas, r);
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) {
        kafka::WriteAlterReplicaLogDirsResponse(response, version, writer);
      });
}

}  // namespace strata::broker
