#include "tools/perf/kafka_cluster.h"

#include "tools/perf/perf_tool.h"

#include <algorithm>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proto/kafka/api.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/metadata.h"

namespace strata::tools::perf {

namespace kafka = strata::proto::kafka;

namespace {

constexpr int16_t kApiVersionsVersion = 3;

// The highest version in [ours_min, ours_max] the broker also implements, or -1.
int16_t Pick(const kafka::ApiVersionsResponse& broker, kafka::ApiKey key, int16_t ours_min, int16_t ours_max) {
  for (const kafka::ApiVersionRange& range : broker.api_keys) {
    if (range.api_key != static_cast<int16_t>(key)) continue;
    int16_t high = std::min(range.max_version, ours_max);
    int16_t low = std::max(range.min_version, ours_min);
    return high >= low ? high : -1;
  }
  return -1;
}

}  // namespace

std::string KafkaErrorText(int16_t code) {
  return absl::StrCat(kafka::ErrorName(static_cast<kafka::ErrorCode>(code)), " (", code, ")");
}

absl::Status BadResponse(const KafkaResponse& response, const std::string& broker, absl::string_view why) {
  return absl::DataLossError(absl::StrCat("bad ", kafka::ApiName(response.api_key), " v", response.api_version,
                                          " response from ", broker, ": ", why));
}

absl::StatusOr<BrokerConnection> ConnectBroker(const std::string& host, int port, std::chrono::milliseconds timeout,
                                               const client::ClientSecurity& security) {
  auto connection = KafkaConnection::Connect(host, port, timeout, security);
  if (!connection.ok()) return connection.status();
  std::string body;
  kafka::Writer writer(&body);
  kafka::WriteApiVersionsRequest({"strata-perf", "1.0"}, kApiVersionsVersion, writer);
  auto answer = (*connection)->Call(static_cast<int16_t>(kafka::ApiKey::kApiVersions), kApiVersionsVersion, body);
  if (!answer.ok()) return answer.status();
  auto versions = DecodeResponse(*answer, (*connection)->name(), [](kafka::Reader& r) {
    return kafka::ReadApiVersionsResponse(r, kApiVersionsVersion);
  });
  if (!versions.ok()) return versions.status();
  if (versions->error_code != 0) {
    return absl::FailedPreconditionError(absl::StrCat((*connection)->name(), " refused ApiVersions v",
                                                      kApiVersionsVersion, ": ", KafkaErrorText(versions->error_code)));
  }
  BrokerConnection out;
  out.connection = std::move(*connection);
  out.versions.metadata = Pick(*versions, kafka::ApiKey::kMetadata, 1, 12);
  out.versions.produce = Pick(*versions, kafka::ApiKey::kProduce, 3, 9);
  out.versions.fetch = Pick(*versions, kafka::ApiKey::kFetch, 4, 12);
  out.versions.list_offsets = Pick(*versions, kafka::ApiKey::kListOffsets, 1, 8);
  return out;
}

absl::StatusOr<TopicMetadata> FetchTopicMetadata(absl::string_view bootstrap_servers, const std::string& topic,
                                                 std::chrono::milliseconds timeout,
                                                 const client::ClientSecurity& security) {
  std::string failures;
  for (absl::string_view server : absl::StrSplit(bootstrap_servers, ',', absl::SkipWhitespace())) {
    std::string host;
    int port = 0;
    if (absl::Status s = ParseHostPort(server, &host, &port); !s.ok()) return s;
    auto broker = ConnectBroker(host, port, timeout, security);
    if (!broker.ok()) {
      absl::StrAppend(&failures, failures.empty() ? "" : "; ", broker.status().message());
      continue;
    }
    int16_t version = broker->versions.metadata;
    if (version < 0) return absl::FailedPreconditionError(absl::StrCat(server, " does not serve Metadata v1-v12"));
    kafka::MetadataRequest request;
    kafka::MetadataRequest::Topic wanted;
    wanted.name = topic;
    request.topics = std::vector<kafka::MetadataRequest::Topic>{wanted};
    request.allow_auto_topic_creation = false;
    std::string body;
    kafka::Writer writer(&body);
    kafka::WriteMetadataRequest(request, version, writer);
    auto answer = broker->connection->Call(static_cast<int16_t>(kafka::ApiKey::kMetadata), version, body);
    if (!answer.ok()) return answer.status();
    auto response = DecodeResponse(*answer, broker->connection->name(),
                                   [&](kafka::Reader& r) { return kafka::ReadMetadataResponse(r, version); });
    if (!response.ok()) return response.status();

    TopicMetadata out;
    out.topic = topic;
    out.security = security;
    for (const auto& b : response->brokers) out.brokers[b.node_id] = BrokerAddress{b.host, b.port};
    const kafka::MetadataResponse::Topic* found = nullptr;
    for (const auto& t : response->topics) {
      if (t.name == topic) found = &t;
    }
    if (found == nullptr) return absl::DataLossError(absl::StrCat("Metadata from ", server, " left out topic ", topic));
    if (found->error_code != 0) {
      return absl::NotFoundError(absl::StrCat("topic ", topic, ": ", KafkaErrorText(found->error_code)));
    }
    for (const auto& p : found->partitions) {
      if (p.error_code != 0 || p.leader_id < 0) {
        return absl::UnavailableError(
            absl::StrCat(topic, "-", p.partition_index, " has no leader: ", KafkaErrorText(p.error_code)));
      }
      if (!out.brokers.contains(p.leader_id)) {
        return absl::DataLossError(absl::StrCat(topic, "-", p.partition_index, ": leader ", p.leader_id,
                                                " is not among the brokers Metadata lists"));
      }
      out.partitions.push_back(PartitionInfo{p.partition_index, p.leader_id, p.leader_epoch});
    }
    std::sort(out.partitions.begin(), out.partitions.end(),
              [](const PartitionInfo& a, const PartitionInfo& b) { return a.partition < b.partition; });
    if (out.partitions.empty()) return absl::NotFoundError(absl::StrCat("topic ", topic, " has no partitions"));
    return out;
  }
  if (failures.empty()) return absl::InvalidArgumentError("no bootstrap server given");
  return absl::UnavailableError(absl::StrCat("no bootstrap server answered: ", failures));
}

absl::StatusOr<std::vector<PartitionInfo>> SelectPartitions(const TopicMetadata& metadata, absl::string_view spec) {
  if (spec == "all") return metadata.partitions;
  std::vector<PartitionInfo> out;
  std::set<int32_t> seen;
  for (absl::string_view item : absl::StrSplit(spec, ',', absl::SkipWhitespace())) {
    int32_t index = 0;
    if (!absl::SimpleAtoi(item, &index)) {
      return absl::InvalidArgumentError(absl::StrCat("--partitions: '", item, "' is not a partition index"));
    }
    auto it = std::find_if(metadata.partitions.begin(), metadata.partitions.end(),
                           [&](const PartitionInfo& p) { return p.partition == index; });
    if (it == metadata.partitions.end()) {
      return absl::InvalidArgumentError(absl::StrCat("--partitions: ", metadata.topic, " has no partition ", index));
    }
    if (seen.insert(index).second) out.push_back(*it);
  }
  if (out.empty()) return absl::InvalidArgumentError("--partitions: no partition given");
  return out;
}

std::map<int32_t, std::vector<PartitionInfo>> GroupByLeader(const std::vector<PartitionInfo>& partitions) {
  std::map<int32_t, std::vector<PartitionInfo>> out;
  for (const PartitionInfo& p : partitions) out[p.leader_id].push_back(p);
  return out;
}

std::optional<int> ResolveTopic(absl::string_view bootstrap_servers, const std::string& topic,
                                absl::string_view partition_spec, std::chrono::milliseconds timeout,
                                const client::ClientSecurity& security, std::ostream& err, TopicMetadata* metadata,
                                std::vector<PartitionInfo>* partitions) {
  auto fetched = FetchTopicMetadata(bootstrap_servers, topic, timeout, security);
  if (!fetched.ok()) {
    err << "strata-perf: " << fetched.status().message() << "\n";
    return absl::IsNotFound(fetched.status()) ? kExitUsage : kExitFailed;
  }
  auto selected = SelectPartitions(*fetched, partition_spec);
  if (!selected.ok()) {
    err << "strata-perf: " << selected.status().message() << "\n";
    return kExitUsage;
  }
  *metadata = std::move(*fetched);
  *partitions = std::move(*selected);
  return std::nullopt;
}

}  // namespace strata::tools::perf
