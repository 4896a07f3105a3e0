#include "tools/cli/kafka_call.h"

namespace strata::cli {

std::map<int32_t, Endpoint> BrokerEndpoints(const admin::v1::DescribeClusterResponse& cluster,
                                            const std::string& listener) {
  std::map<int32_t, Endpoint> out;
  for (const auto& b : cluster.brokers()) {
    for (const auto& e : b.endpoints()) {
      if (e.security_protocol() != "PLAINTEXT" || (!listener.empty() && e.name() != listener)) continue;
      if (!out.count(b.broker_id())) out[b.broker_id()] = {e.host(), e.port()};
    }
  }
  return out;
}

std::string HostPort(const Endpoint& endpoint) { return absl::StrCat(endpoint.first, ":", endpoint.second); }

absl::StatusOr<std::unique_ptr<client::KafkaConnection>> ConnectBroker(const Endpoint& endpoint) {
  return client::KafkaConnection::Connect(endpoint.first, endpoint.second, kBrokerTimeout);
}

}  // namespace strata::cli
