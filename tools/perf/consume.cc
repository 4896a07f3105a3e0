// strata-perf consume: ListOffsets (earliest, latest) from each leader, then Fetch from
// each leader on its own connection and thread until every partition is read up to the
// end offset it had at the start (or --num-records are read).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "client/fetch_session_handler.h"
#include "proto/kafka/api.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/fetch.h"
#include "proto/kafka/list_offsets.h"
#include "storage/record_batch.h"
#include "tools/perf/kafka_cluster.h"
#include "tools/perf/latency.h"
#include "tools/perf/perf_tool.h"
#include "tools/perf/run_loop.h"

namespace strata::tools::perf {

namespace {

namespace kafka = strata::proto::kafka;
using Clock = std::chrono::steady_clock;

struct PartitionRange {
  int32_t partition = 0;
  int64_t position = 0;    // the next offset to read
  int64_t end_offset = 0;  // the log end (high watermark) when the run started
};

struct ConsumerResult : WorkerReport {
  int64_t records = 0;
  int64_t batches = 0;
  int64_t batch_bytes = 0;
  int64_t fetches = 0;

  void Add(const ConsumerResult& other) {
    records += other.records;
    batches += other.batches;
    batch_bytes += other.batch_bytes;
    fetches += other.fetches;
  }
};

// The offsets of `timestamp` (earliest / latest) for the partitions one broker leads.
absl::StatusOr<std::map<int32_t, int64_t>> ListOffsets(BrokerConnection& broker, const std::string& topic,
                                                       const std::vector<PartitionInfo>& partitions,
                                                       int64_t timestamp) {
  const int16_t version = broker.versions.list_offsets;
  kafka::ListOffsetsRequest request;
  kafka::ListOffsetsRequest::Topic t;
  t.name = topic;
  for (const PartitionInfo& p : partitions) t.partitions.push_back({p.partition, -1, timestamp});
  request.topics.push_back(std::move(t));
  std::string body;
  kafka::Writer writer(&body);
  kafka::WriteListOffsetsRequest(request, version, writer);
  auto answer = broker.connection->Call(static_cast<int16_t>(kafka::ApiKey::kListOffsets), version, body);
  if (!answer.ok()) return answer.status();
  auto response = DecodeResponse(*answer, broker.connection->name(),
                                 [&](kafka::Reader& r) { return kafka::ReadListOffsetsResponse(r, version); });
  if (!response.ok()) return response.status();
  std::map<int32_t, int64_t> offsets;
  for (const auto& rt : response->topics) {
    if (rt.name != topic) continue;
    for (const auto& p : rt.partitions) {
      if (p.error_code != 0) {
        return absl::UnavailableError(absl::StrCat("ListOffsets ", topic, "-", p.partition_index, " from ",
                                                   broker.connection->name(), ": ", KafkaErrorText(p.error_code)));
      }
      offsets[p.partition_index] = p.offset;
    }
  }
  for (const PartitionInfo& p : partitions) {
    if (!offsets.contains(p.partition)) {
      return BadResponse(*answer, broker.connection->name(), absl::StrCat("no offset for ", topic, "-", p.partition));
    }
  }
  return offsets;
}

// Fetches the partitions one broker leads, one Fetch at a time.
class BrokerConsumer {
 public:
  BrokerConsumer(const ConsumeOptions& options, BrokerConnection broker, std::vector<PartitionRange> ranges,
                 std::atomic<int64_t>& consumed)
      : options_(options), broker_(std::move(broker)), ranges_(std::move(ranges)), consumed_(consumed) {}

  ConsumerResult Run() {
    result_.failure = FetchAll();
    return std::move(result_);
  }

 private:
  bool LimitReached() const { return options_.num_records >= 0 && consumed_.load() >= options_.num_records; }

