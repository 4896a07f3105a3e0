#pragma once
// TransactionMetrics: a broker's transaction coordinator for Prometheus, read at every
// scrape (strata-server registers it on metrics.listener for brokers):
//   strata_transactions_open                  transactions Ongoing, PrepareCommit or
//                                             PrepareAbort on this coordinator
//   strata_transaction_commits_total          transactions committed (CompleteCommit written)
//   strata_transaction_aborts_total           transactions aborted (CompleteAbort written)
//   strata_transactions_timed_out_total       aborted by transaction.timeout.ms
//   strata_transactional_ids_expired_total    ids expired by transactional.id.expiration.ms
//   strata_transaction_state_partitions       __transaction_state partitions coordinated here
//   strata_txn_verifications_total{result}    partitions a leader asked a coordinator about
//                                             before a batch opened a transaction (KIP-890
//                                             part 1): verified, or refused (any error)
//   strata_txn_verification_requests_total    AddPartitionsToTxn requests sent to other brokers
//                                             for it (the rest are asked in-process)
// The partitions' side is strata_log_last_stable_offset_lag (broker_metrics.h).
// Thread-safe.

#include <vector>

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include "broker/transactions/add_partitions_to_txn_manager.h"
#include "broker/transactions/transaction_coordinator.h"

namespace strata::server {

class TransactionMetrics final : public prometheus::Collectable {
 public:
  // verifier: null when transaction.partition.verification.enable is off.
  TransactionMetrics(const broker::TransactionCoordinator& coordinator,
                     const broker::AddPartitionsToTxnManager* verifier)
      : coordinator_(coordinator), verifier_(verifier) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const broker::TransactionCoordinator& coordinator_;
  const broker::AddPartitionsToTxnManager* const verifier_;
};

}  // namespace strata::server
