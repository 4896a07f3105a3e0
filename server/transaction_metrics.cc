#include "server/transaction_metrics.h"

#include "controller/metric_families.h"

namespace strata::server {

using controller::Add;
using controller::Family;
using prometheus::MetricType;

std::vector<prometheus::MetricFamily> TransactionMetrics::Collect() const {
  const broker::TransactionStats s = coordinator_.stats();
  std::vector<prometheus::MetricFamily> out;
  auto one = [&](const char* name, const char* help, MetricType type, double value) {
    auto f = Family(name, help, type);
    Add(f, value);
    out.push_back(std::move(f));
  };
  one("strata_transactions_open", "Transactions Ongoing, PrepareCommit or PrepareAbort on this coordinator",
      MetricType::Gauge, static_cast<double>(s.ongoing));
  one("strata_transaction_commits_total", "Transactions committed by this coordinator", MetricType::Counter,
      static_cast<double>(s.commits));
  one("strata_transaction_aborts_total", "Transactions aborted by this coordinator", MetricType::Counter,
      static_cast<double>(s.aborts));
  one("strata_transactions_timed_out_total", "Transactions aborted by their transaction.timeout.ms",
      MetricType::Counter, static_cast<double>(s.timed_out));
  one("strata_transactional_ids_expired_total", "Transactional ids expired by transactional.id.expiration.ms",
      MetricType::Counter, static_cast<double>(s.expired));
  one("strata_transaction_state_partitions", "Partitions of __transaction_state coordinated by this broker",
      MetricType::Gauge, static_cast<double>(s.partitions_owned));
  const broker::TxnVerificationStats v = verifier_ != nullptr ? verifier_->stats() : broker::TxnVerificationStats{};
  auto verifications = Family("strata_txn_verifications_total",
                              "Partitions asked about before a batch opened a transaction there (KIP-890 part 1)",
                              MetricType::Counter);
  Add(verifications, static_cast<double>(v.verified), {{"result", "verified"}});
  Add(verifications, static_cast<double>(v.unverified), {{"result", "refused"}});
  out.push_back(std::move(verifications));
  one("strata_txn_verification_requests_total", "AddPartitionsToTxn verify-only requests sent to other brokers",
      MetricType::Counter, static_cast<double>(v.remote_requests));
  return out;
}

}  // namespace strata::server
