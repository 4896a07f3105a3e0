#include "client/fetch_session_handler.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "proto/kafka/error_code.h"

namespace strata::client {

namespace kafka = proto::kafka;

namespace {

constexpr int32_t kFinalEpoch = -1;

int32_t NextEpoch(int32_t epoch) { return epoch == std::numeric_limits<int32_t>::max() ? 1 : epoch + 1; }

void AddPartition(kafka::FetchRequest& request, const FetchSessionHandler::Key& key,
                  const FetchSessionHandler::Position& position) {
  if (request.topics.empty() || request.topics.back().topic != key.first) {
    request.topics.push_back({key.first, std::string(16, '\0'), {}});
  }
  request.topics.back().partitions.push_back(position);
}

void AddForgotten(kafka::FetchRequest& request, const FetchSessionHandler::Key& key) {
  auto& forgotten = request.forgotten_topics_data;
  if (forgotten.empty() || forgotten.back().topic != key.first) {
    forgotten.push_back({key.first, std::string(16, '\0'), {}});
  }
  forgotten.back().partitions.push_back(key.second);
}

}  // namespace

void FetchSessionHandler::Set(const Key& key, const Position& position) {
  auto [it, added] = wanted_.try_emplace(key, position);
  if (!added) {
    if (it->second == position) return;
    it->second = position;
  }
  changed_.insert(key);
}

void FetchSessionHandler::Remove(const Key& key) {
  if (wanted_.erase(key) > 0) changed_.insert(key);
}

const FetchSessionHandler::Position* FetchSessionHandler::Find(const Key& key) const {
  auto it = wanted_.find(key);
  return it == wanted_.end() ? nullptr : &it->second;
}

void FetchSessionHandler::Build(const std::map<Key, Position>& wanted, kafka::FetchRequest& request) {
  for (auto it = wanted_.begin(); it != wanted_.end();) {
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    changed_.insert(it->first);
    it = wanted_.erase(it);
  }
  for (const auto& [key, position] : wanted) Set(key, position);
  Build(request);
}

void FetchSessionHandler::Build(kafka::FetchRequest& request) {
  request.topics.clear();
  request.forgotten_topics_data.clear();
  pending_sent_ = 0;
  pending_changes_.clear();
  pending_session_.clear();
  if (!enabled_) {
    request.session_id = 0;
    request.session_epoch = kFinalEpoch;
    pending_full_ = true;
  } else {
    request.session_id = session_id_;
    request.session_epoch = epoch_;
    pending_full_ = epoch_ == 0;
  }
  if (pending_full_) {
    for (const auto& [key, position] : wanted_) AddPartition(request, key, position);
    pending_sent_ = wanted_.size();
    if (enabled_) pending_session_ = wanted_;
    changed_.clear();
    return;
  }
  // Keys in order, so a topic's partitions sit together.
  for (const Key& key : changed_) {
    auto want = wanted_.find(key);
    auto held = session_.find(key);
    if (want != wanted_.end()) {
      if (held != session_.end() && held->second == want->second) continue;  // back where it was
      AddPartition(request, key, want->second);
      pending_changes_.emplace_back(key, want->second);
      ++pending_sent_;
    } else if (held != session_.end()) {
      AddForgotten(request, key);
      pending_changes_.emplace_back(key, std::nullopt);
    }
  }
  changed_.clear();
}

absl::Status FetchSessionHandler::HandleResponse(const kafka::FetchResponse& response) {
  auto code = static_cast<kafka::ErrorCode>(response.error_code);
  if (!enabled_) {
    if (code != kafka::ErrorCode::kNone) {
      return absl::UnavailableError(absl::StrCat("fetch refused: ", kafka::ErrorName(code)));
    }
    return absl::OkStatus();
  }
  if (code != kafka::ErrorCode::kNone) {
    HandleError();
    if (code == kafka::ErrorCode::kFetchSessionIdNotFound) session_id_ = 0;  // gone: open a new one
    return absl::UnavailableError(absl::StrCat("fetch session ", response.session_id, " refused: ",
                                               kafka::ErrorName(code)));
  }
  if (pending_full_) {
    session_ = std::move(pending_session_);
    session_id_ = response.session_id;
    epoch_ = response.session_id == 0 ? 0 : 1;  // no slot: ask again next time
  } else {
    if (response.session_id != session_id_) {
      HandleError();
      return absl::DataLossError(absl::StrCat("an incremental fetch of session ", session_id_,
                                              " was answered for session ", response.session_id));
    }
    for (auto& [key, position] : pending_changes_) {
      if (position) {
        session_[key] = *position;
      } else {
        session_.erase(key);
      }
    }
    epoch_ = NextEpoch(epoch_);
  }
  pending_changes_.clear();
  pending_session_.clear();
  // Every partition answered must be one the session holds.
  for (const auto& topic : response.responses) {
    for (const auto& p : topic.partitions) {
      if (!session_.contains(Key{topic.topic, p.partition_index})) {
        HandleError();
        return absl::DataLossError(absl::StrCat("the fetch answered ", topic.topic, "-", p.partition_index,
                                                ", which it did not ask for"));
      }
    }
  }
  return absl::OkStatus();
}

void FetchSessionHandler::HandleError() {
  epoch_ = 0;  // a full fetch that closes session_id_ (if any) and opens a new one
  session_.clear();
  pending_changes_.clear();
  pending_session_.clear();
}

}  // namespace strata::client
