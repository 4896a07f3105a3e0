#include "controller/broker_session_streams.h"

namespace strata::controller {

uint64_t BrokerSessionStreams::Open(Stream stream) {
  absl::MutexLock lock(&mu_);
  uint64_t token = next_token_++;
  int32_t broker = stream.broker;
  latest_[broker] = {token, std::move(stream)};  // an older stream of the broker is superseded
  return token;
}

std::optional<BrokerSessionStreams::Stream> BrokerSessionStreams::Ended(uint64_t token) {
  absl::MutexLock lock(&mu_);
  for (auto it = latest_.begin(); it != latest_.end(); ++it) {
    if (it->second.first != token) continue;
    Stream s = std::move(it->second.second);
    latest_.erase(it);
    return s;
  }
  return std::nullopt;
}

bool BrokerSessionStreams::Has(int32_t broker) const {
  absl::MutexLock lock(&mu_);
  return latest_.count(broker) > 0;
}

void BrokerSessionStreams::CancelAll() {
  std::map<int32_t, std::pair<uint64_t, Stream>> ended;
  {
    absl::MutexLock lock(&mu_);
    ended.swap(latest_);
  }
  for (auto& [broker, entry] : ended) {
    if (entry.second.cancel) entry.second.cancel();
  }
}

size_t BrokerSessionStreams::size() const {
  absl::MutexLock lock(&mu_);
  return latest_.size();
}

}  // namespace strata::controller
