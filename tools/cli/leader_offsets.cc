#include "tools/cli/leader_offsets.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "client/kafka_connection.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/list_offsets.h"

namespace strata::cli {

namespace kafka = proto::kafka;

std::map<int32_t, std::pair<std::string, int32_t>> PlaintextEndpoints(const admin::v1::DescribeClusterResponse& cluster) {
  std::map<int32_t, std::pair<std::string, int32_t>> out;
  for (const auto& b : cluster.brokers()) {
    for (const auto& e : b.endpoints()) {
      if (e.security_protocol() == "PLAINTEXT" && !out.count(b.broker_id())) out[b.broker_id()] = {e.host(), e.port()};
    }
  }
  return out;
}

absl::StatusOr<int64_t> LeaderListOffset(const std::pair<std::string, int32_t>& endpoint, const std::string& topic,
                                         int32_t partition, int64_t timestamp) {
  constexpr int16_t kVersion = 9;  // LATEST_TIERED
  auto connection = client::KafkaConnection::Connect(endpoint.first, endpoint.second, std::chrono::seconds(10));
  if (!connection.ok()) return connection.status();
  kafka::ListOffsetsRequest request;
  request.topics.push_back({topic, {{partition, -1, timestamp}}});
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteListOffsetsRequest(request, kVersion, w);
  auto answer = (*connection)->Call(static_cast<int16_t>(kafka::ApiKey::kListOffsets), kVersion, body);
  if (!answer.ok()) return answer.status();
  kafka::Reader r(answer->body());
  auto response = kafka::ReadListOffsetsResponse(r, kVersion);
  if (!response.ok()) return response.status();
  if (response->topics.empty() || response->topics[0].partitions.empty()) {
    return absl::InternalError("ListOffsets answered no partition");
  }
  const auto& p = response->topics[0].partitions[0];
  if (p.error_code != 0) {
    return absl::UnavailableError(
        absl::StrCat("ListOffsets: ", kafka::ErrorName(static_cast<kafka::ErrorCode>(p.error_code))));
  }
  return p.offset;
}

}  // namespace strata::cli
