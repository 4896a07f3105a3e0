#pragma once
// How the strata CLI asks a broker what only a broker knows (a leader's log offsets, the
// groups a coordinator holds): the brokers' endpoints on one listener of the client
// config's security.protocol (PLAINTEXT unless --command-config says otherwise) from the
// controllers' DescribeCluster, and one request-response exchange over the Kafka
// protocol, encoded and decoded with proto/kafka's codecs on a blocking KafkaConnection
// (TLS and SASL as the client config says).
// Not thread-safe: SetBrokerSecurity once, before any command runs; each connection
// belongs to its caller.

#include <chrono>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "admin.pb.h"
#include "client/kafka_connection.h"
#include "proto/kafka/api.h"
#include "proto/kafka/wire.h"

namespace strata::cli {

using Endpoint = std::pair<std::string, int32_t>;  // host, port

// A partition as the CLI's Kafka calls name it.
struct TopicPartition {
  std::string topic;
  int32_t partition = 0;
  auto operator<=>(const TopicPartition&) const = default;
};

// How long a broker may take to answer one request.
inline constexpr std::chrono::seconds kBrokerTimeout{10};

// How this run of the CLI connects to brokers (the client config's security.protocol,
// TLS files and SASL credentials); PLAINTEXT until set.
void SetBrokerSecurity(client::ClientSecurity security);
const client::ClientSecurity& BrokerSecurity();

// Each broker's endpoint on `listener` (by name, e.g. EXTERNAL from outside a compose
// network; its protocol must be BrokerSecurity()'s), or with listener empty its first
// endpoint of BrokerSecurity()'s protocol; a broker without one is left out.
std::map<int32_t, Endpoint> BrokerEndpoints(const admin::v1::DescribeClusterResponse& cluster,
                                            const std::string& listener);

// "host:port", for messages.
std::string HostPort(const Endpoint& endpoint);

absl::StatusOr<std::unique_ptr<client::KafkaConnection>> ConnectBroker(const Endpoint& endpoint);

// Writes `request` at `version`, sends it and reads the response with `read`. A response
// that does not decode is an error naming the broker and the API.
template <typename Response, typename Request>
absl::StatusOr<Response> KafkaCall(client::KafkaConnection& connection, proto::kafka::ApiKey api, int16_t version,
                                   const Request& request,
                                   void (*write)(const Request&, int16_t, proto::kafka::Writer&),
                                   absl::StatusOr<Response> (*read)(proto::kafka::Reader&, int16_t)) {
  std::string body;
  proto::kafka::Writer writer(&body);
  write(request, version, writer);
  const auto key = static_cast<int16_t>(api);
  auto answer = connection.Call(key, version, body);
  if (!answer.ok()) return answer.status();
  proto::kafka::Reader reader(answer->body());
  auto response = read(reader, version);
  if (!response.ok()) {
    return absl::DataLossError(absl::StrCat(connection.name(), " answered a bad ", proto::kafka::ApiName(key), " v",
                                            version, ": ", response.status().message()));
  }
  return response;
}

}  // namespace strata::cli
