#pragma once
// Incremental fetch sessions (KIP-227): a consumer or follower that fetches many
// partitions names them once; its later fetches name only the partitions whose fetch
// position changed, and the answers carry only the partitions with something new
// (records, a moved high watermark or log start, an error, a diverging epoch, a
// preferred read replica). An idle partition then costs nothing on the wire, and the
// broker does not read it again while nothing in it changed (Partition::ReadMark).
//
// A request's (session_id, session_epoch) says what it is:
//   (0, -1)  sessionless: a full fetch, answered in full with session id 0 (as before
//            KIP-227, and what librdkafka and kafkajs send);
//   (0, 0)   a full fetch that opens a session: answered in full with the new session's
//            id (0 when the cache has no slot for it: the client goes on sessionless);
//   (id, 0)  closes session id and opens a new one (full);
//   (id, -1) closes session id, sessionless;
//   (id, n)  n > 0: incremental, the n-th fetch of the session. Its partitions are added
//            to the session or update it, its forgotten topics leave it. An unknown id is
//            FETCH_SESSION_ID_NOT_FOUND, an epoch other than the one expected
//            INVALID_FETCH_SESSION_EPOCH, a request by topic id in a session by name (or
//            the other way) FETCH_SESSION_TOPIC_ID_ERROR: the client then opens a new
//            session.
// What an incremental fetch reads: only the session's dirty partitions, in the order they
// became dirty — the ones it names, the ones whose last read must be repeated (it
// answered records or an error, or found nothing for want of bytes: the others of the
// answer took them), and the ones the broker said changed since (PartitionChanged: an
// append, a moved high watermark, a leadership change, an offline log dir; the fetch
// handler's purgatory is told the same). So an idle partition costs nothing per fetch.
// Changes nobody is told of (a log start moved by retention, the remote tier) are found
// by reading every partition of the session at least every full_read_interval_ms, which
// also keeps a follower's fetch position on every partition fresh for the ISR and the
// leader lease (the broker sets it well below replica.lag.time.max.ms and the lease).
// A dirty partition whose Partition::ReadMark is unchanged since a read that answered
// nothing is not read again. A fetch waiting in the purgatory waits on its session's
// key (SessionWatchKey) and takes the partitions that become dirty meanwhile.
//
// A session belongs to the connection that opened it (RequestHeader::connection_id): a
// client whose connection broke opens a new session on its next one (Kafka's clients
// do), so the session goes when its connection closes, and one whose full fetch is
// answered after its connection closed is not created (a follower that cut its fetch
// short would otherwise leave a session nobody uses in a slot). Sessions opened
// in-process (connection 0) belong to none.
// The cache holds max.incremental.fetch.session.cache.slots sessions. When full, a new
// session takes the slot of one unused for eviction_ms (the least recently used), else of
// the least valuable session if the new one is worth more: followers' sessions are
// worth more than consumers', then larger ones more than smaller ones. A session that
// finds no slot is not created (session id 0).
// Thread-safe (FetchSessionCache); FetchContext is a value owned by one request.

#include <cstdint>
#include <deque>
#include <list>
#include <atomic>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "broker/replication/partition.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "storage/clock.h"

namespace strata::broker {

// Kafka's sentinel epochs.
inline constexpr int32_t kInitialFetchSessionEpoch = 0;
inline constexpr int32_t kFinalFetchSessionEpoch = -1;
// The epoch after epoch (1 after the largest: 0 is the initial epoch).
int32_t NextFetchSessionEpoch(int32_t epoch);

// Which partition a target is: fixed while a session holds it, so its copies share it.
struct FetchTargetName {
  std::string topic;                             // the name (resolved from topic_id for v13)
  std::string topic_id = std::string(16, '\0');  // v13
  bool known_topic = true;                       // false: a topic id that names no topic
  std::string watch_key;                         // the purgatory key (TopicPartition::DirName)
};
std::shared_ptr<const FetchTargetName> MakeFetchTargetName(std::string topic, std::string topic_id, bool known_topic,
                                                           int32_t partition);

// One partition a fetch reads, in the order it reads and answers them. Cheap to copy:
// an incremental fetch copies its session's.
struct FetchTarget {
  std::shared_ptr<const FetchTargetName> name;  // never null
  proto::kafka::FetchRequest::Partition fetch;
  // Skip the read when the partition still shows this mark: its last read answered no
  // records and no error, and nothing a read depends on changed since.
  std::optional<Partition::ReadMark> unchanged_since;
  // The partition that read was of: while it lives, the skip needs no lookup.
  std::weak_ptr<Partition> last_read;

