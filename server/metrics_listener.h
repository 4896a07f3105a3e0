#pragma once
// The /metrics HTTP listener (metrics.listener): prometheus-cpp's Exposer, and a stop
// that does not wait for civetweb's accept poll.
//
// civetweb's master thread polls its listening sockets with a 2 s quantum and checks the
// stop flag only between polls, so destroying an Exposer took up to 2 s (1 s on average)
// at every shutdown: a third of `strata-cluster down`'s time, paid again by every node
// restart. Stop() destroys it on this thread while another connects to the listener
// every 20 ms until the destruction returns: each connection ends the poll, the master
// thread sees the stop flag and exits. A connection accepted meanwhile sends nothing; a
// worker reads its end and closes it.
// Not thread-safe: one owner (main) starts and stops it.

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace prometheus {
class Collectable;
class Exposer;
}  // namespace prometheus

namespace strata::server {

class MetricsListener {
 public:
  // Listens on address ("host:port"; port 0 picks one). An error names the address.
  static absl::StatusOr<std::unique_ptr<MetricsListener>> Start(const std::string& address);
  ~MetricsListener();  // Stop()

  // Held weakly, as prometheus-cpp does: the caller keeps it alive.
  void Register(const std::shared_ptr<prometheus::Collectable>& collectable);
  std::vector<int> ports() const;
  // Stops serving: after it returns no collectable is called again. Idempotent.
  void Stop();

 private:
  MetricsListener(std::string host, std::unique_ptr<prometheus::Exposer> exposer);

  const std::string host_;  // where Stop() connects: the listener's host, loopback for a wildcard
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace strata::server
