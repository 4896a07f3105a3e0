#pragma once
// AutoTopicCreator: auto.create.topics.enable. A Metadata request naming an unknown topic
// (with allow_auto_topic_creation, v4+; always before v4) or a produce to one asks for the
// topic here; it is created through the active controller's CreateTopics with the
// cluster's num.partitions and default.replication.factor, on this class's own thread, so
// no request handler waits for the controller. Meanwhile the client is answered
// LEADER_NOT_AVAILABLE (Metadata) or UNKNOWN_TOPIC_OR_PARTITION (Produce), both retriable,
// as Kafka answers. A name already being created is asked once; internal names (__*) and
// invalid names never. Strata's own configs keep it off (Kafka's default is on): a typo in
// a topic name then fails loudly instead of creating a topic (docs/configuration.md).
// The same thread creates the internal topics (`__consumer_offsets`) with their own
// partition count, replication factor and configs, whatever auto.create.topics.enable says.
// Thread-safe.

#include <deque>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"

namespace strata::broker {

class AutoTopicCreator {
 public:
  explicit AutoTopicCreator(ControllerChannel& controller);
  ~AutoTopicCreator();  // stops the thread; creations not sent yet are dropped
  AutoTopicCreator(const AutoTopicCreator&) = delete;
  AutoTopicCreator& operator=(const AutoTopicCreator&) = delete;

  // Asks for `topic` to be created; false when it is not a name that may be (invalid,
  // internal). Returns at once.
  bool Request(const std::string& topic);
  // An internal topic (a `__` name) with its own layout and configs. Returns at once.
  struct TopicSpec {
    int32_t partitions = -1;          // -1: the controller's num.partitions
    int32_t replication_factor = -1;  // -1: its default.replication.factor
    std::map<std::string, std::string> configs;
  };
  void RequestInternal(const std::string& topic, TopicSpec spec);
  // Creations the controller answered, created or already there (tests).
  int64_t created() const;
  // Why the last creation of topic failed ("" when it did not, or was not asked).
  std::string LastFailure(const std::string& topic) const;

 private:
  void Run();

  ControllerChannel& controller_;
  mutable absl::Mutex mu_;
  std::deque<std::pair<std::string, TopicSpec>> queue_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> pending_ ABSL_GUARDED_BY(mu_);  // queued or being created
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int64_t created_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<std::string, std::string> failures_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace strata::broker