  const std::string& topic() const { return name->topic; }
};

// What one target's read came to (fetch_handler.cc fills it).
struct FetchTargetRead {
  bool skipped = false;  // unchanged_since held: not read, nothing to answer
  // Set when the read found nothing because the fetch offset had reached the end it may
  // read to (the log end for a follower, the high watermark for a consumer): the mark
  // taken before the read. A read that found nothing for want of bytes (max_bytes spent
  // by earlier partitions) leaves it unset, so that it is read again.
  std::optional<Partition::ReadMark> settled;
  std::shared_ptr<Partition> partition;  // the partition read (null: none found)
  proto::kafka::FetchResponse::Partition data;
  uint64_t record_bytes = 0;  // records in data (spliced or not)
};

class FetchSessionCache;

// The purgatory key a waiting fetch of session id watches (no partition's: topic names
// hold no '/').
std::string SessionWatchKey(int32_t session_id);

// One Fetch request resolved against the session cache: the partitions to read, and how
// to answer them (FetchSessionCache::NewContext).
class FetchContext {
 public:
  enum class Kind { kSessionless, kNewSession, kIncremental, kError };
  Kind kind() const { return kind_; }
  // kError: the fetch's top-level error (the answer has no partitions).
  proto::kafka::ErrorCode error() const { return error_; }
  // The partitions to read, in order.
  const std::vector<FetchTarget>& targets() const { return targets_; }
  // kIncremental: takes the session's partitions that became dirty since into targets()
  // (a fetch waiting in the purgatory): the indexes in targets() of those that changed,
  // new ones appended.
  std::vector<size_t> TakeChanged();
  // The purgatory key of the session (kIncremental), else empty.
  std::string watch_key() const;
  // The answer: the reads of targets() (as many, in order), grouped by topic, only the
  // partitions with something new in an incremental session, with the session's id.
  // Records what the session answered. Call once per answer.
  proto::kafka::FetchResponse Answer(std::vector<FetchTargetRead>& reads);

 private:
  friend class FetchSessionCache;
  FetchSessionCache* cache_ = nullptr;  // null: no session to open or update
  Kind kind_ = Kind::kSessionless;
  proto::kafka::ErrorCode error_ = proto::kafka::ErrorCode::kNone;
  std::vector<FetchTarget> targets_;
  // kIncremental: where each partition is in targets_ (a partition is read once per answer).
  absl::flat_hash_map<const FetchTargetName*, size_t> index_;
  int32_t session_id_ = 0;  // kIncremental: the session
  uint64_t connection_id_ = 0;  // the connection the request came on
  bool privileged_ = false;  // a follower's
  bool topic_ids_ = false;   // v13: partitions named by topic id
};

struct FetchSessionCacheOptions {
  int32_t max_slots = 1000;     // max.incremental.fetch.session.cache.slots (0: no sessions)
  int64_t eviction_ms = 120000;  // a session unused this long may lose its slot (Kafka's)
  // An incremental fetch reads every partition of its session when this long passed
  // since the last time it did (0: every fetch).
  int64_t full_read_interval_ms = 1000;
  storage::Clock* clock = storage::Clock::System();
};

class FetchSessionCache {
 public:
  explicit FetchSessionCache(FetchSessionCacheOptions options);

  // Resolves request (of version >= 7; a topic id resolves to a name through
  // topic_name, nullopt when no topic has it), which came on connection_id.
  template <typename TopicName>
  FetchContext NewContext(const proto::kafka::FetchRequest& request, int16_t version, uint64_t connection_id,
                          TopicName topic_name);
  // The connection closed: its sessions go, and none is opened for it any more.
  void ConnectionClosed(uint64_t connection_id);
  // Something a read of the partition depends on changed (watch_key:
  // TopicPartition::DirName): it is dirty in every session that holds it. Returns those
  // sessions' ids (their waiting fetches watch SessionWatchKey).
  std::vector<int32_t> PartitionChanged(const std::string& watch_key);

  size_t size() const;
  // The partitions all sessions hold (Kafka's NumIncrementalFetchPartitionsCached).
  size_t cached_partitions() const;
  // The session's partitions (topic, partition) in order (tests); empty when unknown.
  std::vector<std::pair<std::string, int32_t>> PartitionsOf(int32_t session_id) const;
  // Sessions evicted and sessions not created for want of a slot (metrics, tests).
  int64_t evictions() const;
  int64_t sessions_refused() const;
  // Partition reads skipped because nothing changed (metrics, tests).
  int64_t reads_skipped() const;
  // Partitions incremental fetches read (dirty or swept), and of those the ones read in
  // full reads of a session (metrics, tests).
  int64_t partitions_taken() const;
  int64_t partitions_swept() const;

