#include "server/server_config.h"

#include "storage/file_ops.h"
#include "storage/log_config.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "base/check.h"
#include "base/status_macros.h"
#include "security/jaas_config.h"
#include "security/principal_mapping.h"

namespace strata::server {

namespace {

using Apply = std::function<absl::Status(const std::string&, ServerConfig&)>;

absl::Status Bad(absl::string_view what) { return absl::InvalidArgumentError(what); }

}  // namespace

absl::StatusOr<std::set<int16_t>> NetworkThreadApis(absl::string_view value) {
  std::set<int16_t> apis;
  for (absl::string_view name : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    name = absl::StripAsciiWhitespace(name);
    if (name == "Produce") {
      apis.insert(0);
    } else if (name == "Fetch") {
      apis.insert(1);
    } else {
      // Only these two have been checked never to wait on anything but their own disk I/O.
      return Bad(absl::StrCat(" = '", value, "': '", name, "' is not Produce or Fetch"));
    }
  }
  return apis;
}

namespace {

// Settings that only make sense together, once every one is in.
absl::Status CheckTogether(ServerConfig& config, const std::string& file,
                           const std::function<std::string(const std::string&)>& where) {
  if (config.voters.empty() == config.bootstrap_servers.empty()) {
    return Bad(absl::StrCat(file, ": exactly one of 'controller.quorum.voters' (a static quorum) and "
                                  "'controller.quorum.bootstrap.servers' (a dynamic one) is required"));
  }
  if (config.controller_listener_names.find(',') != std::string::npos) {
    return Bad(absl::StrCat(where("controller.listener.names"), " must name one listener"));
  }
  STRATA_RETURN_IF_ERROR(CheckQuorumSettings(config, file, where));
  if (auto checked = storage::LogConfig::FromProperties(config.log_settings); !checked.ok()) {
    return Bad(absl::StrCat(file, ": ", checked.status().message()));
  }
  STRATA_RETURN_IF_ERROR(CheckRemoteStorageSettings(config, where));
  for (Listener& l : config.listeners) {
    auto protocol = config.listener_security_protocol_map.find(l.name);
    if (protocol == config.listener_security_protocol_map.end()) {
      return Bad(absl::StrCat(where("listeners"), ": listener ", l.name,
                              " has no security protocol (listener.security.protocol.map)"));
    }
    l.security_protocol = protocol->second;
    l.advertised_host = l.host;
    l.advertised_port = l.port;
    for (const Listener& a : config.advertised_listeners) {
      if (a.name == l.name) {
        l.advertised_host = a.host;
        l.advertised_port = a.port;
      }
    }
  }
  for (const Listener& a : config.advertised_listeners) {
    bool found = false;
    for (const Listener& l : config.listeners) found = found || l.name == a.name;
    if (!found) return Bad(absl::StrCat(where("advertised.listeners"), ": ", a.name, " is not one of the listeners"));
  }
  for (const Listener& l : config.listeners) {
    if (config.ListenerSetting(l.name, "ssl.client.auth", config.ssl_client_auth) != "none" &&
        config.ListenerSetting(l.name, "ssl.truststore.location", config.ssl_truststore_location).empty()) {
      return Bad(absl::StrCat(file, ": listener ", l.name, ": ssl.client.auth needs ssl.truststore.location"));
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
        return Bad(absl::StrCat(where("inter.broker.listener.name"), " = '", config.inter_broker_listener_name,
                                "' is not one of the listeners"));
      }
    }
    config.inter_broker_listener_name = inter->name;
  }
  for (const Listener& l : config.listeners) {
    if (absl::StrContains(l.security_protocol, "SASL")) {
      const std::vector<std::string> mechanisms = config.SaslEnabledMechanisms(l.name);
      auto enables = [&](absl::string_view m) {
        return std::find(mechanisms.begin(), mechanisms.end(), m) != mechanisms.end();
      };
      if (mechanisms.empty()) {
        return Bad(absl::StrCat(file, ": listener ", l.name, " is ", l.security_protocol,
                                " but sasl.enabled.mechanisms names no mechanism"));
      }
      if (enables("PLAIN") &&
          config.ListenerSetting(l.name, "plain.sasl.jaas.config", "").empty()) {
        return Bad(absl::StrCat(file, ": listener ", l.name, " enables PLAIN but listener.name.",
                                absl::AsciiStrToLower(l.name), ".plain.sasl.jaas.config (its users) is not set"));
      }
      if (enables("OAUTHBEARER") && config.sasl_oauthbearer_jwks_endpoint_url.empty()) {
        return Bad(absl::StrCat(file, ": listener ", l.name,
                                " enables OAUTHBEARER but sasl.oauthbearer.jwks.endpoint.url is not set"));
      }
    }
    if ((l.security_protocol == "SSL" || l.security_protocol == "SASL_SSL") &&
        config.ListenerSetting(l.name, "ssl.keystore.location", config.ssl_keystore_location).empty()) {
      return Bad(absl::StrCat(file, ": listener ", l.name, " is ", l.security_protocol,
                              " but ssl.keystore.location is not set"));
    }
  }
  if (config.ControllerSecurityProtocol() == "SSL") {
    const std::string& name = config.controller_listener_names;
    for (const char* setting : {"ssl.keystore.location", "ssl.truststore.location"}) {
      const std::string& global =
          std::string(setting) == "ssl.keystore.location" ? config.ssl_keystore_location : config.ssl_truststore_location;
      if (config.ListenerSetting(name, setting, global).empty()) {
        return Bad(absl::StrCat(file, ": the controller listener ", name, " is SSL but neither listener.name.",
                                absl::AsciiStrToLower(name), ".", setting, " nor ", setting, " is set"));
      }
    }
  }
  if (config.broker) {
    if (config.log_dirs.empty()) return Bad(absl::StrCat(file, ": 'log.dirs' is required for a broker"));
    if (config.listeners.empty()) return Bad(absl::StrCat(file, ": 'listeners' is required for a broker"));
    if (auto inter = config.InterBrokerSecurity(); !inter.ok()) {
      return Bad(absl::StrCat(file, ": the inter-broker listener ", config.inter_broker_listener_name, ": ",
                              inter.status().message()));
    }
  }
  if (config.group_consumer_heartbeat_interval_ms >= config.group_consumer_session_timeout_ms) {
    return Bad(absl::StrCat(where("group.consumer.heartbeat.interval.ms"), " (",
                            config.group_consumer_heartbeat_interval_ms,
                            ") must be less than group.consumer.session.timeout.ms (",
                            config.group_consumer_session_timeout_ms, ")"));
  }
  return absl::OkStatus();
}

// "key=value" lines: key -> (value, line); the last value of a key wins.
struct Properties {
  std::map<std::string, std::pair<std::string, int>> values;
};

absl::StatusOr<Properties> ReadProperties(const std::string& text, const std::string& file) {
  Properties props;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos) {
      return Bad(absl::StrCat(file, " line ", line_number, ": '", line, "' is not key=value"));
    }
    std::string key(absl::StripAsciiWhitespace(line.substr(0, eq)));
    props.values[key] = {std::string(absl::StripAsciiWhitespace(line.substr(eq + 1))), line_number};
  }
  return props;
}

