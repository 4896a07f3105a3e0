#pragma once
// strata-perf: producer and consumer load over the Kafka protocol, the counterpart of
// kafka-producer-perf-test and kafka-consumer-perf-test (tools/README.md).
//   produce — Produce requests of record batches, pipelined on one connection per
//             leader; prints records/s, MB/s and per-request latency percentiles
//   consume — ListOffsets, then Fetch from each leader up to the end offsets seen at
//             the start, validating every batch; prints records/s, MB/s and per-fetch
//             latency percentiles
// Each command returns a process exit code (ExitCode); figures go to `out`, problems to
// `err`. Not thread-safe (each Run call owns the threads it starts).

#include <cstdint>
#include <ostream>
#include <string>

#include "client/client_security.h"

namespace strata::tools::perf {

enum ExitCode : int {
  kExitOk = 0,      // done; every request answered without an error
  kExitFailed = 1,  // a connection failed, a response was bad, or partitions answered errors
  kExitUsage = 2,   // bad arguments, or a topic or partition that does not exist
};

struct CommonOptions {
  std::string bootstrap_servers;  // host:port,...
  std::string topic;
  std::string partitions = "all";  // "all" or "0,2,5"
  bool json = false;               // one JSON object on stdout instead of the human lines
  int32_t timeout_ms = 30'000;     // the longest wait for any response
  // --command-config: security.protocol, ssl.*, sasl.* (client/client_security.h),
  // read into `security` before the command runs.
  std::string command_config;
  client::ClientSecurity security;
};

struct ProduceOptions : CommonOptions {
  int64_t num_records = 0;
  int32_t record_size = 1024;  // value bytes per record (the key is null)
  int32_t batch_size = 16384;  // bytes per record batch, as Kafka's batch.size
  int16_t acks = 1;            // 0, 1 or -1 (all)
  int32_t max_in_flight = 5;   // pipelined Produce requests per connection
  double throughput = -1;      // records/s cap over all partitions; -1: none
};
int RunProduce(const ProduceOptions& options, std::ostream& out, std::ostream& err);

struct ConsumeOptions : CommonOptions {
  int64_t num_records = -1;               // stop after this many; -1: up to the end offsets at start
  int32_t fetch_max_bytes = 50 << 20;     // Fetch max_bytes (Kafka's fetch.max.bytes)
  int32_t partition_max_bytes = 1 << 20;  // per partition (max.partition.fetch.bytes)
  int32_t max_wait_ms = 500;              // Fetch max_wait_ms (fetch.max.wait.ms)
  bool fetch_sessions = true;             // incremental fetch sessions (KIP-227), as the Java consumer
};
int RunConsume(const ConsumeOptions& options, std::ostream& out, std::ostream& err);

// Opens num_connections connections to the first bootstrap server one after another
// (TCP, TLS and SASL as the client config says, then ApiVersions) and closes each;
// prints their latency. The topic and partitions are not used.
struct ConnectOptions : CommonOptions {
  int64_t num_connections = 100;
};
int RunConnect(const ConnectOptions& options, std::ostream& out, std::ostream& err);

}  // namespace strata::tools::perf
