#include "broker/auto_topic_creator.h"

#include <chrono>

#include "base/logging.h"
#include "broker/admin_forwarding.h"
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
  if (pending_.insert(topic).second) queue_.push_back(topic);
  return true;
}

int64_t AutoTopicCreator::created() const {
  absl::MutexLock lock(&mu_);
  return created_;
}

void AutoTopicCreator::Run() {
  while (true) {
    std::string topic;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](AutoTopicCreator* self) ABSL_EXCLUSIVE_LOCKS_REQUIRED(self->mu_) {
            return self->stopping_ || !self->queue_.empty();
          },
          this));
      if (stopping_) return;
      topic = queue_.front();
      queue_.pop_front();
    }
    admin::v1::CreateTopicsRequest request;
    admin::v1::CreateTopicsRequest::Topic* t = request.add_topics();
    t->set_name(topic);
    t->set_num_partitions(-1);  // the controller's num.partitions
    t->set_replication_factor(-1);  // and default.replication.factor
    admin::v1::CreateTopicsResponse response;
    std::optional<ForwardFailure> failure = ForwardToController(
        controller_, &admin::v1::AdminService::Stub::CreateTopics, request, &response, kCreateDeadline);
    const auto already = static_cast<int>(proto::kafka::ErrorCode::kTopicAlreadyExists);
    bool done = false;
    if (failure) {
      spdlog::warn("auto.create.topics.enable: creating {}: {}", topic, failure->message);
    } else if (response.topics_size() == 1 && response.topics(0).error_code() != 0 &&
               response.topics(0).error_code() != already) {
      spdlog::warn("auto.create.topics.enable: the controller refused {}: {}", topic,
                   response.topics(0).error_message());
    } else {
      done = true;
      spdlog::info("auto.create.topics.enable: created topic {}", topic);
    }
    absl::MutexLock lock(&mu_);
    pending_.erase(topic);  // a failed creation is asked again by the client's next retry
    if (done) ++created_;
  }
}

}  // namespace strata::broker
