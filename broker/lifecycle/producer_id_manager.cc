#include "broker/lifecycle/producer_id_manager.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "controller.grpc.pb.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace cv1 = strata::controller::v1;
using proto::kafka::ErrorCode;

ProducerIdBlockSource ControllerBlockSource(ControllerChannel& client, int32_t broker_id,
                                            std::function<int64_t()> broker_epoch, std::chrono::milliseconds deadline) {
  return [&client, broker_id, broker_epoch = std::move(broker_epoch), deadline]() -> absl::StatusOr<ProducerIdBlock> {
    int64_t epoch = broker_epoch();
    if (epoch < 0) return absl::UnavailableError(absl::StrCat("broker ", broker_id, " is not registered yet"));
    cv1::AllocateProducerIdsRequest request;
    request.set_broker_id(broker_id);
    request.set_broker_epoch(epoch);
    cv1::AllocateProducerIdsResponse response;
    absl::Status s = client.CallController(&cv1::ControllerService::Stub::AllocateProducerIds, request, &response, deadline);
    if (!s.ok()) return s;
    if (response.error_code() != 0) {
      // STALE_BROKER_EPOCH / BROKER_ID_NOT_REGISTERED: the broker is registering again;
      // the next try uses its new epoch.
      return absl::UnavailableError(absl::StrCat("AllocateProducerIds: ",
                                                 proto::kafka::ErrorName(static_cast<ErrorCode>(response.error_code())),
                                                 ": ", response.error_message()));
    }
    return ProducerIdBlock{response.first_producer_id(), response.length()};
  };
}

ProducerIdManager::ProducerIdManager(ProducerIdBlockSource source, ProducerIdManagerOptions options)
    : source_(std::move(source)), options_(options) {
  fetcher_ = std::thread([this] { FetchLoop(); });
}

ProducerIdManager::~ProducerIdManager() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  fetcher_.join();
}

bool ProducerIdManager::NeedBlockLocked() const {
  if (prefetched_) return false;
  if (waiting_ > 0) return true;
  if (current_length_ == 0) return false;  // nobody asked yet
  // Prefetch once prefetch_at of the current block is used (the last id at the latest).
  int64_t used = current_length_ - (end_ - next_id_);
  int64_t threshold = std::min<int64_t>(current_length_, static_cast<int64_t>(std::ceil(options_.prefetch_at * current_length_)));
  return used >= threshold;
}

absl::StatusOr<int64_t> ProducerIdManager::NextProducerId() {
  absl::MutexLock lock(&mu_);
  auto deadline = std::chrono::steady_clock::now() + options_.wait;
  while (!stopping_) {
    if (next_id_ < end_) {
      int64_t id = next_id_++;
      ++stats_.ids_handed_out;
      return id;  // the fetch thread wakes if NeedBlockLocked() now holds
    }
    if (prefetched_) {
      next_id_ = prefetched_->first;
      end_ = prefetched_->first + prefetched_->length;
      current_length_ = prefetched_->length;
      prefetched_.reset();
      continue;
    }
    ++waiting_;
    auto arrived = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || prefetched_.has_value(); };
    bool ready =
        mu_.AwaitWithTimeout(absl::Condition(&arrived), absl::FromChrono(deadline - std::chrono::steady_clock::now()));
    --waiting_;
    // absl's timed waits follow the system clock, which an NTP slew makes run up to 0.5%
    // fast: the bound is the steady clock's, so an early wake-up waits out the rest.
    if (!ready && std::chrono::steady_clock::now() >= deadline) {
      return absl::UnavailableError(absl::StrCat("no producer id block from the controller within ", options_.wait.count(),
                                                 " ms", stats_.last_error.empty() ? "" : ": ", stats_.last_error));
    }
  }
  return absl::UnavailableError("the broker is stopping");
}

ProducerIdManagerStats ProducerIdManager::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void ProducerIdManager::FetchLoop() {
  mu_.Lock();  // released while asking the controller
  auto backoff = options_.retry_backoff;
  while (true) {
    auto needed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || NeedBlockLocked(); };
    mu_.Await(absl::Condition(&needed));
    if (stopping_) break;
    mu_.Unlock();
    absl::StatusOr<ProducerIdBlock> block = source_();
    mu_.Lock();
    if (block.ok() && (block->length <= 0 || block->first < highest_end_ ||
                       block->first > std::numeric_limits<int64_t>::max() - block->length)) {
      // Ids must never repeat: a block overlapping one already used is refused.
      std::string why = block->length <= 0          ? "it is empty"
                        : block->first < highest_end_ ? absl::StrCat("ids below ", highest_end_, " were handed out already")
                                                       : "it passes the largest producer id";
      block = absl::InternalError(absl::StrCat("refused producer id block ", block->first, "+", block->length, ": ", why));
      spdlog::error("{}", block.status().message());
    }
    if (block.ok()) {
      prefetched_ = *block;
      highest_end_ = block->first + block->length;
      ++stats_.blocks_fetched;
      stats_.last_error.clear();
      backoff = options_.retry_backoff;
      continue;
    }
    ++stats_.fetch_failures;
    stats_.last_error = std::string(block.status().message());
    spdlog::debug("producer id block fetch failed: {}", stats_.last_error);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(backoff));  // retry pacing
    backoff = std::min(backoff * 2, options_.max_retry_backoff);
  }
  mu_.Unlock();
}

}  // namespace strata::broker
