#include "broker/handlers/describe_log_dirs_handler.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <map>
#include <set>

#include "broker/handlers/authorization.h"
#include "broker/replication/replica_manager.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace kafka = proto::kafka;

kafka::DescribeLogDirsResponse DescribeLogDirs(const storage::LogManager& logs,
                                               const kafka::DescribeLogDirsRequest& request) {
  std::optional<std::set<storage::TopicPartition>> wanted;
  if (request.topics) {
    wanted.emplace();
    for (const auto& t : *request.topics) {
      for (int32_t p : t.partitions) wanted->insert({t.topic, p});
    }
  }
  const std::vector<std::string> online = logs.online_dirs();
  auto is_online = [&](const std::string& dir) { return std::find(online.begin(), online.end(), dir) != online.end(); };
  // By dir, then topic: the partitions to describe (none of an offline dir: its logs are
  // closed).
  std::map<std::string, std::map<std::string, std::vector<kafka::DescribeLogDirsResponse::Partition>>> by_dir;
  for (const storage::LogManager::LogSummary& log : logs.Summaries()) {
    if (wanted && !wanted->count(log.tp)) continue;
    if (!is_online(log.dir)) continue;  // went offline since
    kafka::DescribeLogDirsResponse::Partition p;
    p.partition_index = log.tp.partition;
    p.partition_size = log.size_in_bytes;
    // Kafka's: a future replica's lag behind the current one, else the current one's
    // behind its high watermark (0 but in an unclean state).
    p.offset_lag = log.is_future ? std::max<int64_t>(log.current_log_end_offset - log.log_end_offset, 0)
                                 : std::max<int64_t>(log.high_watermark - log.log_end_offset, 0);
    p.is_future_key = log.is_future;
    by_dir[log.dir][log.tp.topic].push_back(p);
  }
  kafka::DescribeLogDirsResponse response;
  for (const std::string& dir : logs.log_dirs()) {
    kafka::DescribeLogDirsResponse::Result& result = response.results.emplace_back();
    result.log_dir = storage::AbsolutePath(dir);
    if (!is_online(dir)) {
      result.error_code = static_cast<int16_t>(kafka::ErrorCode::kKafkaStorageError);
      continue;
    }
    for (auto& [topic, partitions] : by_dir[dir]) result.topics.push_back({topic, std::move(partitions)});
    struct statvfs volume;
    if (statvfs(dir.c_str(), &volume) == 0) {
      result.total_bytes = static_cast<int64_t>(volume.f_blocks) * static_cast<int64_t>(volume.f_frsize);
      result.usable_bytes = static_cast<int64_t>(volume.f_bavail) * static_cast<int64_t>(volume.f_frsize);
    }
  }
  return response;
}

void HandleDescribeLogDirs(const ApiRequest& request, ApiResponder respond) {
  AnswerAtOnce(
      request, respond,
      [](kafka::Reader& reader, int16_t version) { return kafka::ReadDescribeLogDirsRequest(reader, version); },
      [&](const kafka::DescribeLogDirsRequest& r) {
        if (!AuthorizedOnCluster(request, security::AclOperation::kDescribe)) {
          kafka::DescribeLogDirsResponse refused;
          refused.error_code = static_cast<int16_t>(kafka::ErrorCode::kClusterAuthorizationFailed);
          return refused;
        }
        return DescribeLogDirs(request.broker.replicas.logs(), r);
      },
      [](const auto& response, int16_t version, kafka::Writer& writer) {
        kafka::WriteDescribeLogDirsResponse(response, version, writer);
      });
}

}  // namespace strata::broker
