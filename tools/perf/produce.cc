// strata-perf produce: Produce requests of record batches, pipelined, one connection
// per leader broker, a writer and a reader thread on each.

#include "proto/kafka/produce.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_format.h"
#include "proto/kafka/api.h"
#include "storage/record_batch.h"
#include "tools/perf/kafka_cluster.h"
#include "tools/perf/latency.h"
#include "tools/perf/perf_tool.h"
#include "tools/perf/run_loop.h"

namespace strata::tools::perf {

namespace {

namespace kafka = strata::proto::kafka;
using Clock = std::chrono::steady_clock;

// Encoded bytes a record adds to a batch beyond its value, at most: length, attributes,
// timestamp and offset deltas, the null key, the value length and the header count.
constexpr int32_t kRecordOverhead = 16;
// Partition errors printed in full; the rest are only counted.
constexpr size_t kMaxErrorsShown = 10;
// Random bytes values are cut from (values start at varying offsets into it).
constexpr size_t kValuePoolExtra = 64 * 1024;

struct PartitionLoad {
  int32_t partition = 0;
  int64_t records_left = 0;
};

// One batch of a request.
struct CarriedBatch {
  int32_t partition = 0;
  int64_t records = 0;
  int64_t bytes = 0;
};

// One request on the wire: what it carried, for its response.
struct InFlight {
  Clock::time_point sent;
  std::vector<CarriedBatch> batches;
};

// Records per batch: as many as fit in batch.size (at least one, as Kafka puts a
// record larger than batch.size in a batch of its own).
int64_t RecordsPerBatch(const ProduceOptions& options) {
  int64_t room = int64_t{options.batch_size} - static_cast<int64_t>(storage::batch_layout::kHeaderSize);
  return std::max<int64_t>(1, room / (int64_t{options.record_size} + kRecordOverhead));
}

struct BrokerResult : WorkerReport {
  int64_t records_sent = 0;
  int64_t records_acked = 0;
  int64_t records_failed = 0;  // in batches a partition answered with an error
  int64_t batch_bytes_acked = 0;
  int64_t requests = 0;
  int64_t partition_errors = 0;
  std::vector<std::string> errors_shown;

  void Add(BrokerResult& other) {
    records_sent += other.records_sent;
    records_acked += other.records_acked;
    records_failed += other.records_failed;
    batch_bytes_acked += other.batch_bytes_acked;
    requests += other.requests;
    partition_errors += other.partition_errors;
    for (auto& e : other.errors_shown) {
      if (errors_shown.size() < kMaxErrorsShown) errors_shown.push_back(std::move(e));
    }
  }
};

// Produces the partitions one leader leads. Run() starts the reader thread, writes
// every request and returns once the last response is read (or the connection failed).
class BrokerProducer {
 public:
  BrokerProducer(const ProduceOptions& options, BrokerConnection broker, std::vector<PartitionLoad> loads,
                 const std::string& value_pool, double records_per_second)
      : options_(options),
        broker_(std::move(broker)),
        loads_(std::move(loads)),
        value_pool_(value_pool),
        records_per_second_(records_per_second) {}

  // `start`: the moment --throughput counts from.
  BrokerResult Run(Clock::time_point start) {
    start_ = start;
    std::thread reader;
    if (options_.acks != 0) reader = std::thread([this] { ReadResponses(); });
    WriteRequests();
    {
      absl::MutexLock lock(&mutex_);
      writer_done_ = true;  // wakes the reader's Await
    }
    if (reader.joinable()) reader.join();
    absl::MutexLock lock(&mutex_);
    return std::move(result_);
  }

 private:
  // One batch per partition with records left, each of up to RecordsPerBatch records.
  std::string BuildRequest(InFlight* carried) {
    kafka::ProduceRequest request;
    request.acks = options_.acks;
    request.timeout_ms = options_.timeout_ms;
    kafka::ProduceRequest::Topic topic;
    topic.name = options_.topic;
    const int64_t now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (PartitionLoad& load : loads_) {
      if (load.records_left == 0) continue;
      int64_t n = std::min<int64_t>(load.records_left, RecordsPerBatch(options_));
      storage::RecordBatchBuilder builder;
      for (int64_t i = 0; i < n; ++i) {
        size_t at = static_cast<size_t>(value_cursor_++ * 4099 % kValuePoolExtra);
        builder.Add(std::nullopt, absl::string_view(value_pool_).substr(at, options_.record_size), now_ms);
      }
      std::string batch = builder.Build();
      carried->batches.push_back({load.partition, n, static_cast<int64_t>(batch.size())});
      topic.partition_data.push_back({load.partition, std::move(batch)});
      load.records_left -= n;
    }
    request.topic_data.push_back(std::move(topic));
    std::string body;
    kafka::Writer writer(&body);
    kafka::WriteProduceRequest(request, broker_.versions.produce, writer);
    return body;
  }

  void Fail(absl::Status status) {
    {
      absl::MutexLock lock(&mutex_);  // its release wakes the other thread's Await
      if (result_.failure.ok()) result_.failure = std::move(status);
    }
    broker_.connection->Shutdown();  // wakes the other thread from its socket call
  }

