#pragma once
// BrokerLifecycle: a broker's standing with the active controller. It registers (a new
// incarnation id per process start, its listeners, rack and log dir ids), then
// heartbeats every broker.heartbeat.interval.ms with the last metadata entry it applied;
// the controller unfences it once that reaches its registration. A heartbeat answered
// STALE_BROKER_EPOCH or BROKER_ID_NOT_REGISTERED (the controller forgot it or fenced a
// previous incarnation) registers again. A failed log dir is reported at once, not at
// the next interval. Shutdown() is Kafka's controlled shutdown: heartbeats asking to
// shut down until the controller has moved every leadership away (or a timeout).
// Once the broker serves (StartSessionStream), it also holds a session stream to the
// active controller for its registration (ControllerSessionStream), so that its death
// is seen at once rather than a session timeout later.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"
#include "broker/lifecycle/controller_session_stream.h"
#include "metadata.pb.h"

namespace strata::broker {

struct BrokerLifecycleOptions {
  int32_t broker_id = 0;
  std::string cluster_id;
  std::vector<metadata::v1::BrokerEndpoint> listeners;
  std::string rack;
  std::vector<std::string> log_dir_ids;  // 16-byte directory ids
  std::chrono::milliseconds heartbeat_interval{2000};
  // The last metadata entry this broker applied.
  std::function<int64_t()> metadata_offset;
  // Partitions whose state this broker cannot yet build from the remote tier (null: none).
  std::function<std::vector<std::string>()> tier_state_failing;
};

struct BrokerLifecycleStatus {
  int64_t broker_epoch = -1;  // -1: not registered
  bool fenced = true;
  bool caught_up = false;
  int64_t heartbeats = 0;
  std::string last_error;
};

class BrokerLifecycle {
 public:
  BrokerLifecycle(ControllerClient& client, BrokerLifecycleOptions options);
  ~BrokerLifecycle();  // stops heartbeating (without controlled shutdown)

  BrokerLifecycleStatus status() const;
  // How long ago the controller last accepted a registration or heartbeat (since the
  // start when none was yet).
  std::chrono::milliseconds SinceAccepted() const;
  // New at every process start; the registration record in the image carries it.
  const std::string& incarnation_id() const { return incarnation_id_; }
  // Reports a log dir that failed; sent with the next heartbeat, which goes at once.
  void ReportOfflineDir(const std::string& dir_id);
  // Waits until a heartbeat naming every dir reported offline so far was accepted (the
  // controller then moves their leaderships); false at the timeout.
  bool WaitOfflineDirsReported(std::chrono::milliseconds timeout);
  // Controlled shutdown; true when the controller confirmed leadership moved away. The
  // session stream is closed afterwards.
  bool Shutdown(std::chrono::milliseconds timeout);
  // Opens the session stream, for the current registration and each one after it. Called
  // once the broker's listeners accept connections: the controller checks them then.
  void StartSessionStream();
  // The session stream, once started (null before).
  const ControllerSessionStream* session_stream() const;

 private:
  void Run();
  bool Register();
  bool Heartbeat(bool want_shut_down, bool* should_shut_down);
  void CloseSessionStream();

  ControllerClient& client_;
  const BrokerLifecycleOptions options_;
  const std::string incarnation_id_;
  mutable absl::Mutex mu_;
  absl::CondVar wake_;  // cuts the pacing between shutdown heartbeats short
  BrokerLifecycleStatus status_ ABSL_GUARDED_BY(mu_);
  // steady_clock ticks of the last accepted registration or heartbeat; atomic, as every
  // produce reads it (ReplicaManager::Stranded).
  std::atomic<std::chrono::steady_clock::rep> last_accepted_{std::chrono::steady_clock::now().time_since_epoch().count()};
  std::set<std::string> offline_dirs_ ABSL_GUARDED_BY(mu_);
  size_t offline_dirs_accepted_ ABSL_GUARDED_BY(mu_) = 0;  // named by the last accepted heartbeat
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool heartbeat_now_ ABSL_GUARDED_BY(mu_) = false;
  std::unique_ptr<ControllerSessionStream> session_stream_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace strata::broker