  absl::Status FetchAll() {
    const int16_t version = broker_.versions.fetch;
    const auto api_key = static_cast<int16_t>(kafka::ApiKey::kFetch);
    auto last_progress = Clock::now();
    client::FetchSessionHandler session(options_.fetch_sessions && version >= 7);
    while (!LimitReached()) {
      kafka::FetchRequest request;
      request.max_wait_ms = options_.max_wait_ms;
      request.min_bytes = 1;
      request.max_bytes = options_.fetch_max_bytes;
      std::map<client::FetchSessionHandler::Key, kafka::FetchRequest::Partition> wanted;
      for (const PartitionRange& r : ranges_) {
        if (r.position >= r.end_offset) continue;
        kafka::FetchRequest::Partition p;
        p.partition = r.partition;
        p.fetch_offset = r.position;
        p.partition_max_bytes = options_.partition_max_bytes;
        wanted.emplace(client::FetchSessionHandler::Key{options_.topic, r.partition}, p);
      }
      if (wanted.empty()) return absl::OkStatus();
      session.Build(wanted, request);
      std::string body;
      kafka::Writer writer(&body);
      kafka::WriteFetchRequest(request, version, writer);

      auto sent = Clock::now();
      auto answer = broker_.connection->Call(api_key, version, body);
      auto received = Clock::now();
      if (!answer.ok()) return answer.status();
      result_.latencies_ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(received - sent).count());
      ++result_.fetches;
      auto response = DecodeResponse(*answer, broker_.connection->name(),
                                     [&](kafka::Reader& r) { return kafka::ReadFetchResponse(r, version); });
      if (!response.ok()) return response.status();
      if (absl::Status s = session.HandleResponse(*response); !s.ok()) {
        auto code = static_cast<kafka::ErrorCode>(response->error_code);
        if (code == kafka::ErrorCode::kFetchSessionIdNotFound || code == kafka::ErrorCode::kInvalidFetchSessionEpoch) {
          continue;  // the broker dropped the session: the next fetch is full and opens another
        }
        return absl::UnavailableError(absl::StrCat("Fetch from ", broker_.connection->name(), ": ", s.message()));
      }
      bool moved = false;
      for (const auto& t : response->responses) {
        if (t.topic != options_.topic) {
          return BadResponse(*answer, broker_.connection->name(),
                             absl::StrCat("topic ", t.topic, " was not asked for"));
        }
        for (const auto& p : t.partitions) {
          auto range = std::find_if(ranges_.begin(), ranges_.end(),
                                    [&](const PartitionRange& r) { return r.partition == p.partition_index; });
          if (range == ranges_.end()) {
            return BadResponse(*answer, broker_.connection->name(),
                               absl::StrCat("partition ", p.partition_index, " was not asked for"));
          }
          if (p.error_code != 0) {
            return absl::UnavailableError(absl::StrCat("Fetch ", options_.topic, "-", p.partition_index, " at offset ",
                                                       range->position, " from ", broker_.connection->name(), ": ",
                                                       KafkaErrorText(p.error_code)));
          }
          if (!p.records) continue;
          int64_t before = range->position;
          if (absl::Status s = Consume(*p.records, *range); !s.ok()) return s;
          moved = moved || range->position > before;
        }
      }
      if (moved) last_progress = received;
      if (received - last_progress > std::chrono::milliseconds(options_.timeout_ms)) {
        std::string where;
        for (const PartitionRange& r : ranges_) {
          if (r.position < r.end_offset)
            absl::StrAppend(&where, " ", options_.topic, "-", r.partition, "@", r.position);
        }
        return absl::DeadlineExceededError(absl::StrCat("no progress from ", broker_.connection->name(), " within ",
                                                        options_.timeout_ms, " ms; still to read:", where));
      }
    }
    return absl::OkStatus();
  }

  // Validates the batches of one partition's record data and counts the records in
  // [position, end offset). A batch cut short at the end of the data (a broker may
  // return one, up to partition_max_bytes) ends the data, as in Kafka's consumer.
  absl::Status Consume(absl::string_view data, PartitionRange& range) {
    size_t at = 0;
    while (data.size() - at >= storage::batch_layout::kHeaderSize) {
      auto header = storage::RecordBatchHeader::Parse(data.data() + at);
      constexpr int32_t kMinBatchLength = storage::batch_layout::kHeaderSize - storage::batch_layout::kLogOverhead;
      const bool frames = header.batch_length >= kMinBatchLength;
      if (frames && static_cast<uint64_t>(header.size_in_bytes()) > data.size() - at) break;  // cut short
      // A batchLength that frames nothing: validation below names the problem.
      absl::string_view batch =
          data.substr(at, frames ? static_cast<size_t>(header.size_in_bytes()) : data.size() - at);
      std::string where = absl::StrCat(options_.topic, "-", range.partition, " batch at offset ", header.base_offset);
      if (absl::Status s = storage::ValidateStoredBatch(batch, where); !s.ok()) return s;
      at += batch.size();
      if (header.last_offset() < range.position) continue;  // before the fetch offset
      if (header.base_offset >= range.end_offset) break;    // appended after the start
      if (!header.is_control()) {
        int64_t records = header.records_count;
        if (header.base_offset < range.position || header.last_offset() >= range.end_offset) {
          // Partly outside the range: offsets in a batch run without gaps unless compacted.
          records =
              std::min(header.last_offset(), range.end_offset - 1) - std::max(header.base_offset, range.position) + 1;
        }
        result_.records += records;
        consumed_.fetch_add(records);
      }
      ++result_.batches;
      result_.batch_bytes += static_cast<int64_t>(batch.size());
      range.position = header.next_offset();
    }
    return absl::OkStatus();
  }

