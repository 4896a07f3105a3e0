#include "tools/perf/run_loop.h"

namespace strata::tools::perf {

std::optional<BrokerConnection> ConnectLeader(const TopicMetadata& metadata, int32_t leader,
                                              std::chrono::milliseconds timeout,
                                              const std::function<bool(const ApiVersionSet&)>& serves,
                                              absl::string_view needs, std::ostream& err) {
  const BrokerAddress& address = metadata.brokers.at(leader);
  auto broker = ConnectBroker(address.host, address.port, timeout, metadata.security);
  if (!broker.ok()) {
    err << "strata-perf: broker " << leader << ": " << broker.status().message() << "\n";
    return std::nullopt;
  }
  if (!serves(broker->versions)) {
    err << "strata-perf: broker " << leader << " does not serve " << needs << "\n";
    return std::nullopt;
  }
  return std::move(*broker);
}

}  // namespace strata::tools::perf
