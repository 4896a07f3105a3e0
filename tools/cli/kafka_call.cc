#include "tools/cli/kafka_call.h"

namespace strata::cli {

namespace {

client::ClientSecurity& BrokerSecurityValue() {
  static auto* security = new client::ClientSecurity();
  return *security;
}

}  // namespace

void SetBrokerSecurity(client::ClientSecurity security) { BrokerSecurityValue() = std::move(security); }

const client::ClientSecurity& BrokerSecurity() { return BrokerSecurityValue(); }

std::map<int32_t, Endpoint> BrokerEndpoints(const admin::v1::DescribeClusterResponse& cluster,
                                            const std::string& listener) {
  std::map<int32_t, Endpoint> out;
  for (const auto& b : cluster.brokers()) {
    for (const auto& e : b.endpoints()) {
      if (e.security_protocol() != BrokerSecurity().protocol || (!listener.empty() && e.name() != listener)) continue;
      if (!out.count(b.broker_id())) out[b.broker_id()] = {e.host(), e.port()};
    }
  }
  return out;
}

std::string HostPort(const Endpoint& endpoint) { return absl::StrCat(endpoint.first, ":", endpoint.second); }

absl::StatusOr<std::unique_ptr<client::KafkaConnection>> ConnectBroker(const Endpoint& endpoint) {
  return client::KafkaConnection::Connect(endpoint.first, endpoint.second, kBrokerTimeout, BrokerSecurity());
}

}  // namespace strata::cli
