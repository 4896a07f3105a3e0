#pragma once
// FetchSessionHandler: the client side of an incremental fetch session (KIP-227), for
// a fetcher that sends one Fetch at a time to one broker (a replica fetcher, a
// consumer). The fetcher keeps here the partitions it wants and from where, telling
// only what changes (Set, Remove); Build fills the request: every partition in a full
// fetch (the first, or after an error), else only the ones Set to a new position since
// the last fetch, with the Removed ones as forgotten topics — so a fetch costs the
// partitions that changed, not all of them. HandleResponse checks the answer and takes
// it in. A broker that has no slot for the session (session id 0 in the answer) gets
// full fetches that ask again; a session the broker lost (FETCH_SESSION_ID_NOT_FOUND,
// INVALID_FETCH_SESSION_EPOCH) starts anew with a full fetch. Disabled, every fetch is
// sessionless (session id 0, epoch -1) and full, as before KIP-227.
// Fetch v7-v12 (partitions named by topic name).
// Not thread-safe: one fetcher's.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "proto/kafka/fetch.h"

namespace strata::client {

class FetchSessionHandler {
 public:
  explicit FetchSessionHandler(bool enabled = true) : enabled_(enabled) {}

  using Key = std::pair<std::string, int32_t>;  // topic, partition
  using Position = proto::kafka::FetchRequest::Partition;

  // Fetch key from position (new, or moved).
  void Set(const Key& key, const Position& position);
  // Stop fetching key.
  void Remove(const Key& key);
  bool Wants(const Key& key) const { return wanted_.contains(key); }
  size_t size() const { return wanted_.size(); }
  // The position key is fetched from (nullptr: not wanted).
  const Position* Find(const Key& key) const;

  // Fills request's session fields, topics and forgotten topics (replacing what it held).
  void Build(proto::kafka::FetchRequest& request);
  // Sets exactly wanted, then Build (costs all of wanted: for fetchers of few partitions).
  void Build(const std::map<Key, Position>& wanted, proto::kafka::FetchRequest& request);
  // The broker's answer to the request Build made last. An error (a session error, a
  // partition the session does not hold) means the caller should use none of the
  // response; the next Build is a full fetch.
  absl::Status HandleResponse(const proto::kafka::FetchResponse& response);
  // The fetch failed (connection lost, cut short): the next Build is a full fetch that
  // closes the session and asks for a new one.
  void HandleError();

  int32_t session_id() const { return session_id_; }
  int32_t session_epoch() const { return epoch_; }
  // The last request Build made was full / named this many partitions (tests, metrics).
  bool last_was_full() const { return pending_full_; }
  size_t last_request_partitions() const { return pending_sent_; }

 private:
  const bool enabled_;
  int32_t session_id_ = 0;
  int32_t epoch_ = 0;  // 0: the next fetch is full and opens a session
  // The partitions to fetch and from where.
  std::map<Key, Position> wanted_;
  // Keys Set or Removed since the last Build.
  std::set<Key> changed_;
  // What the broker's session holds.
  std::map<Key, Position> session_;
  // What the last Build asked for: the whole session (full), or changes to it (nullopt:
  // forgotten). Taken into session_ when answered.
  bool pending_full_ = true;
  std::map<Key, Position> pending_session_;
  std::vector<std::pair<Key, std::optional<Position>>> pending_changes_;
  size_t pending_sent_ = 0;
};

}  // namespace strata::client