  bool Failed() {
    absl::MutexLock lock(&mutex_);
    return !result_.failure.ok();
  }

  void WriteRequests() {
    const auto api_key = static_cast<int16_t>(kafka::ApiKey::kProduce);
    while (!Failed()) {
      bool any_left =
          std::any_of(loads_.begin(), loads_.end(), [](const PartitionLoad& l) { return l.records_left > 0; });
      if (!any_left) return;
      if (records_per_second_ > 0) {
        auto due = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                static_cast<double>(records_built_) / records_per_second_));
        std::this_thread::sleep_until(due);
      }
      InFlight carried;
      std::string body = BuildRequest(&carried);
      for (const CarriedBatch& b : carried.batches) records_built_ += b.records;
      {
        absl::MutexLock lock(&mutex_);
        auto room = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
          return !result_.failure.ok() || in_flight_.size() < static_cast<size_t>(options_.max_in_flight);
        };
        mutex_.Await(absl::Condition(&room));
        if (!result_.failure.ok()) return;
      }
      carried.sent = Clock::now();
      auto sent = broker_.connection->Send(api_key, broker_.versions.produce, body, options_.acks != 0);
      if (!sent.ok()) return Fail(sent.status());
      absl::MutexLock lock(&mutex_);
      ++result_.requests;
      for (const CarriedBatch& b : carried.batches) {
        result_.records_sent += b.records;
        if (options_.acks == 0) {  // no response comes: sent is all there is
          result_.records_acked += b.records;
          result_.batch_bytes_acked += b.bytes;
        }
      }
      if (options_.acks != 0) in_flight_.push_back(std::move(carried));
    }
  }

  void ReadResponses() {
    while (true) {
      InFlight request;
      {
        absl::MutexLock lock(&mutex_);
        auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
          return !result_.failure.ok() || !in_flight_.empty() || writer_done_;
        };
        mutex_.Await(absl::Condition(&ready));
        if (!result_.failure.ok() || in_flight_.empty()) return;  // failed, or done with nothing left
        request = in_flight_.front();
      }
      auto response = broker_.connection->Receive();
      auto received = Clock::now();
      if (!response.ok()) return Fail(response.status());
      const int16_t version = broker_.versions.produce;
      auto decoded = DecodeResponse(*response, broker_.connection->name(),
                                    [&](kafka::Reader& r) { return kafka::ReadProduceResponse(r, version); });
      if (!decoded.ok()) return Fail(decoded.status());
      if (absl::Status s = Account(request, *decoded, *response, received); !s.ok()) return Fail(s);
    }
  }

  // Counts a response's outcome per batch. An answer missing a partition is a bad response.
  absl::Status Account(const InFlight& request, const kafka::ProduceResponse& decoded, const KafkaResponse& response,
                       Clock::time_point received) {
    absl::MutexLock lock(&mutex_);
    for (const CarriedBatch& batch : request.batches) {
      const kafka::ProduceResponse::Partition* answer = nullptr;
      for (const auto& t : decoded.responses) {
        if (t.name != options_.topic) continue;
        for (const auto& p : t.partition_responses) {
          if (p.index == batch.partition) answer = &p;
        }
      }
      if (answer == nullptr) {
        return BadResponse(response, broker_.connection->name(),
                           absl::StrCat("no answer for ", options_.topic, "-", batch.partition));
      }
      if (answer->error_code == 0) {
        result_.records_acked += batch.records;
        result_.batch_bytes_acked += batch.bytes;
        continue;
      }
      result_.records_failed += batch.records;
      ++result_.partition_errors;
      if (result_.errors_shown.size() < kMaxErrorsShown) {
        result_.errors_shown.push_back(absl::StrCat(options_.topic, "-", batch.partition, ": ",
                                                    KafkaErrorText(answer->error_code),
                                                    answer->error_message ? ": " + *answer->error_message : ""));
      }
    }
    result_.latencies_ns.push_back(
        std::chrono::duration_cast<std::chrono::nanoseconds>(received - request.sent).count());
    in_flight_.pop_front();
    return absl::OkStatus();
  }

  const ProduceOptions& options_;
  BrokerConnection broker_;
  std::vector<PartitionLoad> loads_;  // writer thread only
  const std::string& value_pool_;
  Clock::time_point start_;          // set by Run
  const double records_per_second_;  // this connection's share of --throughput; <= 0: no cap
  int64_t records_built_ = 0;        // writer thread only
  uint64_t value_cursor_ = 0;        // writer thread only

  // Waits are Mutex::Await on conditions over these: every release re-checks them.
  absl::Mutex mutex_;
  std::deque<InFlight> in_flight_ ABSL_GUARDED_BY(mutex_);
  bool writer_done_ ABSL_GUARDED_BY(mutex_) = false;
  BrokerResult result_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace

