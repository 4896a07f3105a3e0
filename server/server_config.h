#pragma once
// strata-server's configuration: a Java-properties file with Kafka's setting names. Every
// setting the server reads is one row of a table (ServerSettings(): name, type, default,
// who reads it, what it does, how a value is checked and stored), plus the broker's log.*
// defaults that storage::LogConfig checks; `strata-server --help-config` prints them all
// (docs/configuration.md is that output, checked in CI). An unknown key, a missing
// required key or a malformed value is an error naming the key and the line.
// Thread-safe (value types and a constant table).

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "client/client_security.h"

namespace strata::server {

// One entry of `listeners`: NAME://host:port. Its security protocol (PLAINTEXT or SSL)
// comes from listener.security.protocol.map, by default the name itself.
struct Listener {
  std::string name;
  std::string host;
  int32_t port = 0;
  std::string security_protocol;
  // Where clients are told to connect (advertised.listeners of the same name; by
  // default host and port above).
  std::string advertised_host;
  int32_t advertised_port = 0;
};

struct ServerConfig {
  int32_t node_id = 0;
  std::string process_roles;
  bool controller = false;
  bool broker = false;
  // The metadata quorum, one of two ways (server/README.md, "Static and dynamic quorums"):
  // controller.quorum.voters, a static quorum (id -> host:port), or
  // controller.quorum.bootstrap.servers, a dynamic one (KIP-853; host:port of some
  // controllers, whose voters the metadata log holds).
  std::map<int32_t, std::string> voters;
  std::vector<std::string> bootstrap_servers;
  std::string metadata_log_dir;
  int32_t election_timeout_ms = 300;
  int64_t snapshot_bytes = 20 << 20;
  int64_t segment_bytes = 1 << 30;
  std::string metrics_listener;  // empty: no metrics endpoint
  int64_t memory_release_interval_ms = 5000;  // memory.release.interval.ms (server/memory_releaser.h)
  std::string log_format = "text";  // log.format: text or json (server/json_log_formatter.h)
  int32_t broker_session_timeout_ms = 9000;
  int32_t num_partitions = 1;
  int32_t default_replication_factor = 1;
  bool unclean_leader_election_enable = false;
  bool auto_leader_rebalance_enable = true;            // auto.leader.rebalance.enable
  int32_t leader_imbalance_check_interval_seconds = 300;  // leader.imbalance.check.interval.seconds
  int32_t leader_imbalance_per_broker_percentage = 10;  // leader.imbalance.per.broker.percentage
  bool delete_topic_enable = true;
  bool auto_create_topics_enable = false;  // auto.create.topics.enable (Kafka's default: true)
  // Consumer groups (broker/group/group_coordinator.h), Kafka's names and defaults.
  int32_t offsets_topic_num_partitions = 50;            // offsets.topic.num.partitions
  int32_t offsets_topic_replication_factor = 3;         // offsets.topic.replication.factor
  int64_t offsets_retention_minutes = 10080;            // offsets.retention.minutes
  int64_t offsets_retention_check_interval_ms = 600000; // offsets.retention.check.interval.ms
  int32_t offsets_commit_timeout_ms = 5000;             // offsets.commit.timeout.ms
  int32_t offset_metadata_max_bytes = 4096;             // offset.metadata.max.bytes
  int32_t group_min_session_timeout_ms = 6000;          // group.min.session.timeout.ms
  int32_t group_max_session_timeout_ms = 1800000;       // group.max.session.timeout.ms
  int32_t group_initial_rebalance_delay_ms = 3000;      // group.initial.rebalance.delay.ms
  int32_t group_max_size = INT32_MAX;                   // group.max.size
  // KIP-848 consumer groups (broker/group/consumer_group.h), Kafka's names and defaults.
  int32_t group_consumer_session_timeout_ms = 45000;    // group.consumer.session.timeout.ms
  int32_t group_consumer_heartbeat_interval_ms = 5000;  // group.consumer.heartbeat.interval.ms
  int32_t group_consumer_max_size = INT32_MAX;          // group.consumer.max.size
  std::vector<std::string> group_consumer_assignors = {"uniform", "range"};  // group.consumer.assignors
  // KIP-932 share groups (broker/group/share_group.h), Kafka's names and defaults.
  int32_t group_share_session_timeout_ms = 45000;    // group.share.session.timeout.ms
  int32_t group_share_heartbeat_interval_ms = 5000;  // group.share.heartbeat.interval.ms
  int32_t group_share_max_size = 200;                // group.share.max.size
  // Transactions (broker/transactions/transaction_coordinator.h), Kafka's names and defaults.
  int32_t transaction_state_log_num_partitions = 50;     // transaction.state.log.num.partitions
  int32_t transaction_state_log_replication_factor = 3;  // transaction.state.log.replication.factor
  int32_t transaction_state_log_min_isr = 2;             // transaction.state.log.min.isr
  int32_t transaction_max_timeout_ms = 900000;           // transaction.max.timeout.ms
  int32_t transaction_abort_timed_out_transaction_cleanup_interval_ms = 10000;
  bool transaction_partition_verification_enable = true;  // transaction.partition.verification.enable
  int32_t transactional_id_expiration_ms = 604800000;     // transactional.id.expiration.ms
  int32_t transaction_remove_expired_transaction_cleanup_interval_ms = 3600000;
  // Share groups (broker/share/), Kafka's names and defaults.
  int32_t share_coordinator_state_topic_num_partitions = 50;     // share.coordinator.state.topic.num.partitions
  int32_t share_coordinator_state_topic_replication_factor = 3;  // share.coordinator.state.topic.replication.factor
  int32_t share_coordinator_state_topic_min_isr = 2;             // share.coordinator.state.topic.min.isr
  // Broker settings.
  std::vector<Listener> listeners;
  std::vector<std::string> log_dirs;
  std::string broker_rack;
  int32_t broker_heartbeat_interval_ms = 2000;
  int32_t num_network_threads = 3;                 // num.network.threads
  int32_t network_idle_poll_us = 200;              // network.idle.poll.us
  int32_t socket_request_max_bytes = 104857600;    // socket.request.max.bytes
  int32_t connections_max_idle_ms = 600000;        // connections.max.idle.ms
  int32_t num_io_threads = 8;                      // num.io.threads
  std::string network_thread_apis = "Produce,Fetch";  // network.thread.apis (NetworkThreadApis)
  int32_t max_in_flight_requests_per_connection = 5;  // max.in.flight.requests.per.connection
  // Replication.
  std::string inter_broker_listener_name;          // inter.broker.listener.name (default: the first listener)
  int32_t num_replica_fetchers = 1;                // num.replica.fetchers (per leader)
  int32_t replica_fetch_wait_max_ms = 500;         // replica.fetch.wait.max.ms
  int32_t replica_fetch_min_bytes = 1;             // replica.fetch.min.bytes
  int32_t replica_fetch_max_bytes = 1048576;       // replica.fetch.max.bytes (per partition)
  int32_t replica_fetch_response_max_bytes = 10485760;  // replica.fetch.response.max.bytes
  int32_t replica_fetch_backoff_ms = 1000;         // replica.fetch.backoff.ms
  int64_t replica_lag_time_max_ms = 30000;         // replica.lag.time.max.ms
  std::string replica_selector_class;              // replica.selector.class (KIP-392)
  int32_t max_incremental_fetch_session_cache_slots = 1000;  // max.incremental.fetch.session.cache.slots
  // SSL listeners: ssl.keystore.location (PEM: certificate chain and private key;
  // ssl.keystore.type must be PEM), ssl.truststore.location (PEM CA certificates),
  // ssl.client.auth (none, requested, required).
  std::string ssl_keystore_location;
  std::string ssl_truststore_location;
  std::string ssl_client_auth = "none";
  // ssl.principal.mapping.rules (security/principal_mapping.h) and super.users
  // ("User:a;User:b", as Kafka lists them).
  std::string ssl_principal_mapping_rules = "DEFAULT";
  std::set<std::string> super_users;
  // authorizer.class.name: empty (no authorizer: every authenticated request is allowed,
  // the ACL APIs answer SECURITY_DISABLED) or Kafka's StandardAuthorizer, whose rules
  // security/standard_authorizer.h follows; allow.everyone.if.no.acl.found;
  // authorizer.log.allowed writes allowed decisions to the decision log too.
  std::string authorizer_class_name;
  bool allow_everyone_if_no_acl_found = false;
  bool authorizer_log_allowed = false;
  // SASL listeners: sasl.enabled.mechanisms (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) and
  // connections.max.reauth.ms (KIP-368; 0: sessions never end). A listener's JAAS
  // entries are listener.name.<name>.<mechanism>.sasl.jaas.config (listener_settings).
  std::vector<std::string> sasl_enabled_mechanisms;
  int64_t connections_max_reauth_ms = 0;
  // The inter-broker listener's client side (the replica fetchers): the SASL mechanism
  // (Kafka's default GSSAPI is refused when that listener is SASL_*), with the broker's
  // own username and password from the listener's <mechanism>.sasl.jaas.config; and
  // whether a broker's certificate must name the host connected to (https) or not ("").
  std::string sasl_mechanism_inter_broker_protocol = "GSSAPI";
  std::string ssl_endpoint_identification_algorithm = "https";
  // OAUTHBEARER (KIP-768's names): the JWKS file, the claims' rules.
  std::string sasl_oauthbearer_jwks_endpoint_url;
  int64_t sasl_oauthbearer_jwks_endpoint_refresh_ms = 3600000;
  std::string sasl_oauthbearer_expected_issuer;
  std::vector<std::string> sasl_oauthbearer_expected_audience;
  int32_t sasl_oauthbearer_clock_skew_seconds = 30;
  std::string sasl_oauthbearer_sub_claim_name = "sub";
  std::string sasl_oauthbearer_scope_claim_name = "scope";
  // controller.listener.names: the controllers' gRPC port is this listener in
  // listener.security.protocol.map (PLAINTEXT, or SSL: mutual TLS) and in
  // listener.name.<name>.ssl.* settings, on controllers (the server side) and on brokers
  // (the client side), as in Kafka. One name.
  std::string controller_listener_names = "CONTROLLER";
  // listener.name.<name>.<setting>: per-listener values (the name lower-cased), which
  // take precedence over the setting itself (ListenerSetting).
  std::map<std::string, std::map<std::string, std::string>> listener_settings;
  int32_t min_insync_replicas = 1;                 // min.insync.replicas (topic default)
  // log.* defaults for the broker's partitions (log.segment.bytes, log.retention.ms,
  // log.message.timestamp.type, message.max.bytes, ...), checked by LogConfig.
  std::map<std::string, std::string> log_settings;
  // Tiered storage (KIP-405): remote.log.storage.system.enable lets topics turn on
  // remote.storage.enable; the embedded RemoteStorageManager keeps the objects under
  // remote.log.storage.path, which every broker must reach (shared volume, NFS).
  bool remote_log_storage_system_enable = false;
  std::string remote_log_storage_path;
  // The RemoteStorageManager's own settings, rsm.config.* as Kafka passes them to its
  // RSM, with the names of Aiven's tiered-storage plugin (remote_storage_settings.cc).
  std::string rsm_backend = "filesystem";             // rsm.config.storage.backend.class
  std::string rsm_key_prefix;                         // rsm.config.key.prefix
  int32_t rsm_chunk_size = 1 << 20;                   // rsm.config.chunk.size
  std::string rsm_s3_bucket;                          // ...storage.s3.bucket.name
  std::string rsm_s3_region = "us-east-1";            // ...storage.s3.region
  std::string rsm_s3_endpoint_url;                    // ...storage.s3.endpoint.url
  std::string rsm_s3_path_style;                      // ...storage.s3.path.style.access.enabled ("": auto)
  std::string rsm_aws_access_key_id;                  // ...storage.aws.access.key.id
  std::string rsm_aws_secret_access_key;              // ...storage.aws.secret.access.key
  std::string rsm_aws_session_token;                  // ...storage.aws.session.token
  bool rsm_aws_certificate_check_enabled = true;      // ...storage.aws.certificate.check.enabled
  std::string rsm_s3_ca_file;                         // ...storage.s3.ca.file
  int32_t rsm_s3_multipart_upload_part_size = 25 << 20;  // ...storage.s3.multipart.upload.part.size
  int64_t rsm_s3_api_call_timeout_ms = 120000;        // ...storage.s3.api.call.timeout
  int64_t rsm_s3_api_call_attempt_timeout_ms = 30000; // ...storage.s3.api.call.attempt.timeout
  int32_t rsm_s3_max_connections = 32;                // ...storage.s3.max.connections
  std::string rsm_fetch_chunk_cache_path;             // rsm.config.fetch.chunk.cache.path ("": in log.dirs[0])
  int64_t rsm_fetch_chunk_cache_size = int64_t{1} << 30;       // ...fetch.chunk.cache.size
  int64_t rsm_fetch_chunk_cache_prefetch_max_size = 4 << 20;   // ...fetch.chunk.cache.prefetch.max.size
  bool s3_backend() const { return rsm_backend == "s3"; }
  int32_t remote_log_manager_thread_pool_size = 2;       // remote.log.manager.thread.pool.size
  int64_t remote_log_manager_task_interval_ms = 30000;   // remote.log.manager.task.interval.ms
  int64_t remote_log_manager_task_retry_backoff_ms = 500;       // ...task.retry.backoff.ms
  int64_t remote_log_manager_task_retry_backoff_max_ms = 30000; // ...task.retry.backoff.max.ms
  int32_t remote_log_reader_threads = 10;                // remote.log.reader.threads
  // KIP-956's quotas over every copy / remote read of a broker (INT64_MAX: none).
  int64_t remote_log_manager_copy_max_bytes_per_second = INT64_MAX;   // remote.log.manager.copy.max.bytes.per.second
  int32_t remote_log_manager_copy_quota_window_num = 11;              // ...copy.quota.window.num
  int32_t remote_log_manager_copy_quota_window_size_seconds = 1;      // ...copy.quota.window.size.seconds
  int64_t remote_log_manager_fetch_max_bytes_per_second = INT64_MAX;  // remote.log.manager.fetch.max.bytes.per.second
  int32_t remote_log_manager_fetch_quota_window_num = 11;             // ...fetch.quota.window.num
  int32_t remote_log_manager_fetch_quota_window_size_seconds = 1;     // ...fetch.quota.window.size.seconds
  int64_t remote_log_index_file_cache_total_size_bytes = 64 << 20;  // remote.log.index.file.cache.total.size.bytes
  int64_t remote_log_orphan_sweep_interval_ms = 3600000;  // remote.log.orphan.sweep.interval.ms (Strata's)
  int64_t remote_log_orphan_grace_ms = 3600000;           // remote.log.orphan.grace.ms (Strata's)
  bool follower_fetch_last_tiered_offset_enable = false;  // follower.fetch.last.tiered.offset.enable (KIP-1023)
  int64_t log_retention_check_interval_ms = 300000;          // log.retention.check.interval.ms
  // The log cleaner (compaction of cleanup.policy=compact topics).
  bool log_cleaner_enable = true;                        // log.cleaner.enable
  int32_t log_cleaner_threads = 1;                       // log.cleaner.threads
  int64_t log_cleaner_dedupe_buffer_size = 128LL << 20;  // log.cleaner.dedupe.buffer.size
  int64_t log_cleaner_io_max_bytes_per_second = INT64_MAX;  // log.cleaner.io.max.bytes.per.second
  // replica.alter.log.dirs.io.max.bytes.per.second
  int64_t replica_alter_log_dirs_io_max_bytes_per_second = INT64_MAX;
  int64_t log_cleaner_backoff_ms = 15000;                // log.cleaner.backoff.ms
  int64_t replica_high_watermark_checkpoint_interval_ms = 5000;  // replica.high.watermark.checkpoint.interval.ms
  int64_t log_flush_offset_checkpoint_interval_ms = 60000;        // log.flush.offset.checkpoint.interval.ms
  int64_t log_flush_start_offset_checkpoint_interval_ms = 60000;  // log.flush.start.offset.checkpoint.interval.ms
  // log.flush.scheduler.interval.ms: how often flush.ms is checked; Kafka's default,
  // INT64_MAX, means never (no task is scheduled).
  int64_t log_flush_scheduler_interval_ms = INT64_MAX;