const ServerSetting* FindSetting(const std::string& key) {
  for (const ServerSetting& s : ServerSettings()) {
    if (s.name == key) return &s;
  }
  return nullptr;
}

constexpr absl::string_view kListenerPrefix = "listener.name.";

// The settings a listener may set for itself (listener.name.<name>.<setting>).
bool IsPerListenerSetting(absl::string_view setting) {
  static const auto* names = new std::set<absl::string_view>{
      "ssl.keystore.location", "ssl.keystore.type",           "ssl.truststore.location", "ssl.truststore.type",
      "ssl.client.auth",       "ssl.principal.mapping.rules", "sasl.enabled.mechanisms", "connections.max.reauth.ms"};
  return names->count(setting) > 0;
}

// <mechanism>.sasl.jaas.config (the mechanism in lower case): a listener's JAAS entry
// for one mechanism, as Kafka names it.
bool IsJaasSetting(absl::string_view setting) {
  for (absl::string_view m : {"plain", "scram-sha-256", "scram-sha-512", "oauthbearer"}) {
    if (setting == absl::StrCat(m, ".sasl.jaas.config")) return true;
  }
  return false;
}

// oauthbearer.sasl.server.callback.handler.class: Kafka's validator is what Strata does.
bool IsOAuthBearerHandlerSetting(absl::string_view setting) {
  return setting == "oauthbearer.sasl.server.callback.handler.class";
}

