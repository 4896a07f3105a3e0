#include "broker/quota/client_quota_manager.h"

#include <algorithm>
#include <cmath>

namespace strata::broker {

namespace {

const char* KeyOf(QuotaKind kind) {
  switch (kind) {
    case QuotaKind::kProduce: return "producer_byte_rate";
    case QuotaKind::kFetch: return "consumer_byte_rate";
    case QuotaKind::kRequest: return "request_percentage";
  }
  return "";
}

}  // namespace

void ClientQuotaManager::Update(const controller::ClientQuotasImage& image) {
  absl::MutexLock lock(&mu_);
  if (image.version() == version_) return;
  version_ = image.version();
  quotas_ = image.quotas();
  bool any = false, any_request = false;
  for (const auto& [entity, values] : quotas_) {
    any = any || values.count(KeyOf(QuotaKind::kProduce)) > 0 || values.count(KeyOf(QuotaKind::kFetch)) > 0;
    any_request = any_request || values.count(KeyOf(QuotaKind::kRequest)) > 0;
  }
  any_.store(any || any_request, std::memory_order_relaxed);
  any_request_.store(any_request, std::memory_order_relaxed);
}

std::optional<ClientQuotaManager::Resolved> ClientQuotaManager::ResolveLocked(QuotaKind kind,
                                                                              const QuotaClient& client) const {
  using controller::kQuotaClientId;
  using controller::kQuotaUser;
  const std::string& u = client.user;
  const std::string& c = client.client_id;
  const std::optional<std::string> none;
  // Kafka's precedence, and each level's metric tags.
  const struct {
    controller::ClientQuotaEntity entity;
    bool user_tag, client_tag;
  } levels[] = {
      {{{kQuotaUser, u}, {kQuotaClientId, c}}, true, true},
      {{{kQuotaUser, u}, {kQuotaClientId, none}}, true, true},
      {{{kQuotaUser, u}}, true, false},
      {{{kQuotaUser, none}, {kQuotaClientId, c}}, true, true},
      {{{kQuotaUser, none}, {kQuotaClientId, none}}, true, true},
      {{{kQuotaUser, none}}, true, false},
      {{{kQuotaClientId, c}}, false, true},
      {{{kQuotaClientId, none}}, false, true},
  };
  for (const auto& level : levels) {
    auto it = quotas_.find(level.entity);
    if (it == quotas_.end()) continue;
    auto value = it->second.find(KeyOf(kind));
    if (value == it->second.end()) continue;
    return Resolved{value->second, level.user_tag ? u : "", level.client_tag ? c : ""};
  }
  return std::nullopt;
}

ClientQuotaManager::Sensor* ClientQuotaManager::SensorLocked(QuotaKind kind, const QuotaClient& client) {
  std::optional<Resolved> resolved = ResolveLocked(kind, client);
  if (!resolved) return nullptr;
  auto [it, added] = sensors_.try_emplace(
      SensorKey{kind, resolved->user, resolved->client_id},
      Sensor{resolved->quota, SampledRate(options_), SampledRate({.samples = kBurstSamples, .window = options_.window})});
  it->second.quota = resolved->quota;
  return &it->second;
}

std::chrono::milliseconds ClientQuotaManager::Record(QuotaKind kind, const QuotaClient& client, double amount,
                                                     Clock::time_point now) {
  if (!any_.load(std::memory_order_relaxed)) return std::chrono::milliseconds(0);
  absl::MutexLock lock(&mu_);
  Sensor* sensor = SensorLocked(kind, client);
  if (sensor == nullptr) return std::chrono::milliseconds(0);
  sensor->amount += amount;
  sensor->rate.Record(amount, now);
  sensor->burst.Record(amount, now);
  // A request's throttle is counted when a request is answered with it (ThrottleTime).
  return Throttle(*sensor, now, /*count=*/kind != QuotaKind::kRequest);
}

std::chrono::milliseconds ClientQuotaManager::Throttle(Sensor& sensor, Clock::time_point now, bool count) {
  std::chrono::milliseconds throttle =
      std::max(sensor.rate.ThrottleTime(sensor.quota, now), sensor.burst.ThrottleTime(sensor.quota, now));
  if (count && throttle.count() > 0) {
    ++sensor.throttled;
    sensor.throttle_ms += throttle.count();
  }
  return throttle;
}

std::chrono::milliseconds ClientQuotaManager::ThrottleTime(QuotaKind kind, const QuotaClient& client,
                                                           Clock::time_point now) {
  if (!any_.load(std::memory_order_relaxed)) return std::chrono::milliseconds(0);
  absl::MutexLock lock(&mu_);
  Sensor* sensor = SensorLocked(kind, client);
  if (sensor == nullptr) return std::chrono::milliseconds(0);
  return Throttle(*sensor, now, /*count=*/true);
}

std::optional<int64_t> ClientQuotaManager::MaxBytesInWindow(QuotaKind kind, const QuotaClient& client) {
  if (!any_.load(std::memory_order_relaxed)) return std::nullopt;
  absl::MutexLock lock(&mu_);
  std::optional<Resolved> resolved = ResolveLocked(kind, client);
  if (!resolved) return std::nullopt;
  const double window_s = std::chrono::duration<double>(options_.window).count();
  return std::llround(resolved->quota * (kBurstSamples - 1) * window_s);
}

std::vector<ClientQuotaManager::EntityStats> ClientQuotaManager::Stats(Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  std::vector<EntityStats> out;
  for (auto& [key, sensor] : sensors_) {
    const auto& [kind, user, client_id] = key;
    out.push_back({kind, user, client_id, sensor.quota, sensor.rate.Measure(now), sensor.amount, sensor.throttled,
                   sensor.throttle_ms});
  }
  return out;
}

}  // namespace strata::broker
