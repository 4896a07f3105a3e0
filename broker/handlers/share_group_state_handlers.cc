#include "broker/handlers/share_group_state_handlers.h"

#include <algorithm>
#include <memory>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "base/check.h"
#include "broker/handlers/authorization.h"
#include "broker/share/share_coordinator.h"
#include "proto/kafka/api.h"
#include "proto/kafka/share_group_state.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;
using kafka::ApiKey;

namespace {

// The response being gathered: every partition's answer in its request's place.
struct Gathering {
  absl::Mutex mu;
  kafka::ShareGroupStateResponse response ABSL_GUARDED_BY(mu);
  size_t remaining ABSL_GUARDED_BY(mu) = 0;
  std::function<void(kafka::ShareGroupStateResponse)> reply;

  // Records one answer; replies after the last.
  void Answer(size_t topic, size_t partition, kafka::ShareStatePartition answer) {
    kafka::ShareGroupStateResponse done;
    {
      absl::MutexLock lock(&mu);
      response.results[topic].partitions[partition] = std::move(answer);
      if (--remaining > 0) return;
      done = std::move(response);
    }
    reply(std::move(done));
  }
};

kafka::ShareStatePartition Failed(int32_t partition, ErrorCode error, std::string message) {
  kafka::ShareStatePartition p;
  p.partition = partition;
  p.error_code = static_cast<int16_t>(error);
  p.error_message = std::move(message);
  return p;
}

// The offsets at or past the start whose delivery is complete (acknowledged or archived):
// ReadShareGroupStateSummary's DeliveryCompleteCount.
int32_t DeliveryComplete(const SharePartitionState& state) {
  int64_t n = 0;
  for (const ShareStateBatch& b : state.batches) {
    if (b.state == ShareRecordState::kAcknowledged || b.state == ShareRecordState::kArchived) {
      n += b.last_offset - b.first_offset + 1;
    }
  }
  return static_cast<int32_t>(std::min<int64_t>(n, INT32_MAX));
}

// A coordinator's answer as api_key's partition result.
kafka::ShareStatePartition ResultOf(int16_t api_key, int32_t partition, const ShareStateOutcome& out) {
  kafka::ShareStatePartition p;
  p.partition = partition;
  p.error_code = static_cast<int16_t>(out.error);
  if (out.error != ErrorCode::kNone) {
    p.error_message = out.message.empty() ? std::nullopt : std::optional<std::string>(out.message);
    return p;
  }
  if (api_key == static_cast<int16_t>(ApiKey::kReadShareGroupStateSummary) && !out.state) {
    p.state_epoch = 0;  // never initialized: Kafka's answer, no error
    p.leader_epoch = -1;
    p.start_offset = -1;
    p.delivery_complete_count = 0;
    return p;
  }
  if (!out.state) return p;
  p.state_epoch = out.state->state_epoch;
  p.start_offset = out.state->state.start_offset;
  if (api_key == static_cast<int16_t>(ApiKey::kReadShareGroupStateSummary)) {
    p.leader_epoch = out.state->leader_epoch;
    p.delivery_complete_count = DeliveryComplete(out.state->state);
  } else {
    for (const ShareStateBatch& b : out.state->state.batches) {
      p.state_batches.push_back({b.first_offset, b.last_offset, static_cast<int8_t>(b.state), b.delivery_count});
    }
  }
  return p;
}

// A WriteShareGroupState partition's state, or why it is not one.
absl::StatusOr<SharePartitionState> StateOf(const kafka::ShareStatePartition& in) {
  SharePartitionState state;
  state.start_offset = in.start_offset;
  for (const kafka::ShareStateBatchData& b : in.state_batches) {
    if (!IsShareRecordState(b.delivery_state)) {
      return absl::InvalidArgumentError(absl::StrCat("delivery state ", b.delivery_state));
    }
    state.batches.push_back({b.first_offset, b.last_offset, static_cast<ShareRecordState>(b.delivery_state),
                             b.delivery_count});
  }
  if (absl::Status s = CheckShareState(state); !s.ok()) return s;
  return state;
}

// One partition of the request, to the coordinator.
void Ask(int16_t api_key, ShareCoordinator& coordinator, const ShareStateKey& key, const kafka::ShareStatePartition& in,
         std::function<void(kafka::ShareStatePartition)> done) {
  auto respond = [api_key, partition = in.partition, done = std::move(done)](ShareStateOutcome out) {
    done(ResultOf(api_key, partition, out));
  };
  switch (static_cast<ApiKey>(api_key)) {
    case ApiKey::kInitializeShareGroupState:
      return coordinator.Initialize(key, in.state_epoch, in.start_offset, std::move(respond));
    case ApiKey::kReadShareGroupState:
      return coordinator.Read(key, in.leader_epoch, std::move(respond));
    case ApiKey::kWriteShareGroupState: {
      auto state = StateOf(in);
      if (!state.ok()) {
        ShareStateOutcome out;
        out.error = ErrorCode::kInvalidRequest;
        out.message = std::string(state.status().message());
        return respond(std::move(out));
      }
      return coordinator.Write(key, in.state_epoch, in.leader_epoch, *std::move(state), std::move(respond));
    }
    case ApiKey::kDeleteShareGroupState:
      return coordinator.Delete(key, std::move(respond));
    case ApiKey::kReadShareGroupStateSummary:
      return coordinator.ReadSummary(key, in.leader_epoch, std::move(respond));
    default:
      ABSL_CHECK(false) << "not a share state API: " << api_key;
  }
}

void HandleShareState(ApiKey api, const ApiRequest& request, const ApiResponder& respond) {
  const auto api_key = static_cast<int16_t>(api);
  AnswerLater(
      request, respond,
      [api_key](kafka::Reader& reader, int16_t v) { return kafka::ReadShareGroupStateRequest(api_key, reader, v); },
      [&request, api_key](kafka::ShareGroupStateRequest r, std::function<void(kafka::ShareGroupStateResponse)> reply) {
        const bool authorized = AuthorizedOnCluster(request, security::AclOperation::kClusterAction);
        ShareCoordinator* coordinator = request.broker.share_coordinator;
        auto gathering = std::make_shared<Gathering>();
        gathering->reply = std::move(reply);
        // What each partition is asked, decided first (the metadata read under the image's
        // lock, which the coordinator's never nests in); the asking once every place is made.
        kafka::ShareGroupStateResponse response;
        size_t remaining = 0;
        std::vector<std::function<void()>> asks;
        for (size_t t = 0; t < r.topics.size(); ++t) {
          const kafka::ShareStateTopic& topic = r.topics[t];
          response.results.push_back({topic.topic_id, {}});
          std::vector<kafka::ShareStatePartition>& results = response.results.back().partitions;
          std::set<int32_t> known;
          request.broker.store.WithImage([&](const controller::MetadataImage& image) {
            if (const controller::TopicState* ts = image.FindTopicById(topic.topic_id); ts != nullptr) {
              for (const auto& [index, unused] : ts->partitions) known.insert(index);
            }
            return 0;
          });
          for (size_t p = 0; p < topic.partitions.size(); ++p) {
            const kafka::ShareStatePartition& in = topic.partitions[p];
            if (!authorized) {
              results.push_back(Failed(in.partition, ErrorCode::kClusterAuthorizationFailed,
                                       "ClusterAction on the cluster is required"));
            } else if (coordinator == nullptr) {
              results.push_back(Failed(in.partition, ErrorCode::kCoordinatorNotAvailable, "no share coordinator"));
            } else if (r.group_id.empty()) {
              results.push_back(Failed(in.partition, ErrorCode::kInvalidRequest, "an empty group id"));
            } else if (!known.count(in.partition)) {
              results.push_back(Failed(in.partition, ErrorCode::kUnknownTopicOrPartition,
                                       "the metadata has no such topic id and partition"));
            } else {
              results.emplace_back();
              ++remaining;
              ShareStateKey key{r.group_id, topic.topic_id, in.partition};
              asks.push_back([api_key, coordinator, key, in, gathering, t, p] {
                Ask(api_key, *coordinator, key, in, [gathering, t, p](kafka::ShareStatePartition answer) {
                  gathering->Answer(t, p, std::move(answer));
                });
              });
            }
          }
        }
        if (remaining == 0) return gathering->reply(std::move(response));
        {
          absl::MutexLock lock(&gathering->mu);
          gathering->response = std::move(response);
          gathering->remaining = remaining;
        }
        for (auto& ask : asks) ask();
      },
      [api_key](const kafka::ShareGroupStateResponse& response, int16_t v, kafka::Writer& writer) {
        kafka::WriteShareGroupStateResponse(api_key, response, v, writer);
      });
}

}  // namespace

void HandleInitializeShareGroupState(const ApiRequest& request, ApiResponder respond) {
  HandleShareState(ApiKey::kInitializeShareGroupState, request, respond);
}
void HandleReadShareGroupState(const ApiRequest& request, ApiResponder respond) {
  HandleShareState(ApiKey::kReadShareGroupState, request, respond);
}
void HandleWriteShareGroupState(const ApiRequest& request, ApiResponder respond) {
  HandleShareState(ApiKey::kWriteShareGroupState, request, respond);
}
void HandleDeleteShareGroupState(const ApiRequest& request, ApiResponder respond) {
  HandleShareState(ApiKey::kDeleteShareGroupState, request, respond);
}
void HandleReadShareGroupStateSummary(const ApiRequest& request, ApiResponder respond) {
  HandleShareState(ApiKey::kReadShareGroupStateSummary, request, respond);
}

}  // namespace strata::broker