// listener.name.<name>.<setting> = value: checked as the setting itself is, kept raw.
absl::Status ApplyListenerSetting(const std::string& key, const std::string& value, ServerConfig& config,
                                  const std::function<std::string(const std::string&)>& where) {
  absl::string_view rest = absl::string_view(key).substr(kListenerPrefix.size());
  size_t dot = rest.find('.');
  absl::string_view setting = dot == absl::string_view::npos ? "" : rest.substr(dot + 1);
  if (IsOAuthBearerHandlerSetting(setting)) {
    if (value != "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler") {
      return Bad(absl::StrCat(where(key), " = '", value,
                              "': only org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler "
                              "(JWTs checked against sasl.oauthbearer.jwks.endpoint.url)"));
    }
    return absl::OkStatus();
  }
  if (dot == 0 || (!IsPerListenerSetting(setting) && !IsJaasSetting(setting))) {
    return Bad(absl::StrCat(where(key), " is not listener.name.<name>.<setting> for a setting a listener may set"));
  }
  if (IsJaasSetting(setting)) {
    if (auto jaas = security::ParseJaasConfig(value); !jaas.ok()) return Bad(absl::StrCat(where(key), ": ", jaas.status().message()));
  } else {
    ServerConfig scratch;
    if (absl::Status s = FindSetting(std::string(setting))->apply(value, scratch); !s.ok()) {
      return Bad(absl::StrCat(where(key), s.message()));
    }
  }
  config.listener_settings[absl::AsciiStrToLower(rest.substr(0, dot))][std::string(setting)] = value;
  return absl::OkStatus();
}

}  // namespace

std::string ServerConfig::ListenerSetting(const std::string& listener, const std::string& setting,
                                          const std::string& global) const {
  auto l = listener_settings.find(absl::AsciiStrToLower(listener));
  if (l == listener_settings.end()) return global;
  auto v = l->second.find(setting);
  return v == l->second.end() ? global : v->second;
}

std::vector<std::string> ServerConfig::SaslEnabledMechanisms(const std::string& listener) const {
  std::vector<std::string> out;
  const std::string text =
      ListenerSetting(listener, "sasl.enabled.mechanisms", absl::StrJoin(sasl_enabled_mechanisms, ","));
  for (absl::string_view m : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    m = absl::StripAsciiWhitespace(m);
    if (!m.empty()) out.emplace_back(m);
  }
  return out;
}

std::string ServerConfig::ControllerSecurityProtocol() const {
  auto it = listener_security_protocol_map.find(controller_listener_names);
  return it == listener_security_protocol_map.end() ? "PLAINTEXT" : it->second;
}

absl::StatusOr<client::ClientSecurity> ServerConfig::InterBrokerSecurity() const {
  client::ClientSecurity s;
  const Listener* inter = nullptr;
  for (const Listener& l : listeners) {
    if (l.name == inter_broker_listener_name) inter = &l;
  }
  if (inter == nullptr) return s;  // not a broker
  const std::string& name = inter->name;
  s.protocol = inter->security_protocol;
  if (s.tls()) {
    s.truststore_pem = ListenerSetting(name, "ssl.truststore.location", ssl_truststore_location);
    s.keystore_pem = ListenerSetting(name, "ssl.keystore.location", ssl_keystore_location);
    s.verify_hostname = ssl_endpoint_identification_algorithm == "https";
  }
  if (s.sasl()) {
    s.sasl_mechanism = sasl_mechanism_inter_broker_protocol;
    if (s.sasl_mechanism == "GSSAPI") {
      return absl::InvalidArgumentError(
          "sasl.mechanism.inter.broker.protocol is GSSAPI (Kafka's default), which is not supported: set PLAIN, "
          "SCRAM-SHA-256 or SCRAM-SHA-512");
    }
    const std::vector<std::string> enabled = SaslEnabledMechanisms(name);
    if (std::find(enabled.begin(), enabled.end(), s.sasl_mechanism) == enabled.end()) {
      return absl::InvalidArgumentError(absl::StrCat("sasl.mechanism.inter.broker.protocol ", s.sasl_mechanism,
                                                     " is not among the listener's sasl.enabled.mechanisms"));
    }
    const std::string jaas_key = absl::StrCat(absl::AsciiStrToLower(s.sasl_mechanism), ".sasl.jaas.config");
    const std::string text = ListenerSetting(name, jaas_key, "");
    auto jaas = security::ParseJaasConfig(text);
    if (text.empty() || !jaas.ok() || !jaas->options.count("username") || !jaas->options.count("password")) {
      return absl::InvalidArgumentError(absl::StrCat("listener.name.", absl::AsciiStrToLower(name), ".", jaas_key,
                                                     " must give the broker's own username and password options"));
    }
    s.username = jaas->options.at("username");
    s.password = jaas->options.at("password");
  }
  if (absl::Status valid = client::ValidateClientSecurity(s); !valid.ok()) return valid;
  return s;
}