 private:
  friend class FetchContext;
  struct Key {
    std::string topic;  // the name, or the 16-byte id in a session by topic id
    int32_t partition = 0;
    bool operator==(const Key&) const = default;
    template <typename H>
    friend H AbslHashValue(H h, const Key& k) {
      return H::combine(std::move(h), k.topic, k.partition);
    }
  };
  struct CachedPartition {
    FetchTarget target;
    // What the session answered last: -1 high watermark means "answer it next time"
    // (new to the session, or its last answer was an error).
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;
    bool dirty = false;  // in its session's dirty list: read at the next fetch
  };
  struct Session {
    int32_t id = 0;
    uint64_t connection_id = 0;  // the connection it belongs to (0: none)
    int32_t epoch = 0;  // the epoch the next incremental fetch must carry
    bool privileged = false;
    bool topic_ids = false;
    int64_t last_used_ms = 0;
    int64_t last_full_read_ms = 0;
    std::list<CachedPartition> partitions;
    absl::flat_hash_map<Key, std::list<CachedPartition>::iterator> index;
    std::vector<CachedPartition*> dirty;  // in the order they became dirty
  };
  using Targets = std::vector<FetchTarget>;

  void MarkDirtyLocked(Session& session, CachedPartition& cached) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AddPartitionLocked(Session& session, Key key, FetchTarget target) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RemovePartitionLocked(Session& session, std::list<CachedPartition>::iterator it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void EraseSessionLocked(int32_t session_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the session's dirty partitions (all of them when everything) into context's
  // targets; changed (optional) gets their indexes there.
  void TakeDirtyLocked(Session& session, bool everything, FetchContext& context, std::vector<size_t>* changed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<size_t> TakeChanged(FetchContext& context);

  FetchContext NewContextFromTargets(const proto::kafka::FetchRequest& request, int16_t version,
                                     uint64_t connection_id, Targets targets, std::vector<Key> forgotten);
  static Key KeyOf(const FetchTarget& target, bool topic_ids);
  // Under mu_: a slot for a session worth (privileged, size), evicting one if it may.
  bool MakeRoomLocked(bool privileged, size_t size, int64_t now_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int32_t NewSessionIdLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // FetchContext::Answer's work on the session.
  void RecordNewSession(FetchContext& context, std::vector<FetchTargetRead>& reads,
                        proto::kafka::FetchResponse& response);
  std::vector<bool> RecordIncremental(FetchContext& context, std::vector<FetchTargetRead>& reads);

  const FetchSessionCacheOptions options_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<int32_t, std::unique_ptr<Session>> sessions_ ABSL_GUARDED_BY(mu_);
  // By partition (watch key): the sessions that hold it, and its entry in each.
  absl::flat_hash_map<std::string, std::vector<std::pair<Session*, CachedPartition*>>> holders_
      ABSL_GUARDED_BY(mu_);
  std::mt19937 random_ ABSL_GUARDED_BY(mu_);
  // Connections closed lately, so that a full fetch answered after its connection closed
  // opens no session (the last kRecentlyClosed; connection ids only grow).
  static constexpr size_t kRecentlyClosed = 4096;
  std::deque<uint64_t> closed_order_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<uint64_t> closed_ ABSL_GUARDED_BY(mu_);
  int64_t evictions_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t refused_ ABSL_GUARDED_BY(mu_) = 0;
  std::atomic<int64_t> reads_skipped_{0};
  int64_t taken_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t swept_ ABSL_GUARDED_BY(mu_) = 0;
};

template <typename TopicName>
FetchContext FetchSessionCache::NewContext(const proto::kafka::FetchRequest& request, int16_t version,
                                           uint64_t connection_id, TopicName topic_name) {
  const bool topic_ids = version >= 13;
  Targets targets;
  for (const auto& topic : request.topics) {
    std::optional<std::string> name = topic.topic;
    if (topic_ids) name = topic_name(topic.topic_id);
    for (const auto& p : topic.partitions) {
      FetchTarget& t = targets.emplace_back();
      t.name = MakeFetchTargetName(name.value_or(""), topic.topic_id, name.has_value(), p.partition);
      t.fetch = p;
    }
  }
  std::vector<Key> forgotten;
  for (const auto& topic : request.forgotten_topics_data) {
    for (int32_t p : topic.partitions) forgotten.push_back(Key{topic_ids ? topic.topic_id : topic.topic, p});
  }
  return NewContextFromTargets(request, version, connection_id, std::move(targets), std::move(forgotten));
}

}  // namespace strata::broker