  const ConsumeOptions& options_;
  BrokerConnection broker_;
  std::vector<PartitionRange> ranges_;
  std::atomic<int64_t>& consumed_;  // over all brokers, for --num-records
  ConsumerResult result_;
};

}  // namespace

int RunConsume(const ConsumeOptions& options, std::ostream& out, std::ostream& err) {
  const auto timeout = std::chrono::milliseconds(options.timeout_ms);
  TopicMetadata metadata;
  std::vector<PartitionInfo> partitions;
  if (auto code = ResolveTopic(options.bootstrap_servers, options.topic, options.partitions, timeout, options.security,
                               err, &metadata, &partitions)) {
    return *code;
  }

  std::atomic<int64_t> consumed{0};
  std::vector<std::unique_ptr<BrokerConsumer>> consumers;
  int64_t available = 0;
  int16_t fetch_version = -1;
  for (const auto& [leader, led] : GroupByLeader(partitions)) {
    auto broker = ConnectLeader(
        metadata, leader, timeout, [](const ApiVersionSet& v) { return v.fetch >= 0 && v.list_offsets >= 0; },
        "Fetch v4-v12 and ListOffsets v1-v8", err);
    if (!broker) return kExitFailed;
    fetch_version = broker->versions.fetch;
    auto earliest = ListOffsets(*broker, options.topic, led, kafka::kListOffsetsEarliestTimestamp);
    auto latest =
        earliest.ok() ? ListOffsets(*broker, options.topic, led, kafka::kListOffsetsLatestTimestamp) : earliest;
    if (!latest.ok()) {
      err << "strata-perf: " << latest.status().message() << "\n";
      return kExitFailed;
    }
    std::vector<PartitionRange> ranges;
    for (const PartitionInfo& p : led) {
      ranges.push_back({p.partition, earliest->at(p.partition), latest->at(p.partition)});
      available += std::max<int64_t>(0, latest->at(p.partition) - earliest->at(p.partition));
    }
    consumers.push_back(std::make_unique<BrokerConsumer>(options, std::move(*broker), std::move(ranges), consumed));
  }

  RunTotals<ConsumerResult> run =
      RunWorkers<ConsumerResult>(consumers, [](BrokerConsumer& c, Clock::time_point) { return c.Run(); });
  const ConsumerResult& total = run.total;
  const std::vector<std::string>& failures = run.failures;
  const double seconds = run.seconds;
  const double records_per_s = run.PerSecond(static_cast<double>(total.records));
  const double batch_mb_per_s = run.PerSecond(Megabytes(static_cast<double>(total.batch_bytes)));
  const bool short_of_request = options.num_records > available;

  if (options.json) {
    nlohmann::json j = {{"command", "consume"},
                        {"topic", options.topic},
                        {"partitions", partitions.size()},
                        {"brokers", consumers.size()},
                        {"fetch_version", fetch_version},
                        {"records_available", available},
                        {"records", total.records},
                        {"batches", total.batches},
                        {"batch_bytes", total.batch_bytes},
                        {"fetches", total.fetches},
                        {"records_per_s", records_per_s},
                        {"batch_mb_per_s", batch_mb_per_s}};
    j.update(run.Json("fetch_latency"));
    out << j.dump() << "\n";
  } else {
    out << absl::StrFormat(
        "%d records in %d batches (%.2f MB of batches, CRCs valid) read in %.3f s: %.1f records/s, %.2f MB/s\n",
        total.records, total.batches, Megabytes(static_cast<double>(total.batch_bytes)), seconds, records_per_s,
        batch_mb_per_s);
    out << absl::StrFormat(
        "%d Fetch v%d requests to %d broker(s) for %d partition(s) holding %d records at the start\n", total.fetches,
        fetch_version, consumers.size(), partitions.size(), available);
    out << "fetch latency (request to response): " << FormatLatency(run.latency, "fetches") << "\n";
  }
  if (short_of_request) {
    err << "strata-perf: warning: --num-records " << options.num_records << " asked for, but the partitions held only "
        << available << " at the start\n";
  }
  for (const std::string& f : failures) err << "strata-perf: " << f << "\n";
  return failures.empty() ? kExitOk : kExitFailed;
}

}  // namespace strata::tools::perf
