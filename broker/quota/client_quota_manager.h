#pragma once
// ClientQuotaManager: Kafka's client byte-rate quotas on a broker (ClientQuotaManager,
// KIP-13, KIP-55, KIP-219). The bytes a client produces (its produce requests) and
// fetches (its fetch responses; followers are never counted) are measured per quota
// entity (common/sampled_rate.h: 11 windows of a second) against producer_byte_rate /
// consumer_byte_rate of the entity that applies to the client, the first set of
// (Kafka's precedence):
//   user=U, client-id=C;   user=U, client-id=<default>;   user=U;
//   user=<default>, client-id=C;   user=<default>, client-id=<default>;   user=<default>;
//   client-id=C;   client-id=<default>.
// What shares one measure is the entity matched, with a default standing for each name
// on its own: a quota set on user=U is shared by all of U's client ids, one set on
// client-id=<default> is every client id's own (Kafka's metric tags: user "U" or "" and
// client-id "C" or ""). A client over its quota is answered with throttle_time_ms: how
// long until its rate is back to the quota (Kafka's QuotaUtils.throttleTime), for which
// the listener also reads nothing more from its connection (KIP-219).
// Unlike Kafka, the bytes are also measured over the last 3 windows (a span of at least
// 2), and the longer of the two throttle times applies: with Kafka's 11 windows alone, a
// client that sends in bursts (a producer at many times its quota) gets a whole span's
// worth at once each time an old window leaves the measure, and runs up to a tenth above
// its quota over a minute depending on where the minute falls (quota/README.md). Clients without a
// quota are neither measured nor throttled, and cost one atomic load while no quota is
// set at all. User U is the principal's name (User:U; ANONYMOUS on a listener without
// authentication).
// Thread-safe. Lock order: Update may run under the metadata image's lock; nothing here
// takes it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/common/sampled_rate.h"
#include "controller/client_quotas_image.h"

namespace strata::broker {

// What a quota measures: bytes produced (producer_byte_rate), bytes fetched
// (consumer_byte_rate), or request-handler time in percent of one thread
// (request_percentage: 100 is one thread's whole time; Kafka's request quota).
enum class QuotaKind { kProduce, kFetch, kRequest };

struct QuotaClient {
  std::string user;  // the principal's name, without "User:"
  std::string client_id;
};

class ClientQuotaManager {
 public:
  using Clock = std::chrono::steady_clock;
  ClientQuotaManager() : ClientQuotaManager(SampledRate::Options{}) {}
  explicit ClientQuotaManager(SampledRate::Options options) : options_(options) {}

  // The quotas as the image has them (at each metadata apply; nothing changes while its
  // quotas' version stays). An entity's measure keeps its bytes when its quota changes,
  // and stays (in Stats, with its last quota) when the quota is removed.
  void Update(const controller::ClientQuotasImage& image);

  // Whether any quota is set: callers skip naming their client otherwise.
  bool active() const { return any_.load(std::memory_order_relaxed); }
  // Whether a request_percentage quota is set anywhere: requests are timed only then.
  bool requests_active() const { return any_request_.load(std::memory_order_relaxed); }
  // Counts amount (bytes; for kRequest, handler time in percent-seconds: nanoseconds *
  // 100 / 1e9, Kafka's nanosToPercentage) of client; the throttle time (zero: within its
  // quota, or none applies).
  std::chrono::milliseconds Record(QuotaKind kind, const QuotaClient& client, double amount, Clock::time_point now);
  // The throttle time client's measure comes to now, without counting anything (zero:
  // within its quota, or none applies): a request is answered with its request quota's
  // throttle as it stands when the request comes.
  std::chrono::milliseconds ThrottleTime(QuotaKind kind, const QuotaClient& client, Clock::time_point now);
  // The most one fetch response may carry for client: Kafka's getMaxValueInQuotaWindow
  // (the quota over samples - 1 windows), but over the short measure's 2 windows, so that
  // a consumer's answers come in pieces of 2 s of its quota, not 10; nullopt: no quota.
  std::optional<int64_t> MaxBytesInWindow(QuotaKind kind, const QuotaClient& client);

  // What each measured entity did, for the metrics (Kafka's byte-rate and throttle-time
  // per user and client-id).
  struct EntityStats {
    QuotaKind kind = QuotaKind::kProduce;
    std::string user, client_id;  // Kafka's metric tags ("" where not part of the entity)
    double quota = 0;             // bytes per second (kRequest: percent of a thread)
    double rate = 0;              // measured now, in the quota's unit
    double amount = 0;            // recorded in all (kRequest: percent-seconds)
    int64_t throttled = 0;        // responses throttled
    int64_t throttle_ms = 0;      // their throttle times added up
  };
  std::vector<EntityStats> Stats(Clock::time_point now);

 private:
  // The entity that applies to a client for kind: its quota and metric tags.
  struct Resolved {
    double quota = 0;
    std::string user, client_id;
  };
  std::optional<Resolved> ResolveLocked(QuotaKind kind, const QuotaClient& client) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct Sensor {
    double quota = 0;
    SampledRate rate;   // Kafka's: options_.samples windows
    SampledRate burst;  // kBurstSamples windows
    double amount = 0;
    int64_t throttled = 0, throttle_ms = 0;
  };
  // The sensor of client's entity for kind, made if new (null: no quota applies).
  Sensor* SensorLocked(QuotaKind kind, const QuotaClient& client) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The longer throttle of sensor's two measures now; added to its stats if count.
  static std::chrono::milliseconds Throttle(Sensor& sensor, Clock::time_point now, bool count);
  static constexpr int kBurstSamples = 3;
  using SensorKey = std::tuple<QuotaKind, std::string, std::string>;

  const SampledRate::Options options_;
  std::atomic<bool> any_{false};  // some quota is set: the usual case is none, and no lock
  std::atomic<bool> any_request_{false};  // some request_percentage is set
  absl::Mutex mu_;
  int64_t version_ ABSL_GUARDED_BY(mu_) = -1;
  std::map<controller::ClientQuotaEntity, controller::ClientQuotaValueMap> quotas_ ABSL_GUARDED_BY(mu_);
  std::map<SensorKey, Sensor> sensors_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