  // The entry of `listeners` named by controller.listener.names, taken out of them (no
  // Kafka is served on it): a controller's gRPC port. Required of a dynamic quorum's
  // controller; in a static quorum it must match the node's controller.quorum.voters
  // entry when given. Its security protocol is ControllerSecurityProtocol().
  std::optional<Listener> controller_listener;

  // As given, resolved into `listeners` by Parse: advertised.listeners (by name) and
  // listener.security.protocol.map (listener name -> PLAINTEXT or SSL).
  std::vector<Listener> advertised_listeners;
  std::map<std::string, std::string> listener_security_protocol_map = {{"PLAINTEXT", "PLAINTEXT"}, {"SSL", "SSL"}};

  // The value of setting for a listener: listener.name.<listener>.<setting> when set,
  // else `global` (the setting's own value). A copy: `global` is often a temporary.
  std::string ListenerSetting(const std::string& listener, const std::string& setting,
                              const std::string& global) const;
  // A SASL listener's mechanisms: listener.name.<listener>.sasl.enabled.mechanisms, else
  // sasl.enabled.mechanisms, as named.
  std::vector<std::string> SaslEnabledMechanisms(const std::string& listener) const;
  // The security protocol of the controllers' gRPC port (PLAINTEXT or SSL).
  std::string ControllerSecurityProtocol() const;
  // Whether the quorum is dynamic (controller.quorum.bootstrap.servers, KIP-853).
  bool dynamic_quorum() const { return !bootstrap_servers.empty(); }
  // A controller's own gRPC address, "host:port": its controller.quorum.voters entry, or
  // its controller listener. REQUIRES: controller.
  std::string ControllerAddress() const;
  // Where the other nodes reach this controller: the controller listener's advertised
  // host and port (the voters entry in a static quorum). REQUIRES: controller.
  std::pair<std::string, int32_t> ControllerAdvertised() const;
  // How this broker connects to the other brokers' inter-broker listener: its protocol,
  // the listener's truststore and keystore, and for SASL the mechanism and the broker's
  // credentials. INVALID_ARGUMENT naming the setting that is missing or wrong.
  absl::StatusOr<client::ClientSecurity> InterBrokerSecurity() const;

