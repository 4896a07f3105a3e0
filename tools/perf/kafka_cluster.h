#pragma once
// What strata-perf learns from a cluster before it measures anything: the API versions
// a broker and strata-perf share (ApiVersions), and a topic's partitions with their
// leaders and the leaders' addresses (Metadata). Connections opened here negotiate
// their versions first, as Kafka clients do.
// Not thread-safe (values and functions; each connection belongs to its caller).

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "proto/kafka/wire.h"
#include "client/kafka_connection.h"

namespace strata::tools::perf {

using client::KafkaConnection;
using client::KafkaResponse;
using client::ParseHostPort;

// The version of each API strata-perf uses: the highest both sides implement within
// strata-perf's own range (Metadata 1-12, Produce 3-9, Fetch 4-12 — v13 names topics
// by id — and ListOffsets 1-8); -1 when the broker has none of them.
struct ApiVersionSet {
  int16_t metadata = -1;
  int16_t produce = -1;
  int16_t fetch = -1;
  int16_t list_offsets = -1;
};

struct BrokerConnection {
  std::unique_ptr<KafkaConnection> connection;
  ApiVersionSet versions;
};

// Connects to host:port (TLS and SASL as `security` says) and negotiates versions with
// ApiVersions v3.
absl::StatusOr<BrokerConnection> ConnectBroker(const std::string& host, int port, std::chrono::milliseconds timeout,
                                               const client::ClientSecurity& security);

struct BrokerAddress {
  std::string host;
  int port = 0;
};

struct PartitionInfo {
  int32_t partition = 0;
  int32_t leader_id = -1;
  int32_t leader_epoch = -1;
};

struct TopicMetadata {
  std::string topic;
  std::map<int32_t, BrokerAddress> brokers;  // by node id, on the listener asked
  std::vector<PartitionInfo> partitions;     // by partition index
  client::ClientSecurity security;           // how the brokers were reached (and are again)
};

// Asks the first of `bootstrap_servers` (host:port,...) that answers for `topic`. A
// topic error (UNKNOWN_TOPIC_OR_PARTITION, ...) or a partition without a leader is an
// error naming it.
absl::StatusOr<TopicMetadata> FetchTopicMetadata(absl::string_view bootstrap_servers, const std::string& topic,
                                                 std::chrono::milliseconds timeout,
                                                 const client::ClientSecurity& security);

// `spec` is "all" or a comma-separated list of partition indexes of the topic.
absl::StatusOr<std::vector<PartitionInfo>> SelectPartitions(const TopicMetadata& metadata, absl::string_view spec);

// FetchTopicMetadata then SelectPartitions, as both commands start: on failure prints
// the reason to err and returns the exit code (kExitUsage for an unknown topic or
// partition, kExitFailed otherwise); nullopt when *metadata and *partitions are set.
std::optional<int> ResolveTopic(absl::string_view bootstrap_servers, const std::string& topic,
                                absl::string_view partition_spec, std::chrono::milliseconds timeout,
                                const client::ClientSecurity& security, std::ostream& err, TopicMetadata* metadata,
                                std::vector<PartitionInfo>* partitions);

// The selected partitions grouped by leader node id.
std::map<int32_t, std::vector<PartitionInfo>> GroupByLeader(const std::vector<PartitionInfo>& partitions);

// "NAME (code)" for a Kafka error code, for messages.
std::string KafkaErrorText(int16_t code);

// Not for direct use: the error DecodeResponse returns.
absl::Status BadResponse(const KafkaResponse& response, const std::string& broker, absl::string_view why);

// Decodes a response body with `read` (Reader& -> StatusOr<Response>) and insists it
// used every byte: anything else means the versions or the stream are out of step.
// Errors name the broker and the API.
template <typename Read>
auto DecodeResponse(const KafkaResponse& response, const std::string& broker, Read read)
    -> decltype(read(std::declval<proto::kafka::Reader&>())) {
  proto::kafka::Reader reader(response.body());
  auto decoded = read(reader);
  if (!decoded.ok()) return BadResponse(response, broker, decoded.status().message());
  if (reader.remaining() != 0) return BadResponse(response, broker, "bytes left over after the response");
  return decoded;
}

}  // namespace strata::tools::perf
