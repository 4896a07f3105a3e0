#include "broker/handlers/fetch_session.h"

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "base/check.h"

namespace strata::broker {

namespace kafka = proto::kafka;

std::shared_ptr<const FetchTargetName> MakeFetchTargetName(std::string topic, std::string topic_id, bool known_topic,
                                                           int32_t partition) {
  auto name = std::make_shared<FetchTargetName>();
  name->watch_key = storage::TopicPartition{topic, partition}.DirName();
  name->topic = std::move(topic);
  name->topic_id = std::move(topic_id);
  name->known_topic = known_topic;
  return name;
}

int32_t NextFetchSessionEpoch(int32_t epoch) {
  if (epoch < 0) return kFinalFetchSessionEpoch;
  if (epoch == std::numeric_limits<int32_t>::max()) return 1;
  return epoch + 1;
}

namespace {

// The answer's topics: consecutive partitions of one topic share an entry (a session
// whose partitions moved to its end may name a topic twice, as Kafka's does).
kafka::FetchResponse::Partition& AddPartition(kafka::FetchResponse& response, const FetchTarget& target,
                                              kafka::FetchResponse::Partition data) {
  if (response.responses.empty() || response.responses.back().topic != target.name->topic ||
      response.responses.back().topic_id != target.name->topic_id) {
    kafka::FetchResponse::Topic& topic = response.responses.emplace_back();
    topic.topic = target.name->topic;
    topic.topic_id = target.name->topic_id;
  }
  return response.responses.back().partitions.emplace_back(std::move(data));
}

// Whether an incremental answer must carry a partition (Kafka's rule), given what the
// session answered last.
bool MustAnswer(const kafka::FetchResponse::Partition& data, uint64_t record_bytes, int64_t last_high_watermark,
                int64_t last_stable_offset, int64_t last_log_start_offset) {
  return record_bytes > 0 || data.error_code != 0 || data.high_watermark != last_high_watermark ||
         data.last_stable_offset != last_stable_offset || data.log_start_offset != last_log_start_offset || data.preferred_read_replica >= 0 ||
         data.diverging_epoch.has_value();
}

// Whether a read (without error) may be skipped while its partition shows the same mark.
bool Settled(const FetchTargetRead& read) {
  return read.settled.has_value() && read.record_bytes == 0 && read.data.preferred_read_replica < 0 &&
         !read.data.diverging_epoch;
}

}  // namespace

kafka::FetchResponse FetchContext::Answer(std::vector<FetchTargetRead>& reads) {
  ABSL_CHECK_EQ(reads.size(), targets_.size());
  kafka::FetchResponse response;
  if (kind_ == Kind::kError) {
    response.error_code = static_cast<int16_t>(error_);
    return response;
  }
  std::vector<bool> answered(reads.size(), true);
  if (kind_ == Kind::kNewSession && cache_ != nullptr) cache_->RecordNewSession(*this, reads, response);
  if (kind_ == Kind::kIncremental) {
    answered = cache_->RecordIncremental(*this, reads);
    response.session_id = session_id_;
  }
  for (size_t i = 0; i < reads.size(); ++i) {
    if (reads[i].skipped || !answered[i]) continue;
    AddPartition(response, targets_[i], std::move(reads[i].data));
  }
  return response;
}

std::string SessionWatchKey(int32_t session_id) { return absl::StrCat("fetch-session/", session_id); }

std::vector<size_t> FetchContext::TakeChanged() {
  if (kind_ != Kind::kIncremental || cache_ == nullptr) return {};
  return cache_->TakeChanged(*this);
}

std::string FetchContext::watch_key() const {
  return kind_ == Kind::kIncremental ? SessionWatchKey(session_id_) : std::string();
}

FetchSessionCache::FetchSessionCache(FetchSessionCacheOptions options)
    : options_(options), random_(std::random_device{}()) {
  ABSL_CHECK(options_.clock != nullptr);
}

FetchSessionCache::Key FetchSessionCache::KeyOf(const FetchTarget& target, bool topic_ids) {
  return Key{topic_ids ? target.name->topic_id : target.name->topic, target.fetch.partition};
}

FetchContext FetchSessionCache::NewContextFromTargets(const kafka::FetchRequest& request, int16_t version,
                                                      uint64_t connection_id, Targets targets,
                                                      std::vector<Key> forgotten) {
  FetchContext context;
  context.connection_id_ = connection_id;
  context.privileged_ = request.replica_id >= 0;
  context.topic_ids_ = version >= 13;
  const bool full = request.session_epoch == kInitialFetchSessionEpoch ||
                    request.session_epoch == kFinalFetchSessionEpoch;
  if (full) {
    if (request.session_id != 0) {
      absl::MutexLock lock(&mu_);
      auto found = sessions_.find(request.session_id);
      // Closed by its client (another connection's session is not its to close).
      if (found != sessions_.end() && found->second->connection_id == connection_id) {
        EraseSessionLocked(request.session_id);
      }
    }
    context.targets_ = std::move(targets);
    if (request.session_epoch == kInitialFetchSessionEpoch && options_.max_slots > 0) {
      context.kind_ = FetchContext::Kind::kNewSession;
      context.cache_ = this;
    }
    return context;
  }
  auto fail = [&](kafka::ErrorCode error) {
    context.kind_ = FetchContext::Kind::kError;
    context.error_ = error;
    return context;
  };
  if (request.session_epoch < 0) return fail(kafka::ErrorCode::kInvalidFetchSessionEpoch);
  absl::MutexLock lock(&mu_);
  auto found = sessions_.find(request.session_id);
  // Another connection's session is not this client's.
  if (found == sessions_.end() || found->second->connection_id != connection_id) {
    return fail(kafka::ErrorCode::kFetchSessionIdNotFound);
  }
  Session& session = *found->second;
  if (session.epoch != request.session_epoch) return fail(kafka::ErrorCode::kInvalidFetchSessionEpoch);
  if (session.topic_ids != context.topic_ids_) return fail(kafka::ErrorCode::kFetchSessionTopicIdError);
  // The client's changes: new or moved partitions, then the ones it no longer fetches.
  for (FetchTarget& target : targets) {
    Key key = KeyOf(target, session.topic_ids);
    auto it = session.index.find(key);
    if (it == session.index.end()) {
      AddPartitionLocked(session, std::move(key), std::move(target));
      continue;
    }
    CachedPartition& cached = *it->second;
    cached.target.fetch = target.fetch;
    cached.target.unchanged_since.reset();  // asked anew: read it
    MarkDirtyLocked(session, cached);
  }
  for (const Key& key : forgotten) {
    auto it = session.index.find(key);
    if (it != session.index.end()) RemovePartitionLocked(session, it->second);
  }
  session.epoch = NextFetchSessionEpoch(session.epoch);
  const int64_t now_ms = options_.clock->NowMs();
  session.last_used_ms = now_ms;
  const bool everything = now_ms - session.last_full_read_ms >= options_.full_read_interval_ms;
  if (everything) session.last_full_read_ms = now_ms;
  context.kind_ = FetchContext::Kind::kIncremental;
  context.cache_ = this;
  context.session_id_ = session.id;
  context.privileged_ = session.privileged;
  TakeDirtyLocked(session, everything, context, nullptr);
  return context;
}

void FetchSessionCache::MarkDirtyLocked(Session& session, CachedPartition& cached) {
  if (cached.dirty) return;
  cached.dirty = true;
  session.dirty.push_back(&cached);
}

void FetchSessionCache::AddPartitionLocked(Session& session, Key key, FetchTarget target) {
  session.partitions.push_back(CachedPartition{std::move(target)});
  CachedPartition& cached = session.partitions.back();
  session.index.emplace(std::move(key), std::prev(session.partitions.end()));
  holders_[cached.target.name->watch_key].emplace_back(&session, &cached);
  MarkDirtyLocked(session, cached);
}

void FetchSessionCache::RemovePartitionLocked(Session& session, std::list<CachedPartition>::iterator it) {
  CachedPartition* cached = &*it;
  auto holders = holders_.find(cached->target.name->watch_key);
  ABSL_CHECK(holders != holders_.end()) << cached->target.name->watch_key;
  std::erase(holders->second, std::make_pair(&session, cached));
  if (holders->second.empty()) holders_.erase(holders);
  if (cached->dirty) std::erase(session.dirty, cached);
  session.index.erase(KeyOf(cached->target, session.topic_ids));
  session.partitions.erase(it);
}

void FetchSessionCache::EraseSessionLocked(int32_t session_id) {
  auto found = sessions_.find(session_id);
  if (found == sessions_.end()) return;
  Session& session = *found->second;
  for (CachedPartition& cached : session.partitions) {
    auto holders = holders_.find(cached.target.name->watch_key);
    ABSL_CHECK(holders != holders_.end()) << cached.target.name->watch_key;
    std::erase(holders->second, std::make_pair(&session, &cached));
    if (holders->second.empty()) holders_.erase(holders);
  }
  sessions_.erase(found);
}

void FetchSessionCache::TakeDirtyLocked(Session& session, bool everything, FetchContext& context,
                                        std::vector<size_t>* changed) {
  auto take = [&](CachedPartition& cached) {
    cached.dirty = false;
    auto [at, added] = context.index_.try_emplace(cached.target.name.get(), context.targets_.size());
    if (added) context.targets_.push_back(cached.target);
    if (changed != nullptr) changed->push_back(at->second);
  };
  if (everything) {
    context.targets_.reserve(context.targets_.size() + session.partitions.size());
    for (CachedPartition& cached : session.partitions) take(cached);
    swept_ += static_cast<int64_t>(session.partitions.size());
    taken_ += static_cast<int64_t>(session.partitions.size());
  } else {
    for (CachedPartition* cached : session.dirty) take(*cached);
    taken_ += static_cast<int64_t>(session.dirty.size());
  }
  session.dirty.clear();
}

std::vector<size_t> FetchSessionCache::TakeChanged(FetchContext& context) {
  std::vector<size_t> changed;
  absl::MutexLock lock(&mu_);
  auto found = sessions_.find(context.session_id_);
  if (found != sessions_.end()) TakeDirtyLocked(*found->second, false, context, &changed);
  return changed;
}

std::vector<int32_t> FetchSessionCache::PartitionChanged(const std::string& watch_key) {
  std::vector<int32_t> out;
  absl::MutexLock lock(&mu_);
  auto holders = holders_.find(watch_key);
  if (holders == holders_.end()) return out;
  for (const auto& [session, cached] : holders->second) {
    MarkDirtyLocked(*session, *cached);
    out.push_back(session->id);
  }
  return out;
}

bool FetchSessionCache::MakeRoomLocked(bool privileged, size_t size, int64_t now_ms) {
  if (sessions_.size() < static_cast<size_t>(options_.max_slots)) return true;
  // The least recently used stale session, else the least valuable one.
  Session* stale = nullptr;
  Session* least = nullptr;
  for (auto& [id, session] : sessions_) {
    if (now_ms - session->last_used_ms >= options_.eviction_ms &&
        (stale == nullptr || session->last_used_ms < stale->last_used_ms)) {
      stale = session.get();
    }
    auto worth = [](const Session& s) { return std::make_tuple(s.privileged, s.partitions.size(), s.last_used_ms); };
    if (least == nullptr || worth(*session) < worth(*least)) least = session.get();
  }
  Session* evicted = stale;
  if (evicted == nullptr && least != nullptr &&
      std::make_pair(least->privileged, least->partitions.size()) < std::make_pair(privileged, size)) {
    evicted = least;
  }
  if (evicted == nullptr) return false;
  EraseSessionLocked(evicted->id);
  ++evictions_;
  return true;
}

int32_t FetchSessionCache::NewSessionIdLocked() {
  std::uniform_int_distribution<int32_t> ids(1, std::numeric_limits<int32_t>::max());
  while (true) {
    int32_t id = ids(random_);
    if (!sessions_.contains(id)) return id;
  }
}

void FetchSessionCache::RecordNewSession(FetchContext& context, std::vector<FetchTargetRead>& reads,
                                         kafka::FetchResponse& response) {
  auto session = std::make_unique<Session>();
  session->privileged = context.privileged_;
  session->topic_ids = context.topic_ids_;
  for (size_t i = 0; i < reads.size(); ++i) {
    const FetchTarget& target = context.targets_[i];
    Key key = KeyOf(target, session->topic_ids);
    if (session->index.contains(key)) continue;  // named twice: the first counts
    CachedPartition cached{target};
    const FetchTargetRead& read = reads[i];
    cached.target.last_read = read.partition;
    if (read.data.error_code == 0) {
      cached.high_watermark = read.data.high_watermark;
      cached.last_stable_offset = read.data.last_stable_offset;
      cached.log_start_offset = read.data.log_start_offset;
      if (Settled(read)) cached.target.unchanged_since = read.settled;
    }
    session->partitions.push_back(std::move(cached));
    session->index.emplace(std::move(key), std::prev(session->partitions.end()));
  }
  absl::MutexLock lock(&mu_);
  if (context.connection_id_ != 0 && closed_.contains(context.connection_id_)) return;  // nobody to use it
  session->connection_id = context.connection_id_;
  int64_t now_ms = options_.clock->NowMs();
  if (!MakeRoomLocked(session->privileged, session->partitions.size(), now_ms)) {
    ++refused_;
    return;  // answered with session id 0: the client goes on without one
  }
  session->id = NewSessionIdLocked();
  session->epoch = 1;
  session->last_used_ms = now_ms;
  session->last_full_read_ms = now_ms;
  response.session_id = session->id;
  Session& held = *session;
  sessions_.emplace(session->id, std::move(session));
  // Every partition dirty: a change between its read above and now told nobody, and the
  // first incremental fetch finds it by its mark (the unchanged ones cost a comparison).
  for (CachedPartition& cached : held.partitions) {
    holders_[cached.target.name->watch_key].emplace_back(&held, &cached);
    MarkDirtyLocked(held, cached);
  }
}

std::vector<bool> FetchSessionCache::RecordIncremental(FetchContext& context, std::vector<FetchTargetRead>& reads) {
  std::vector<bool> answered(reads.size(), false);
  int64_t skipped = 0;
  absl::MutexLock lock(&mu_);
  auto found = sessions_.find(context.session_id_);
  Session* session = found == sessions_.end() ? nullptr : found->second.get();
  std::vector<std::list<CachedPartition>::iterator> to_end;
  for (size_t i = 0; i < reads.size(); ++i) {
    FetchTargetRead& read = reads[i];
    if (read.skipped) {
      ++skipped;
      continue;
    }
    const FetchTarget& target = context.targets_[i];
    if (session == nullptr) {
      // Evicted while this fetch waited: answer what was read; the next fetch hears
      // FETCH_SESSION_ID_NOT_FOUND.
      answered[i] = true;
      continue;
    }
    auto it = session->index.find(KeyOf(target, session->topic_ids));
    if (it == session->index.end()) {
      answered[i] = true;  // forgotten by a later fetch meanwhile (a client that did not wait)
      continue;
    }
    CachedPartition& cached = *it->second;
    cached.target.last_read = read.partition;
    answered[i] = MustAnswer(read.data, read.record_bytes, cached.high_watermark, cached.last_stable_offset,
                             cached.log_start_offset);
    if (read.data.error_code != 0) {
      cached.high_watermark = -1;  // answered again until the error goes
      cached.target.unchanged_since.reset();
    } else {
      cached.high_watermark = read.data.high_watermark;
      cached.last_stable_offset = read.data.last_stable_offset;
      cached.log_start_offset = read.data.log_start_offset;
      if (Settled(read)) {
        cached.target.unchanged_since = read.settled;
      } else {
        cached.target.unchanged_since.reset();
      }
    }
    // Read again at the next fetch unless it settled (a change since was marked by
    // PartitionChanged: it cleared the flag before this read). Those that answered
    // records go last, below.
    if (read.record_bytes > 0) {
      to_end.push_back(it->second);
    } else if (!cached.target.unchanged_since) {
      MarkDirtyLocked(*session, cached);
    }
  }
  if (session != nullptr) {
    // Partitions that answered records are read after the others next time (and go to
    // the end of the session), so that under max_bytes the others get their turn.
    for (auto it : to_end) {
      MarkDirtyLocked(*session, *it);
      session->partitions.splice(session->partitions.end(), session->partitions, it);
    }
  }
  reads_skipped_.fetch_add(skipped, std::memory_order_relaxed);
  return answered;
}

void FetchSessionCache::ConnectionClosed(uint64_t connection_id) {
  if (connection_id == 0) return;
  absl::MutexLock lock(&mu_);
  std::vector<int32_t> owned;
  for (const auto& [id, session] : sessions_) {
    if (session->connection_id == connection_id) owned.push_back(id);
  }
  for (int32_t id : owned) EraseSessionLocked(id);
  if (closed_.insert(connection_id).second) closed_order_.push_back(connection_id);
  if (closed_order_.size() > kRecentlyClosed) {
    closed_.erase(closed_order_.front());
    closed_order_.pop_front();
  }
}

size_t FetchSessionCache::size() const {
  absl::MutexLock lock(&mu_);
  return sessions_.size();
}

size_t FetchSessionCache::cached_partitions() const {
  absl::MutexLock lock(&mu_);
  size_t n = 0;
  for (const auto& [id, session] : sessions_) n += session->partitions.size();
  return n;
}

std::vector<std::pair<std::string, int32_t>> FetchSessionCache::PartitionsOf(int32_t session_id) const {
  std::vector<std::pair<std::string, int32_t>> out;
  absl::MutexLock lock(&mu_);
  auto found = sessions_.find(session_id);
  if (found == sessions_.end()) return out;
  for (const CachedPartition& cached : found->second->partitions) {
    out.emplace_back(cached.target.name->topic, cached.target.fetch.partition);
  }
  return out;
}

int64_t FetchSessionCache::evictions() const {
  absl::MutexLock lock(&mu_);
  return evictions_;
}

int64_t FetchSessionCache::sessions_refused() const {
  absl::MutexLock lock(&mu_);
  return refused_;
}

int64_t FetchSessionCache::reads_skipped() const { return reads_skipped_.load(std::memory_order_relaxed); }

int64_t FetchSessionCache::partitions_taken() const {
  absl::MutexLock lock(&mu_);
  return taken_;
}

int64_t FetchSessionCache::partitions_swept() const {
  absl::MutexLock lock(&mu_);
  return swept_;
}

}  // namespace strata::broker
