#include "broker/handlers/replica_selector.h"

#include <algorithm>

namespace strata::broker {

int32_t PreferredReadReplica(const KafkaApisContext& context, const PartitionState& state,
                             const std::string& client_rack) {
  if (client_rack.empty()) return -1;
  return context.store.WithImage([&](const controller::MetadataImage& image) -> int32_t {
    auto rack_of = [&](int32_t id) -> const std::string* {
      auto it = image.brokers().find(id);
      if (it == image.brokers().end() || it->second.fenced()) return nullptr;
      return &it->second.registration().rack();
    };
    const std::string* leader_rack = rack_of(state.leader);
    if (leader_rack != nullptr && *leader_rack == client_rack) return -1;
    for (int32_t replica : state.replicas) {
      if (replica == state.leader) continue;
      if (std::find(state.isr.begin(), state.isr.end(), replica) == state.isr.end()) continue;
      const std::string* rack = rack_of(replica);
      if (rack != nullptr && *rack == client_rack) return replica;
    }
    return -1;
  });
}

}  // namespace strata::broker
