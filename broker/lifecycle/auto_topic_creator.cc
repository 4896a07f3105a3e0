#include "broker/lifecycle/auto_topic_creator.h"

#include <chrono>

#include "base/logging.h"
#include "broker/lifecycle/admin_forwarding.h"
#include "controller/topic_name.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {
namespace {
// Short: the client retries anyway, and a broker stopping waits at most this long.
constexpr std::chrono::milliseconds kCreateDeadline{5000};
}  // namespace

AutoTopicCreator::AutoTopicCreator(ControllerChannel& controller) : controller_(controller) {
  thread_ = std::thread([this] { Run(); });
}

AutoTopicCreator::~AutoTopicCreator() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

bool AutoTopicCreator::Request(const std::string& topic) {
  if (!controller::ValidateTopicName(topic).ok() || topic.rfind("__", 0) == 0) return false;
  absl::MutexLock lock(&mu_);
  if (stopping_) return false;
  if (pending_.insert(topic).second) queue_.push_back({topic, TopicSpec{}});
  return true;
}

void AutoTopicCreator::RequestInternal(const std::string& topic, TopicSpec spec) {
  absl::MutexLock lock(&mu_);
  if (stopping_) return;
  if (pending_.insert(topic).second) queue_.push_back({topic, std::move(spec)});
}

std::string AutoTopicCreator::LastFailure(const std::string& topic) const {
  absl::MutexLock lock(&mu_);
  auto it = failures_.find(topic);
  return it == failures_.end() ? "" : it->second;
}

int64_t AutoTopicCreator::created() const {
  absl::MutexLock lock(&mu_);
  return created_;
}

void AutoTopicCreator::Run() {
  while (true) {
    std::string topic;
    TopicSpec spec;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](AutoTopicCreator* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->stopping_ || !self->queue_.empty();
          },
          this));
      if (stopping_) return;
      topic = queue_.front().first;
      spec = std::move(queue_.front().second);
      queue_.pop_front();
    }
    admin::v1::CreateTopicsRequest request;
    admin::v1::CreateTopicsRequest::Topic* t = request.add_topics();
    t->set_name(topic);
    t->set_num_partitions(spec.partitions);  // -1: the controller's num.partitions
    t->set_replication_factor(spec.replication_factor);  // -1: its default.replication.factor
    for (const auto& [k, v] : spec.configs) (*t->mutable_configs())[k] = v;
    admin::v1::CreateTopicsResponse response;
    std::optional<ForwardFailure> failure = ForwardToController(
        controller_, &admin::v1::AdminService::Stub::CreateTopics, request, &response, kCreateDeadline);
    const auto already = static_cast<int>(proto::kafka::ErrorCode::kTopicAlreadyExists);
    bool done = false;
    std::string why;
    if (failure) {
      why = failure->message;
      spdlog::warn("creating topic {}: {}", topic, why);
    } else if (response.topics_size() == 1 && response.topics(0).error_code() != 0 &&
               response.topics(0).error_code() != already) {
      why = response.topics(0).error_message();
      spdlog::warn("the controller refused to create topic {}: {}", topic, why);
    } else {
      done = true;
      spdlog::info("created topic {}", topic);
    }
    absl::MutexLock lock(&mu_);
    pending_.erase(topic);  // a failed creation is asked again by the client's next retry
    if (done) ++created_;
    if (done) {
      failures_.erase(topic);
    } else {
      failures_[topic] = why;
    }
  }
}

}  // namespace strata::broker