const std::vector<ServerSetting>& ServerSettings() {
  static const auto* settings = [] {
    auto* all = new std::vector<ServerSetting>(ServerSettingsTable());
    for (ServerSetting& s : RemoteStorageSettings()) all->push_back(std::move(s));
    return all;
  }();
  return *settings;
}

bool IsBrokerLogSetting(const std::string& key) {
  // The broker-level name of a log setting that the server's own table does not hold
  // (follower.fetch.last.tiered.offset.enable is a server setting too, read elsewhere).
  const storage::TopicSetting* s = storage::FindTopicSetting(key);
  return s != nullptr && s->is_log_setting() && key == s->broker_key && FindSetting(key) == nullptr;
}

absl::StatusOr<ServerConfig> ServerConfig::Parse(const std::string& text, const std::string& file) {
  STRATA_ASSIGN_OR_RETURN(Properties props, ReadProperties(text, file));
  auto where = [&](const std::string& key) {
    return absl::StrCat(file, " line ", props.values[key].second, ": '", key, "'");
  };
  ServerConfig config;
  for (const auto& [key, value] : props.values) {
    if (absl::StartsWith(key, kListenerPrefix)) {
      STRATA_RETURN_IF_ERROR(ApplyListenerSetting(key, value.first, config, where));
    } else if (IsBrokerLogSetting(key)) {
      config.log_settings[key] = value.first;
    } else if (FindSetting(key) == nullptr) {
      return Bad(absl::StrCat(where(key), " is not a setting strata-server knows"));
    }
  }
  for (const ServerSetting& s : ServerSettings()) {
    if (s.required && !props.values.count(s.name)) return Bad(absl::StrCat(file, ": '", s.name, "' is required"));
  }
  for (const ServerSetting& s : ServerSettings()) {
    auto it = props.values.find(s.name);
    if (it == props.values.end()) continue;
    if (absl::Status applied = s.apply(it->second.first, config); !applied.ok()) {
      return Bad(absl::StrCat(where(s.name), applied.message()));
    }
  }
  STRATA_RETURN_IF_ERROR(CheckTogether(config, file, where));
  return config;
}

std::string ConfigurationReference() {
  const ServerConfig defaults;
  std::string out =
      "# strata-server settings\n\n"
      "Generated by `strata-server --help-config` from the server's table of settings\n"
      "(server/server_config.cc); CI checks that this file is its output. A setting not listed\n"
      "here is refused at startup, naming the key and the line.\n\n"
      "| setting | type | default | valid values | read by | description |\n"
      "|---|---|---|---|---|---|\n";
  auto cell = [](const std::string& text) { return absl::StrReplaceAll(text, {{"|", "\\|"}}); };
  for (const ServerSetting& s : ServerSettings()) {
    std::string default_value = s.default_value(defaults);
    if (!default_value.empty()) default_value = absl::StrCat("`", cell(default_value), "`");
    if (s.required) default_value = "required";
    absl::StrAppend(&out, "| `", s.name, "` | ", s.type, " | ", default_value,
                    " | ", cell(s.valid_values), " | ", s.roles, " | ", cell(s.doc), " |\n");
  }
  absl::StrAppend(&out,
                  "\n## Topic settings\n\n"
                  "Every setting a topic may carry (CreateTopics configs, `strata configs`), from the one table\n"
                  "of topic settings (`storage::TopicSettings()`, storage/log_config.cc) that the controller checks\n"
                  "them against and the brokers' logs apply: a value outside it is refused with INVALID_CONFIG.\n"
                  "A topic without the setting takes the node's setting named beside it (whose own default is\n"
                  "the one shown), or the default where none is named.\n\n"
                  "| topic setting | broker setting | type | default | valid values | description |\n"
                  "|---|---|---|---|---|---|\n");
  for (const storage::TopicSetting& s : storage::TopicSettings()) {
    std::string broker = s.broker_key.empty() ? "" : absl::StrCat("`", s.broker_key, "`");
    absl::StrAppend(&out, "| `", s.name, "` | ", broker, " | ", s.type_name(), " | `", s.default_value, "` | ",
                    cell(s.valid_values()), " | ", cell(s.doc), " |\n");
  }
  return out;
}

absl::StatusOr<ServerConfig> ServerConfig::Load(const std::string& path, const std::vector<std::string>& overrides) {
  // Read errors are errors (an unreadable file must not look like an empty one).
  auto read = storage::ReadWholeFile(*storage::FileOps::Default(), path);
  if (!read.ok()) {
    return absl::Status(read.status().code(), absl::StrCat("cannot read config file ", path, ": ", read.status().message()));
  }
  // Overrides are later lines: the last value of a key wins.
  std::string text = *std::move(read);
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
