#pragma once
// BrokerSessionStreams: the brokers' session streams (proto/controller.proto
// BrokerSession) that the active controller holds, the latest one per broker, and which
// ends of them mean something. A stream counts only while it is its broker's latest: the
// end of one superseded by a newer stream, or ended by the controller itself
// (CancelAll: no longer active, or stopping), is not the broker's doing.
// Thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "controller/listener_probe.h"

namespace strata::controller {

class BrokerSessionStreams {
 public:
  struct Stream {
    int32_t broker = 0;
    int64_t broker_epoch = 0;
    // The broker's listeners that accepted a connection from here when the stream
    // opened: the ones whose refusal later means something.
    std::vector<ProbeTarget> targets;
    std::function<void()> cancel;  // ends the stream from the controller's side
  };

  // Registers the broker's latest stream; returns its token (never 0).
  uint64_t Open(Stream stream);
  // The stream of `token` ended. It is returned when it was still its broker's latest
  // (its end is then the broker's doing), and forgotten either way.
  std::optional<Stream> Ended(uint64_t token);
  // Whether the broker has a stream open now (a newer one, after an Ended).
  bool Has(int32_t broker) const;
  // Ends every stream from this side; their ends mean nothing.
  void CancelAll();
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  uint64_t next_token_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<int32_t, std::pair<uint64_t, Stream>> latest_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::controller
