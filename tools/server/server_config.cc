#include "tools/server/server_config.h"

#include "storage/log_config.h"

#include <fstream>
#include <map>
#include <set>
#include <type_traits>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace strata::server {

absl::StatusOr<std::map<int32_t, std::string>> ParseQuorumVoters(const std::string& text) {
  std::map<int32_t, std::string> voters;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    std::vector<absl::string_view> id_address = absl::StrSplit(part, absl::MaxSplits('@', 1));
    int32_t id = 0;
    if (id_address.size() != 2 || !absl::SimpleAtoi(id_address[0], &id) || id <= 0) {
      return absl::InvalidArgumentError(absl::StrCat("voter '", part, "' is not <id>@<host>:<port>"));
    }
    absl::string_view address = id_address[1];
    size_t colon = address.rfind(':');
    int port = 0;
    if (colon == absl::string_view::npos || colon == 0 || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
        port <= 0 || port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("voter '", part, "' has no valid host:port"));
    }
    if (!voters.emplace(id, std::string(address)).second) {
      return absl::InvalidArgumentError(absl::StrCat("voter id ", id, " appears twice"));
    }
  }
  if (voters.empty()) return absl::InvalidArgumentError("no voters");
  return voters;
}

absl::StatusOr<ServerConfig> ServerConfig::Parse(const std::string& text, const std::string& file) {
  ServerConfig config;
  std::map<std::string, std::pair<std::string, int>> props;  // key -> (value, line)
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(file, " line ", line_number, ": '", line, "' is not key=value"));
    }
    std::string key(absl::StripAsciiWhitespace(line.substr(0, eq)));
    props[key] = {std::string(absl::StripAsciiWhitespace(line.substr(eq + 1))), line_number};
  }
  auto where = [&](const std::string& key) { return absl::StrCat(file, " line ", props[key].second, ": '", key, "'"); };
  for (const auto& [key, value] : props) {
    static const std::set<std::string> kKnown = {"node.id",
                                                 "process.roles",
                                                 "controller.quorum.voters",
                                                 "metadata.log.dir",
                                                 "controller.quorum.election.timeout.ms",
                                                 "metadata.log.max.record.bytes.between.snapshots",
                                                 "metadata.log.segment.bytes",
                                                 "metrics.listener",
                                                 "broker.session.timeout.ms",
                                                 "num.partitions",
                                                 "default.replication.factor",
                                                 "unclean.leader.election.enable",
                                                 "delete.topic.enable",
                                                 "listeners",
                                                 "log.dirs",
                                                 "broker.rack",
                                                 "broker.heartbeat.interval.ms",
                                                 "num.network.threads",
                                                 "socket.request.max.bytes",
                                                 "connections.max.idle.ms",
                                                 "num.io.threads",
                                                 "inter.broker.listener.name",
                                                 "num.replica.fetchers",
                                                 "replica.fetch.wait.max.ms",
                                                 "replica.fetch.min.bytes",
                                                 "replica.fetch.max.bytes",
                                                 "replica.fetch.response.max.bytes",
                                                 "replica.fetch.backoff.ms",
                                                 "replica.lag.time.max.ms",
                                                 "replica.selector.class",
                                                 "advertised.listeners",
                                                 "auto.create.topics.enable",
                                                 "listener.security.protocol.map",
                                                 "ssl.keystore.location",
                                                 "ssl.keystore.type",
                                                 "ssl.truststore.location",
                                                 "ssl.truststore.type",
                                                 "ssl.client.auth",
                                                 "min.insync.replicas",
                                                 "log.retention.check.interval.ms",
                                                 "replica.high.watermark.checkpoint.interval.ms"};
    if (storage::LogConfig::IsLogSetting(key) && key != "max.message.bytes" && key.rfind("log.", 0) == 0) {
      config.log_settings[key] = value.first;
      continue;
    }
    if (key == "message.max.bytes") {
      config.log_settings[key] = value.first;
      continue;
    }
    if (!kKnown.count(key)) {
      return absl::InvalidArgumentError(absl::StrCat(where(key), " is not a setting strata-server knows"));
    }
  }
  for (const char* required : {"node.id", "process.roles", "controller.quorum.voters", "metadata.log.dir"}) {
    if (!props.count(required)) return absl::InvalidArgumentError(absl::StrCat(file, ": '", required, "' is required"));
  }
  if (!absl::SimpleAtoi(props["node.id"].first, &config.node_id) || config.node_id <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(where("node.id"), " must be a positive integer"));
  }
  config.process_roles = props["process.roles"].first;
  for (absl::string_view role : absl::StrSplit(config.process_roles, ',')) {
    role = absl::StripAsciiWhitespace(role);
    if (role == "controller") {
      config.controller = true;
    } else if (role == "broker") {
      config.broker = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(where("process.roles"), " = '", config.process_roles,
                                                     "': roles are 'broker' and 'controller'"));
    }
  }
  auto voters = ParseQuorumVoters(props["controller.quorum.voters"].first);
  if (!voters.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(where("controller.quorum.voters"), ": ", voters.status().message()));
  }
  config.voters = std::move(*voters);
  if (config.controller && !config.voters.count(config.node_id)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where("controller.quorum.voters"), " does not list node.id ", config.node_id));
  }
  config.metadata_log_dir = props["metadata.log.dir"].first;
  if (config.metadata_log_dir.empty()) return absl::InvalidArgumentError(absl::StrCat(where("metadata.log.dir"), " is empty"));
  // An optional integer setting within [min, max].
  auto integer = [&](const std::string& key, int64_t min, int64_t max, auto* out) -> absl::Status {
    if (!props.count(key)) return absl::OkStatus();
    const std::string& v = props[key].first;
    int64_t parsed = 0;
    if (!absl::SimpleAtoi(v, &parsed) || parsed < min || parsed > max) {
      return absl::InvalidArgumentError(absl::StrCat(where(key), " = '", v, "' must be ", min, "..", max));
    }
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(parsed);
    return absl::OkStatus();
  };
  if (auto s = integer("controller.quorum.election.timeout.ms", 50, 600'000, &config.election_timeout_ms); !s.ok()) return s;
  if (auto s = integer("metadata.log.max.record.bytes.between.snapshots", 1, int64_t{1} << 40, &config.snapshot_bytes);
      !s.ok()) {
    return s;
  }
  // At least the largest entry (1 MiB) plus its batch framing, as Kafka's 8 MiB floor.
  if (auto s = integer("metadata.log.segment.bytes", 2 << 20, int64_t{1} << 40, &config.segment_bytes); !s.ok()) {
    return s;
  }
  if (auto s = integer("broker.session.timeout.ms", 100, 3'600'000, &config.broker_session_timeout_ms); !s.ok()) return s;
  if (auto s = integer("num.partitions", 1, 1'000'000, &config.num_partitions); !s.ok()) return s;
  if (auto s = integer("default.replication.factor", 1, 1000, &config.default_replication_factor); !s.ok()) return s;
  auto boolean = [&](const std::string& key, bool* out) -> absl::Status {
    if (!props.count(key)) return absl::OkStatus();
    const std::string& v = props[key].first;
    if (v != "true" && v != "false") {
      return absl::InvalidArgumentError(absl::StrCat(where(key), " = '", v, "' must be true or false"));
    }
    *out = v == "true";
    return absl::OkStatus();
  };
  if (auto s = boolean("unclean.leader.election.enable", &config.unclean_leader_election_enable); !s.ok()) return s;
  if (auto s = boolean("delete.topic.enable", &config.delete_topic_enable); !s.ok()) return s;
  if (auto s = integer("broker.heartbeat.interval.ms", 10, 600'000, &config.broker_heartbeat_interval_ms); !s.ok()) {
    return s;
  }
  if (auto s = integer("num.network.threads", 1, 256, &config.num_network_threads); !s.ok()) return s;
  if (auto s = integer("socket.request.max.bytes", 1024, INT32_MAX, &config.socket_request_max_bytes); !s.ok()) return s;
  if (auto s = integer("connections.max.idle.ms", 100, INT32_MAX, &config.connections_max_idle_ms); !s.ok()) return s;
  if (auto s = integer("num.io.threads", 1, 256, &config.num_io_threads); !s.ok()) return s;
  if (auto s = integer("min.insync.replicas", 1, 1000, &config.min_insync_replicas); !s.ok()) return s;
  if (auto s = integer("num.replica.fetchers", 1, 64, &config.num_replica_fetchers); !s.ok()) return s;
  if (auto s = integer("replica.fetch.wait.max.ms", 0, 60000, &config.replica_fetch_wait_max_ms); !s.ok()) return s;
  if (auto s = integer("replica.fetch.min.bytes", 1, INT32_MAX, &config.replica_fetch_min_bytes); !s.ok()) return s;
  if (auto s = integer("replica.fetch.max.bytes", 1024, INT32_MAX, &config.replica_fetch_max_bytes); !s.ok()) return s;
  if (auto s = integer("replica.fetch.response.max.bytes", 1024, INT32_MAX, &config.replica_fetch_response_max_bytes);
      !s.ok()) {
    return s;
  }
  if (auto s = integer("replica.fetch.backoff.ms", 1, 600000, &config.replica_fetch_backoff_ms); !s.ok()) return s;
  if (auto s = integer("replica.lag.time.max.ms", 10, INT32_MAX, &config.replica_lag_time_max_ms); !s.ok()) return s;
  if (props.count("replica.selector.class")) {
    config.replica_selector_class = props["replica.selector.class"].first;
    if (!config.replica_selector_class.empty() &&
        config.replica_selector_class != "org.apache.kafka.common.replica.RackAwareReplicaSelector") {
      return absl::InvalidArgumentError(absl::StrCat(
          where("replica.selector.class"), " = '", config.replica_selector_class,
          "': only org.apache.kafka.common.replica.RackAwareReplicaSelector (or empty: the leader) is supported"));
    }
  }
  if (props.count("inter.broker.listener.name")) {
    config.inter_broker_listener_name = props["inter.broker.listener.name"].first;
  }
  if (auto s = integer("log.retention.check.interval.ms", 1, INT32_MAX, &config.log_retention_check_interval_ms);
      !s.ok()) {
    return s;
  }
  if (auto s = integer("replica.high.watermark.checkpoint.interval.ms", 1, INT32_MAX,
                       &config.replica_high_watermark_checkpoint_interval_ms);
      !s.ok()) {
    return s;
  }
  if (auto checked = storage::LogConfig::FromProperties(config.log_settings); !checked.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", checked.status().message()));
  }
  config.broker_rack = props.count("broker.rack") ? props["broker.rack"].first : "";
  if (props.count("log.dirs")) {
    for (absl::string_view d : absl::StrSplit(props["log.dirs"].first, ',', absl::SkipWhitespace())) {
      config.log_dirs.emplace_back(absl::StripAsciiWhitespace(d));
    }
  }
  if (props.count("listeners")) {
    auto listeners = ParseListeners(props["listeners"].first);
    if (!listeners.ok()) return absl::InvalidArgumentError(absl::StrCat(where("listeners"), ": ", listeners.status().message()));
    config.listeners = std::move(*listeners);
  }
  std::map<std::string, std::string> protocols = {{"PLAINTEXT", "PLAINTEXT"}, {"SSL", "SSL"}};
  if (props.count("listener.security.protocol.map")) {
    protocols.clear();
    for (absl::string_view item : absl::StrSplit(props["listener.security.protocol.map"].first, ',', absl::SkipWhitespace())) {
      std::vector<std::string> kv = absl::StrSplit(absl::StripAsciiWhitespace(item), ':');
      if (kv.size() != 2 || (kv[1] != "PLAINTEXT" && kv[1] != "SSL")) {
        return absl::InvalidArgumentError(absl::StrCat(where("listener.security.protocol.map"), ": '", item,
                                                       "' is not NAME:PLAINTEXT or NAME:SSL"));
      }
      protocols[kv[0]] = kv[1];
    }
  }
  std::vector<Listener> advertised;
  if (props.count("advertised.listeners")) {
    auto parsed = ParseListeners(props["advertised.listeners"].first);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where("advertised.listeners"), ": ", parsed.status().message()));
    }
    advertised = std::move(*parsed);
  }
  for (Listener& l : config.listeners) {
    auto protocol = protocols.find(l.name);
    if (protocol == protocols.end()) {
      return absl::InvalidArgumentError(absl::StrCat(where("listeners"), ": listener ", l.name,
                                                     " has no security protocol (listener.security.protocol.map)"));
    }
    l.security_protocol = protocol->second;
    l.advertised_host = l.host;
    l.advertised_port = l.port;
    for (const Listener& a : advertised) {
      if (a.name == l.name) {
        l.advertised_host = a.host;
        l.advertised_port = a.port;
      }
    }
  }
  for (const Listener& a : advertised) {
    bool found = false;
    for (const Listener& l : config.listeners) found = found || l.name == a.name;
    if (!found) {
      return absl::InvalidArgumentError(absl::StrCat(where("advertised.listeners"), ": ", a.name,
                                                     " is not one of the listeners"));
    }
  }
  // Topics are created explicitly (CreateTopics, the CLI); Metadata never creates one.
  if (props.count("auto.create.topics.enable") && props["auto.create.topics.enable"].first != "false") {
    return absl::InvalidArgumentError(absl::StrCat(where("auto.create.topics.enable"), " = '",
                                                   props["auto.create.topics.enable"].first,
                                                   "': only false is supported (create topics explicitly)"));
  }
  if (props.count("ssl.keystore.type") && props["ssl.keystore.type"].first != "PEM") {
    return absl::InvalidArgumentError(absl::StrCat(where("ssl.keystore.type"), " = '", props["ssl.keystore.type"].first,
                                                   "': only PEM is supported"));
  }
  if (props.count("ssl.truststore.type") && props["ssl.truststore.type"].first != "PEM") {
    return absl::InvalidArgumentError(absl::StrCat(where("ssl.truststore.type"), " = '",
                                                   props["ssl.truststore.type"].first, "': only PEM is supported"));
  }
  if (props.count("ssl.keystore.location")) config.ssl_keystore_location = props["ssl.keystore.location"].first;
  if (props.count("ssl.truststore.location")) config.ssl_truststore_location = props["ssl.truststore.location"].first;
  if (props.count("ssl.client.auth")) {
    config.ssl_client_auth = props["ssl.client.auth"].first;
    if (config.ssl_client_auth != "none" && config.ssl_client_auth != "requested" &&
        config.ssl_client_auth != "required") {
      return absl::InvalidArgumentError(absl::StrCat(where("ssl.client.auth"), " = '", config.ssl_client_auth,
                                                     "' must be none, requested or required"));
    }
    if (config.ssl_client_auth != "none" && config.ssl_truststore_location.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where("ssl.client.auth"), " needs ssl.truststore.location"));
    }
  }
  if (config.broker && !config.listeners.empty()) {
    const Listener* inter = &config.listeners.front();
    if (!config.inter_broker_listener_name.empty()) {
      inter = nullptr;
      for (const Listener& l : config.listeners) {
        if (l.name == config.inter_broker_listener_name) inter = &l;
      }
      if (inter == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(where("inter.broker.listener.name"), " = '",
                                                       config.inter_broker_listener_name, "' is not one of the listeners"));
      }
    }
    if (inter->security_protocol != "PLAINTEXT") {
      return absl::InvalidArgumentError(absl::StrCat(file, ": the inter-broker listener ", inter->name,
                                                     " must be PLAINTEXT (replication over SSL is not supported)"));
    }
    config.inter_broker_listener_name = inter->name;
  }
  for (const Listener& l : config.listeners) {
    if (l.security_protocol == "SSL" && config.ssl_keystore_location.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ": listener ", l.name, " is SSL but ssl.keystore.location is not set"));
    }
  }
  if (config.broker) {
    if (config.log_dirs.empty()) return absl::InvalidArgumentError(absl::StrCat(file, ": 'log.dirs' is required for a broker"));
    if (config.listeners.empty()) return absl::InvalidArgumentError(absl::StrCat(file, ": 'listeners' is required for a broker"));
  }
  if (props.count("metrics.listener")) {
    config.metrics_listener = props["metrics.listener"].first;
    if (config.metrics_listener.find(':') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(where("metrics.listener"), " = '", config.metrics_listener,
                                                     "' must be host:port"));
    }
  }
  return config;
}

absl::StatusOr<ServerConfig> ServerConfig::Load(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read config file ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  // Overrides are later lines: the last value of a key wins.
  std::string text = buffer.str();
  for (const std::string& o : overrides) {
    if (o.find('=') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("--override '", o, "' is not key=value"));
    }
    absl::StrAppend(&text, "\n", o);
  }
  return Parse(text, path);
}

absl::StatusOr<std::vector<Listener>> ParseListeners(const std::string& text) {
  std::vector<Listener> out;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    size_t scheme = item.find("://");
    size_t colon = item.rfind(':');
    Listener l;
    if (scheme == absl::string_view::npos || colon == absl::string_view::npos || colon <= scheme + 2 ||
        !absl::SimpleAtoi(item.substr(colon + 1), &l.port) || l.port < 0 || l.port > 65535) {
      return absl::InvalidArgumentError(absl::StrCat("listener '", item, "' is not NAME://host:port"));
    }
    l.name = std::string(item.substr(0, scheme));
    l.host = std::string(item.substr(scheme + 3, colon - scheme - 3));
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace strata::server