int RunProduce(const ProduceOptions& options, std::ostream& out, std::ostream& err) {
  const auto timeout = std::chrono::milliseconds(options.timeout_ms);
  TopicMetadata metadata;
  std::vector<PartitionInfo> partitions;
  if (auto code = ResolveTopic(options.bootstrap_servers, options.topic, options.partitions, timeout, options.security,
                               err, &metadata, &partitions)) {
    return *code;
  }

  // N records spread evenly over the partitions, the first ones taking the remainder.
  const int64_t count = static_cast<int64_t>(partitions.size());
  std::map<int32_t, int64_t> share;
  for (int64_t i = 0; i < count; ++i) {
    share[partitions[i].partition] = options.num_records / count + (i < options.num_records % count ? 1 : 0);
  }

  std::mt19937_64 random(20240601);
  std::string value_pool(static_cast<size_t>(options.record_size) + kValuePoolExtra, '\0');
  for (char& c : value_pool) c = static_cast<char>(random());

  std::vector<std::unique_ptr<BrokerProducer>> producers;
  std::map<int32_t, std::vector<PartitionInfo>> by_leader = GroupByLeader(partitions);
  int16_t produce_version = -1;
  for (const auto& [leader, led] : by_leader) {
    auto broker = ConnectLeader(
        metadata, leader, timeout, [](const ApiVersionSet& v) { return v.produce >= 0; }, "Produce v3-v9", err);
    if (!broker) return kExitFailed;
    produce_version = broker->versions.produce;
    std::vector<PartitionLoad> loads;
    int64_t records = 0;
    for (const PartitionInfo& p : led) {
      loads.push_back({p.partition, share[p.partition]});
      records += share[p.partition];
    }
    double rate = options.throughput > 0 && options.num_records > 0
                      ? options.throughput * static_cast<double>(records) / static_cast<double>(options.num_records)
                      : -1;
    producers.push_back(
        std::make_unique<BrokerProducer>(options, std::move(*broker), std::move(loads), value_pool, rate));
  }

  RunTotals<BrokerResult> run =
      RunWorkers<BrokerResult>(producers, [](BrokerProducer& p, Clock::time_point began) { return p.Run(began); });
  const BrokerResult& total = run.total;
  const std::vector<std::string>& failures = run.failures;
  const double seconds = run.seconds;
  const double records_per_s = run.PerSecond(static_cast<double>(total.records_acked));
  const double payload_mb_per_s = Megabytes(records_per_s * options.record_size);
  const double batch_mb_per_s = run.PerSecond(Megabytes(static_cast<double>(total.batch_bytes_acked)));
  const int64_t records_per_batch = RecordsPerBatch(options);

  if (options.json) {
    nlohmann::json j = {{"command", "produce"},
                        {"topic", options.topic},
                        {"partitions", count},
                        {"brokers", producers.size()},
                        {"produce_version", produce_version},
                        {"acks", options.acks},
                        {"record_size", options.record_size},
                        {"records_per_batch", records_per_batch},
                        {"max_in_flight", options.max_in_flight},
                        {"records_sent", total.records_sent},
                        {"records_acked", total.records_acked},
                        {"records_failed", total.records_failed},
                        {"partition_errors", total.partition_errors},
                        {"errors", total.errors_shown},
                        {"requests", total.requests},
                        {"records_per_s", records_per_s},
                        {"mb_per_s", payload_mb_per_s},
                        {"batch_mb_per_s", batch_mb_per_s}};
    j.update(run.Json("request_latency"));
    out << j.dump() << "\n";
  } else {
    out << absl::StrFormat(
        "%d records sent, %d acknowledged in %.3f s: %.1f records/s (%.2f MB/s of values, %.2f MB/s of batches)\n",
        total.records_sent, total.records_acked, seconds, records_per_s, payload_mb_per_s, batch_mb_per_s);
    out << absl::StrFormat(
        "%d Produce v%d requests, acks=%d, %d records of %d bytes per batch, up to %d in flight "
        "per connection, %d partition(s) on %d broker(s)\n",
        total.requests, produce_version, options.acks, records_per_batch, options.record_size, options.max_in_flight,
        count, producers.size());
    if (options.acks == 0) {
      out << "request latency: not measured (acks=0: no responses)\n";
    } else {
      out << "request latency (send to response; per request, not per record as kafka-producer-perf-test "
             "reports it): "
          << FormatLatency(run.latency, "requests") << "\n";
    }
  }
  for (const std::string& e : total.errors_shown) err << "strata-perf: error: " << e << "\n";
  if (total.partition_errors > static_cast<int64_t>(total.errors_shown.size())) {
    err << "strata-perf: ... " << total.partition_errors - static_cast<int64_t>(total.errors_shown.size())
        << " more partition errors\n";
  }
  for (const std::string& f : failures) err << "strata-perf: " << f << "\n";
  if (total.partition_errors > 0) {
    err << "strata-perf: " << total.records_failed << " records in " << total.partition_errors
        << " batches were refused\n";
  }
  return failures.empty() && total.partition_errors == 0 ? kExitOk : kExitFailed;
}

}  // namespace strata::tools::perf
