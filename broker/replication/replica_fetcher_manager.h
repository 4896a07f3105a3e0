#pragma once
// ReplicaFetcherManager: which ReplicaFetcher copies each followed partition. There are
// num.replica.fetchers fetchers per leader broker; a partition goes to fetcher
// hash(partition) % n of its leader, so all partitions followed from one leader share a
// few connections and requests. A fetcher left without partitions is stopped.
// Thread-safe.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/replication/replica_fetcher.h"

namespace strata::broker {

struct ReplicaFetcherManagerOptions {
  int num_fetchers = 1;  // num.replica.fetchers (per leader)
  // Everything but the leader's id and address, which AddPartition gives.
  ReplicaFetcherOptions fetcher;
};

class ReplicaFetcherManager {
 public:
  ReplicaFetcherManager(ReplicaFetcherManagerOptions options, FollowerPartitions* partitions)
      : options_(std::move(options)), partitions_(partitions) {}
  ~ReplicaFetcherManager();

  // Follows tp from leader_id (at host:port) in leader_epoch; moves it from another
  // leader's fetcher when the leader changed. Its fetcher's fetch in flight is cut short
  // (ReplicaFetcher::CutShortForAdded) at once, or when the last Deferral ends.
  void AddPartition(const storage::TopicPartition& tp, int32_t leader_id, const std::string& host, int port,
                    int32_t leader_epoch);
  // While one lives, the partitions added cut no fetch short; when the last one ends,
  // every fetcher that got partitions during it is cut short once. An applied metadata
  // entry that creates topics opens their logs one by one, milliseconds each: cutting
  // per partition had each follower reconnect and fetch every partition in full once per
  // partition added (quadratic in the partitions), and the leader keep each cut fetch,
  // with its every partition, until replica.fetch.wait.max.ms (docs/performance.md).
  class Deferral {
   public:
    explicit Deferral(ReplicaFetcherManager* manager);  // null: nothing to defer
    ~Deferral();
    Deferral(const Deferral&) = delete;
    Deferral& operator=(const Deferral&) = delete;

   private:
    ReplicaFetcherManager* const manager_;
  };
  void RemovePartition(const storage::TopicPartition& tp);
  // The leader tp is fetched from (-1: none).
  int32_t LeaderOf(const storage::TopicPartition& tp) const;
  size_t fetcher_count() const;
  // Every fetcher's lags (ReplicaFetcher::Lags), with the leader fetched from.
  struct PartitionLag {
    storage::TopicPartition tp;
    int32_t leader_id = -1;
    int64_t lag = 0;
  };
  std::vector<PartitionLag> Lags() const;
  void Shutdown();

 private:
  struct Key {
    int32_t leader_id;
    std::string address;  // a re-registered leader may move
    int index;
    auto operator<=>(const Key&) const = default;
  };

  const ReplicaFetcherManagerOptions options_;
  FollowerPartitions* const partitions_;  // handed to every fetcher
  mutable absl::Mutex mu_;
  std::map<Key, std::unique_ptr<ReplicaFetcher>> fetchers_ ABSL_GUARDED_BY(mu_);
  std::map<storage::TopicPartition, Key> assigned_ ABSL_GUARDED_BY(mu_);
  int deferrals_ ABSL_GUARDED_BY(mu_) = 0;
  // Fetchers that got partitions during the deferrals (cut short when the last ends).
  std::set<Key> added_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