  static absl::StatusOr<ServerConfig> Parse(const std::string& text, const std::string& file);
  // overrides: "key=value" settings that replace the file's (--override).
  static absl::StatusOr<ServerConfig> Load(const std::string& path, const std::vector<std::string>& overrides = {});
};

// One setting of the table.
struct ServerSetting {
  std::string name;  // Kafka's name
  std::string type;  // int, long, boolean, string, list, ...
  std::string roles;  // who reads it: "broker", "controller" or "broker, controller"
  bool required = false;
  std::string valid_values;  // e.g. "1..256"; empty: any
  std::string doc;
  std::function<std::string(const ServerConfig&)> default_value;  // of a ServerConfig{}
  // Checks value and stores it in config. An error's message continues "FILE line N:
  // 'KEY'" (for example " = 'x' must be 1..256").
  std::function<absl::Status(const std::string& value, ServerConfig& config)> apply;
};

// Every setting strata-server reads itself, in the order Parse applies them.
const std::vector<ServerSetting>& ServerSettings();
// The rows of that table but the rsm.config.* ones (server_settings.cc).
std::vector<ServerSetting> ServerSettingsTable();
// The rsm.config.* rows of that table, and how they fit together once all are in
// (remote_storage_settings.cc).
std::vector<ServerSetting> RemoteStorageSettings();
absl::Status CheckRemoteStorageSettings(const ServerConfig& config,
                                        const std::function<std::string(const std::string&)>& where);
// Whether key is one of the broker's log.* defaults (log.segment.bytes, message.max.bytes,
// ...), which go to ServerConfig::log_settings and are checked by storage::LogConfig.
bool IsBrokerLogSetting(const std::string& key);
// Every setting, the table's and the log.* defaults, as a Markdown document
// (strata-server --help-config; docs/configuration.md).
std::string ConfigurationReference();

// "PLAINTEXT://127.0.0.1:9092,..." -> listeners.
absl::StatusOr<std::vector<Listener>> ParseListeners(const std::string& text);

// How the quorum's settings fit together (quorum_settings.cc; Parse calls it once every
// setting is in): exactly one of controller.quorum.voters (static) and
// controller.quorum.bootstrap.servers (dynamic, KIP-853); the entry of `listeners` named
// by controller.listener.names moved to controller_listener (no Kafka is served on it),
// required of a dynamic quorum's controller, at its voters entry in a static one, refused
// on a node that is no controller. INVALID_ARGUMENT naming the file, the key and its line
// (`where`).
absl::Status CheckQuorumSettings(ServerConfig& config, const std::string& file,
                                 const std::function<std::string(const std::string&)>& where);

// "1@host:port,2@host:port" -> {1: "host:port", 2: "host:port"}
absl::StatusOr<std::map<int32_t, std::string>> ParseQuorumVoters(const std::string& text);
// "host:port,host:port" -> the addresses (controller.quorum.bootstrap.servers).
absl::StatusOr<std::vector<std::string>> ParseBootstrapServers(const std::string& text);

// network.thread.apis: the API keys named ("Produce", "Fetch", comma-separated; empty:
// none), or INVALID_ARGUMENT naming one that may not run on a network thread.
absl::StatusOr<std::set<int16_t>> NetworkThreadApis(absl::string_view value);

}  // namespace strata::server
