#pragma once
// The loop strata-perf's commands share: a connection to each leader broker of the
// selected partitions, one worker per connection running on a thread of its own, and
// the workers' results added into one report (counters, every latency, every failure).
// Not thread-safe: RunWorkers owns the threads it starts and joins them before it returns.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tools/perf/kafka_cluster.h"
#include "tools/perf/latency.h"

namespace strata::tools::perf {

// What every worker reports besides its command's own counters; a command's result
// type derives from it and has `void Add(Result& other)` summing those counters.
struct WorkerReport {
  std::vector<int64_t> latencies_ns;  // one sample per request
  absl::Status failure;               // the connection or a response went wrong
};

// The connection to broker `leader` of `metadata`, versions negotiated; nullopt after
// printing why to err: it cannot be reached, or `serves` says it lacks the versions the
// command needs (`needs` names them, e.g. "Produce v3-v9").
std::optional<BrokerConnection> ConnectLeader(const TopicMetadata& metadata, int32_t leader,
                                              std::chrono::milliseconds timeout,
                                              const std::function<bool(const ApiVersionSet&)>& serves,
                                              absl::string_view needs, std::ostream& err);

template <typename Result>
struct RunTotals {
  Result total;                       // every worker's counters added; latencies_ns holds all samples
  std::vector<std::string> failures;  // each failed worker's message, in worker order
  LatencySummary latency;             // over all samples
  double seconds = 0;                 // from the common start until the last worker ended

  // amount / seconds; 0 for a run too short to measure.
  double PerSecond(double amount) const { return seconds > 0 ? amount / seconds : 0; }
  // What both commands' JSON objects carry alike: failures, elapsed_s and the latency
  // summary under `latency_key` (merged into the command's object; keys sort on output).
  nlohmann::json Json(const char* latency_key) const {
    return {{"failures", failures}, {"elapsed_s", seconds}, {latency_key, LatencyJson(latency)}};
  }
};

// Runs `run(worker, began)` (-> Result) for every worker at once, each on its own thread,
// `began` being the common start; returns once all have ended, with their results added.
template <typename Result, typename Worker, typename Run>
RunTotals<Result> RunWorkers(const std::vector<std::unique_ptr<Worker>>& workers, Run run) {
  using Clock = std::chrono::steady_clock;
  const auto began = Clock::now();
  std::vector<Result> results(workers.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = run(*workers[i], began); });
  }
  for (std::thread& t : threads) t.join();
  RunTotals<Result> totals;
  totals.seconds = std::chrono::duration<double>(Clock::now() - began).count();
  for (Result& r : results) {
    totals.total.Add(r);
    totals.total.latencies_ns.insert(totals.total.latencies_ns.end(), r.latencies_ns.begin(), r.latencies_ns.end());
    if (!r.failure.ok()) totals.failures.emplace_back(r.failure.message());
  }
  totals.latency = Summarize(totals.total.latencies_ns);
  return totals;
}

}  // namespace strata::tools::perf
