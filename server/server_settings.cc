// strata-server's settings table (server_config.h: ServerSettingsTable): every setting
// with Kafka's name, type, roles, valid values, documentation and how it is stored. The
// remote tier's rsm.config.* rows are in remote_storage_settings.cc.

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/host_port.h"
#include "security/jaas_config.h"
#include "security/principal_mapping.h"
#include "server/server_config.h"
#include "server/setting_rows.h"

namespace strata::server {
namespace {

using namespace setting_rows;  // NOLINT: the table's vocabulary

constexpr char kStandardAuthorizer[] = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

}  // namespace

// check_sizes: a table
std::vector<ServerSetting> ServerSettingsTable() {
  using C = ServerConfig;
  return {
      // The node.
      Custom("node.id", "int", kBoth, true, "1..2147483647", "this node's id, unique in the cluster", NoDefault,
             [](const std::string& v, C& c) -> absl::Status {
               if (!absl::SimpleAtoi(v, &c.node_id) || c.node_id <= 0) return Bad(" must be a positive integer");
               return absl::OkStatus();
             }),
      Custom("process.roles", "list", kBoth, true, "broker, controller, broker,controller",
             "the roles this node runs: a controller votes in the metadata quorum; a broker serves partitions",
             NoDefault,
             [](const std::string& v, C& c) -> absl::Status {
               c.process_roles = v;
               for (absl::string_view role : absl::StrSplit(v, ',')) {
                 role = absl::StripAsciiWhitespace(role);
                 if (role == "controller") {
                   c.controller = true;
                 } else if (role == "broker") {
                   c.broker = true;
                 } else {
                   return Bad(absl::StrCat(" = '", v, "': roles are 'broker' and 'controller'"));
                 }
               }
               return absl::OkStatus();
             }),
      Parsed("controller.quorum.voters", "list", kBoth, false, "id@host:port,...",
             "a static quorum's controllers (Raft voters, kraft.version 0); a controller listens on its own entry "
             "(Raft, ControllerService, AdminService); brokers find the active controller among them. Exactly one of "
             "this and controller.quorum.bootstrap.servers is required",
             &ParseQuorumVoters, &C::voters),
      Parsed("controller.quorum.bootstrap.servers", "list", kBoth, false, "host:port,...",
             "a dynamic quorum (KIP-853, kraft.version 1): some controllers' addresses, from which a node learns the "
             "voters (the metadata log holds them; strata-storage format --standalone, --initial-controllers or "
             "--no-initial-controllers starts them); a controller listens on its controller.listener.names entry "
             "of listeners",
             &ParseBootstrapServers, &C::bootstrap_servers),
      Custom("metadata.log.dir", "string", kBoth, true, "a formatted directory",
             "the metadata log (__cluster_metadata-0), quorum-state, snapshots/ and the metadata image "
             "(metadata-image/, RocksDB)", NoDefault,
             [](const std::string& v, C& c) -> absl::Status {
               if (v.empty()) return Bad(" is empty");
               c.metadata_log_dir = v;
               return absl::OkStatus();
             }),
      // The metadata quorum and the controller.
      Int("controller.quorum.election.timeout.ms", &C::election_timeout_ms, 50, 600'000, kController,
          "a follower that hears no leader this long starts an election (Kafka's default is 1000; Strata aims to fail "
          "over in well under a second)"),
      Int("metadata.log.max.record.bytes.between.snapshots", &C::snapshot_bytes, 1, int64_t{1} << 40, kBoth,
          "bytes of metadata applied between two snapshots of the image"),
      // At least the largest entry (1 MiB) plus its batch framing, as Kafka's 8 MiB floor.
      Int("metadata.log.segment.bytes", &C::segment_bytes, 2 << 20, int64_t{1} << 40, kBoth,
          "the size of a metadata log segment (at least 2 MiB: entries are up to 1 MiB)"),
      Int("broker.session.timeout.ms", &C::broker_session_timeout_ms, 100, 3'600'000, kBoth,
          "a broker whose heartbeats stop this long is fenced and its leaderships move (a broker also bounds its "
          "controlled shutdown by it)"),
      Int("num.partitions", &C::num_partitions, 1, 1'000'000, kController,
          "partitions of a topic created without a count"),
      Int("default.replication.factor", &C::default_replication_factor, 1, 1000, kController,
          "replicas of a topic created without a replication factor"),
      Bool("unclean.leader.election.enable", &C::unclean_leader_election_enable, kController,
           "the cluster default: whether a replica outside the ISR may become leader when no ISR member can"),
      Bool("auto.leader.rebalance.enable", &C::auto_leader_rebalance_enable, kController,
           "the active controller moves leadership back to each partition's preferred replica (its first) "
           "when a broker leads fewer of its preferred partitions than leader.imbalance.per.broker.percentage allows"),
      Int("leader.imbalance.check.interval.seconds", &C::leader_imbalance_check_interval_seconds, 1, 86400,
          kController, "how often the leader imbalance is checked (first an interval after a controller takes over)"),
      Int("leader.imbalance.per.broker.percentage", &C::leader_imbalance_per_broker_percentage, 0, 100, kController,
          "the share of a broker's preferred partitions it may not lead before they are moved back"),
      Bool("auto.create.topics.enable", &C::auto_create_topics_enable, kBroker,
           "a Metadata request (allow_auto_topic_creation) or a produce naming an unknown topic creates it with "
           "num.partitions and default.replication.factor, answering LEADER_NOT_AVAILABLE / UNKNOWN_TOPIC_OR_PARTITION "
           "(retriable) until it exists. Off by default, unlike Kafka: a mistyped topic name fails loudly instead of "
           "creating a topic nobody reads"),
      // Consumer groups.
      Int("offsets.topic.num.partitions", &C::offsets_topic_num_partitions, 1, 10000, kBroker,
          "partitions of __consumer_offsets, created when the first group needs it (a group lives in "
          "hash(group.id) % partitions, and its coordinator is that partition's leader)"),
      Int("offsets.topic.replication.factor", &C::offsets_topic_replication_factor, 1, 1000, kBroker,
          "replicas of __consumer_offsets; it is not created (FindCoordinator answers COORDINATOR_NOT_AVAILABLE) "
          "while fewer brokers are registered, as in Kafka"),
      Int("offsets.retention.minutes", &C::offsets_retention_minutes, 1, INT32_MAX, kBroker,
          "committed offsets of a group that has been empty this long are removed (offsets committed without "
          "group management: this long after their commit)"),
      Int("offsets.retention.check.interval.ms", &C::offsets_retention_check_interval_ms, 1, INT32_MAX, kBroker,
          "how often expired offsets are looked for"),
      Int("offsets.commit.timeout.ms", &C::offsets_commit_timeout_ms, 1, INT32_MAX, kBroker,
          "an offset commit or group write not replicated to the ISR this long fails (COORDINATOR_NOT_AVAILABLE, "
          "retriable)"),
      Int("offset.metadata.max.bytes", &C::offset_metadata_max_bytes, 0, INT32_MAX, kBroker,
          "the largest metadata string of a committed offset (OFFSET_METADATA_TOO_LARGE above)"),
      Int("group.min.session.timeout.ms", &C::group_min_session_timeout_ms, 1, INT32_MAX, kBroker,
          "the shortest session a member may ask for (INVALID_SESSION_TIMEOUT below)"),
      Int("group.max.session.timeout.ms", &C::group_max_session_timeout_ms, 1, INT32_MAX, kBroker,
          "the longest session a member may ask for (INVALID_SESSION_TIMEOUT above)"),
      Int("group.initial.rebalance.delay.ms", &C::group_initial_rebalance_delay_ms, 0, INT32_MAX, kBroker,
          "how long the first rebalance of an empty group waits for more members (longer while they keep "
          "joining, up to the rebalance timeout)"),
      Int("group.max.size", &C::group_max_size, 1, INT32_MAX, kBroker,
          "the most members a group may have (GROUP_MAX_SIZE_REACHED)"),
      Int("group.consumer.session.timeout.ms", &C::group_consumer_session_timeout_ms, 1, INT32_MAX, kBroker,
          "a KIP-848 consumer group member (group.protocol=consumer) that sends no heartbeat this long is removed "
          "and its partitions go to the others"),
      Int("group.consumer.heartbeat.interval.ms", &C::group_consumer_heartbeat_interval_ms, 1, INT32_MAX, kBroker,
          "how often a KIP-848 consumer group member heartbeats (the coordinator tells it); less than "
          "group.consumer.session.timeout.ms"),
      Int("group.consumer.max.size", &C::group_consumer_max_size, 1, INT32_MAX, kBroker,
          "the most members a KIP-848 consumer group may have (GROUP_MAX_SIZE_REACHED)"),
      Int("group.share.session.timeout.ms", &C::group_share_session_timeout_ms, 1, INT32_MAX, kBroker,
          "a KIP-932 share group member that sends no heartbeat for this long is removed (its acquired records go "
          "back to the others when their locks end)"),
      Int("group.share.heartbeat.interval.ms", &C::group_share_heartbeat_interval_ms, 1, INT32_MAX, kBroker,
          "how often a share group member is told to heartbeat"),
      Int("group.share.max.size", &C::group_share_max_size, 1, 1000, kBroker,
          "the most members a share group may have (GROUP_MAX_SIZE_REACHED)"),
      Custom("group.consumer.assignors", "list", kBroker, false, "uniform, range (one or both, in order)",
             "the server-side assignors of KIP-848 consumer groups: the first is the default, a member may ask for "
             "another with group.remote.assignor (UNSUPPORTED_ASSIGNOR if it is not listed)",
             [](const ServerConfig& c) { return absl::StrJoin(c.group_consumer_assignors, ","); },
             [](const std::string& v, ServerConfig& c) -> absl::Status {
               std::vector<std::string> names;
               for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
                 std::string name(absl::StripAsciiWhitespace(item));
                 if (name != "uniform" && name != "range") {
                   return Bad(absl::StrCat(" = '", v, "': '", name, "' is not an assignor (uniform, range)"));
                 }
                 if (std::find(names.begin(), names.end(), name) != names.end()) {
                   return Bad(absl::StrCat(" = '", v, "': '", name, "' is named twice"));
                 }
                 names.push_back(std::move(name));
               }
               if (names.empty()) return Bad(" names no assignor (uniform, range)");
               c.group_consumer_assignors = std::move(names);
               return absl::OkStatus();
             }),
      // Transactions.
      Int("transaction.state.log.num.partitions", &C::transaction_state_log_num_partitions, 1, 10000, kBroker,
          "partitions of __transaction_state, created when the first transactional producer needs it (a "
          "transactional id lives in hash(transactional.id) % partitions, and its coordinator is that partition's "
          "leader)"),
      Int("transaction.state.log.replication.factor", &C::transaction_state_log_replication_factor, 1, 1000, kBroker,
          "replicas of __transaction_state; it is not created (FindCoordinator answers COORDINATOR_NOT_AVAILABLE) "
          "while fewer brokers are registered, as in Kafka"),
      Int("transaction.state.log.min.isr", &C::transaction_state_log_min_isr, 1, 1000, kBroker,
          "min.insync.replicas of __transaction_state"),
      Int("transaction.max.timeout.ms", &C::transaction_max_timeout_ms, 1, INT32_MAX, kBroker,
          "the longest transaction.timeout.ms a producer may ask for (INVALID_TRANSACTION_TIMEOUT above)"),
      Int("transaction.abort.timed.out.transaction.cleanup.interval.ms",
          &C::transaction_abort_timed_out_transaction_cleanup_interval_ms, 1, INT32_MAX, kBroker,
          "how often transactions open longer than their timeout are looked for and aborted (their producer fenced)"),
      Int("transactional.id.expiration.ms", &C::transactional_id_expiration_ms, 1, INT32_MAX, kBroker,
          "a transactional id whose transaction has not changed for this long (Empty, CompleteCommit or "
          "CompleteAbort) is expired: a tombstone in __transaction_state, and its next InitProducerId gets a new "
          "producer id"),
      Int("transaction.remove.expired.transaction.cleanup.interval.ms",
          &C::transaction_remove_expired_transaction_cleanup_interval_ms, 1, INT32_MAX, kBroker,
          "how often transactional ids past transactional.id.expiration.ms are looked for and expired"),
      Bool("transaction.partition.verification.enable", &C::transaction_partition_verification_enable, kBroker,
           "KIP-890 part 1: before a transactional batch opens a transaction on a partition, its leader asks the "
           "transaction coordinator whether the partition is in the producer's ongoing transaction, and refuses "
           "it (INVALID_TXN_STATE) if not, so that a batch delayed past its transaction's end cannot open a "
           "transaction nobody will close (a hanging transaction). Producers on transaction protocol version 2 "
           "(Produce v12) always have their leader add the partition instead, whatever this says"),
      // Share groups (KIP-932).
      Int("share.coordinator.state.topic.num.partitions", &C::share_coordinator_state_topic_num_partitions, 1, 10000,
          kBroker,
          "partitions of __share_group_state, created when a share partition's state is first asked for (the state "
          "of group:topicId:partition lives in hash(that key) % partitions, and its share coordinator is that "
          "partition's leader)"),
      Int("share.coordinator.state.topic.replication.factor", &C::share_coordinator_state_topic_replication_factor, 1,
          1000, kBroker,
          "replicas of __share_group_state; it is not created (FindCoordinator answers COORDINATOR_NOT_AVAILABLE) "
          "while fewer brokers are registered, as in Kafka"),
      Int("share.coordinator.state.topic.min.isr", &C::share_coordinator_state_topic_min_isr, 1, 1000, kBroker,
          "min.insync.replicas of __share_group_state"),
      Bool("delete.topic.enable", &C::delete_topic_enable, kController,
           "whether DeleteTopics deletes (false: TOPIC_DELETION_DISABLED)"),
      String("log.format", &C::log_format, kBoth, "text or json",
             "the server log's lines: text, or one JSON object per line (time, level, node, logger, message, "
             "fields) for log collectors", [](const std::string& v) -> absl::Status {
               if (v != "text" && v != "json") return Bad(absl::StrCat(" = '", v, "' must be text or json"));
               return absl::OkStatus();
             }),
      String("metrics.listener", &C::metrics_listener, kBoth, "host:port",
             "where Prometheus /metrics is served (empty: nowhere)", [](const std::string& v) -> absl::Status {
               if (v.find(':') == std::string::npos) return Bad(absl::StrCat(" = '", v, "' must be host:port"));
               return absl::OkStatus();
             }),
      Int("memory.release.interval.ms", &C::memory_release_interval_ms, 0, 3'600'000, kBoth,
          "how often the node gives the allocator's free pages back to the system when they exceed the larger of "
          "2 MiB and 1/16 of the allocated bytes (glibc's malloc_trim; server/memory_releaser.h). 0: never; with "
          "jemalloc its background thread does this instead"),
      // The broker and its listeners.
      Parsed("listeners", "list", kBroker, false, "NAME://host:port,...",
             "the Kafka listeners (port 0: any free port); required for a broker", &ParseListeners, &C::listeners),
      Parsed("advertised.listeners", "list", kBroker, false, "NAME://host:port,...",
             "where clients are told to connect, per listener name (default: the listener's own host and port)",
             &ParseListeners, &C::advertised_listeners),
      Custom("listener.security.protocol.map", "list", kBoth, false,
             "NAME:PLAINTEXT, NAME:SSL, NAME:SASL_PLAINTEXT or NAME:SASL_SSL,...",
             "each listener's security protocol", [](const C&) { return std::string("PLAINTEXT:PLAINTEXT,SSL:SSL"); },
             [](const std::string& v, C& c) -> absl::Status {
               c.listener_security_protocol_map.clear();
               for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
                 std::vector<std::string> kv = absl::StrSplit(absl::StripAsciiWhitespace(item), ':');
                 if (kv.size() != 2 || (kv[1] != "PLAINTEXT" && kv[1] != "SSL" && kv[1] != "SASL_PLAINTEXT" &&
                                        kv[1] != "SASL_SSL")) {
                   return Bad(absl::StrCat(": '", item,
                                           "' is not NAME:PLAINTEXT, NAME:SSL, NAME:SASL_PLAINTEXT or NAME:SASL_SSL"));
                 }
                 c.listener_security_protocol_map[kv[0]] = kv[1];
               }
               return absl::OkStatus();
             }),
      String("inter.broker.listener.name", &C::inter_broker_listener_name, kBroker, "a listener name",
             "the listener followers fetch from (default: the first listener), of any security protocol"),
      String("sasl.mechanism.inter.broker.protocol", &C::sasl_mechanism_inter_broker_protocol, kBroker,
             "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
             "the SASL mechanism of a SASL_* inter-broker listener's connections (Kafka's default, GSSAPI, is not "
             "supported); the broker's username and password are the username and password options of the "
             "listener's listener.name.<name>.<mechanism>.sasl.jaas.config"),
      String("ssl.endpoint.identification.algorithm", &C::ssl_endpoint_identification_algorithm, kBroker,
             "https or empty",
             "https: the certificate of a broker this broker connects to (SSL, SASL_SSL inter-broker listener) must "
             "name the host it was reached at; empty: only its chain is checked",
             [](const std::string& v) -> absl::Status {
               if (!v.empty() && v != "https") return Bad(absl::StrCat(" = '", v, "': https or empty"));
               return absl::OkStatus();
             }),
      Custom("log.dirs", "list", kBroker, false, "dir,...",
             "the formatted directories partitions are stored in; required for a broker", NoDefault,
             [](const std::string& v, C& c) -> absl::Status {
               c.log_dirs.clear();
               for (absl::string_view d : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
                 c.log_dirs.emplace_back(absl::StripAsciiWhitespace(d));
               }
               return absl::OkStatus();
             }),
      String("broker.rack", &C::broker_rack, kBroker, "", "the broker's rack, for placement and KIP-392 (none)"),
      Int("broker.heartbeat.interval.ms", &C::broker_heartbeat_interval_ms, 10, 600'000, kBroker,
          "how often a broker heartbeats to the active controller"),
      Int("num.network.threads", &C::num_network_threads, 1, 256, kBroker, "threads serving each listener's sockets"),
      Int("network.idle.poll.us", &C::network_idle_poll_us, 0, 10'000, kBroker,
          "microseconds a network thread, and a replica fetcher awaiting its leader's answer, keep polling after "
          "their last event before they sleep: an event within that time is served without waking a thread "
          "(docs/performance.md). 0: they sleep at once, as Kafka's do"),
      Int("num.io.threads", &C::num_io_threads, 1, 256, kBroker, "threads running request handlers"),
      String("network.thread.apis", &C::network_thread_apis, kBroker, "Produce, Fetch, both (comma-separated) or empty",
             "APIs whose handlers run on the network thread that read the request instead of on the num.io.threads "
             "pool, saving two thread switches per request (docs/performance.md); a topic's fsync (flush.messages) "
             "or a read of data not in the page cache then holds that thread's other connections. Empty: every "
             "handler on the pool, as Kafka does",
             [](const std::string& v) -> absl::Status { return NetworkThreadApis(v).status(); }),
      Int("max.in.flight.requests.per.connection", &C::max_in_flight_requests_per_connection, 1, 1000, kBroker,
          "requests of one connection the broker reads and handles before the first is answered, when they run on "
          "the network thread (network.thread.apis): an acks=all produce waits for its followers while the next "
          "one appends; answers still go back in request order. 1: one request at a time, as Kafka"),
      Int("socket.request.max.bytes", &C::socket_request_max_bytes, 1024, INT32_MAX, kBroker,
          "the largest request accepted; a larger one closes its connection"),
      Int("connections.max.idle.ms", &C::connections_max_idle_ms, 100, INT32_MAX, kBroker,
          "a connection idle this long is closed"),
      Int("min.insync.replicas", &C::min_insync_replicas, 1, 1000, kBroker,
          "the topic default: an acks=all produce needs this many in-sync replicas (NOT_ENOUGH_REPLICAS below it)"),
      // Replication.
      Int("num.replica.fetchers", &C::num_replica_fetchers, 1, 64, kBroker, "fetcher threads per source broker"),
      Int("replica.fetch.wait.max.ms", &C::replica_fetch_wait_max_ms, 0, 60000, kBroker,
          "how long a follower's fetch waits at the leader for replica.fetch.min.bytes"),
      Int("replica.fetch.min.bytes", &C::replica_fetch_min_bytes, 1, INT32_MAX, kBroker,
          "bytes a follower's fetch waits for"),
      Int("replica.fetch.max.bytes", &C::replica_fetch_max_bytes, 1024, INT32_MAX, kBroker,
          "bytes a follower fetches per partition (at least one batch)"),
      Int("replica.fetch.response.max.bytes", &C::replica_fetch_response_max_bytes, 1024, INT32_MAX, kBroker,
          "bytes of one follower fetch response"),
      Int("replica.fetch.backoff.ms", &C::replica_fetch_backoff_ms, 1, 600000, kBroker,
          "a follower's pause after a fetch error (leadership errors retry after 20 ms)"),
      Int("replica.lag.time.max.ms", &C::replica_lag_time_max_ms, 10, INT32_MAX, kBroker,
          "a follower not caught up for this long leaves the ISR"),
      Int("replica.alter.log.dirs.io.max.bytes.per.second", &C::replica_alter_log_dirs_io_max_bytes_per_second, 1,
          INT64_MAX, kBroker,
          "the copy of replicas moving between this broker's log dirs (AlterReplicaLogDirs), read plus write, "
          "together; dynamic: AlterConfigs on the broker or the cluster default"),
      Int("max.incremental.fetch.session.cache.slots", &C::max_incremental_fetch_session_cache_slots, 0, INT32_MAX,
          kBroker,
          "incremental fetch sessions (KIP-227) the broker keeps for consumers and followers; 0: none (every fetch "
          "is answered in full)"),
      String("replica.selector.class", &C::replica_selector_class, kBroker,
             "org.apache.kafka.common.replica.RackAwareReplicaSelector, or empty",
             "KIP-392: the rack-aware selector sends consumers to an in-sync replica in their rack (empty: the leader "
             "serves every consumer)",
             [](const std::string& v) -> absl::Status {
               if (!v.empty() && v != "org.apache.kafka.common.replica.RackAwareReplicaSelector") {
                 return Bad(absl::StrCat(" = '", v,
                                         "': only org.apache.kafka.common.replica.RackAwareReplicaSelector (or empty: "
                                         "the leader) is supported"));
               }
               return absl::OkStatus();
             }),
      // TLS.
      String("ssl.keystore.location", &C::ssl_keystore_location, kBoth, "a PEM file",
             "the SSL listeners' private key and certificate chain (on the controller listener also the client "
             "certificate a node presents to the controllers)"),
      Only("ssl.keystore.type", "PEM", kBoth, "the keystore's format", "only PEM is supported"),
      String("ssl.truststore.location", &C::ssl_truststore_location, kBoth, "a PEM file",
             "CA certificates that peers' certificates are checked against"),
      Only("ssl.truststore.type", "PEM", kBoth, "the truststore's format", "only PEM is supported"),
      String("ssl.principal.mapping.rules", &C::ssl_principal_mapping_rules, kBoth,
             "DEFAULT, RULE:pattern/replacement/[LU],...",
             "how a TLS client certificate's subject (RFC 2253) becomes a principal name, as in Kafka (KIP-371); a "
             "subject no rule matches is refused",
             [](const std::string& v) -> absl::Status {
               if (auto parsed = security::PrincipalMapper::Parse(v); !parsed.ok()) {
                 return Bad(absl::StrCat(": ", parsed.status().message()));
               }
               return absl::OkStatus();
             }),
      Custom("super.users", "list", kBoth, false, "User:name;User:name...",
             "principals every authorization allows (semicolon-separated, as in Kafka)", NoDefault,
             [](const std::string& v, C& c) -> absl::Status {
               c.super_users.clear();
               for (absl::string_view p : absl::StrSplit(v, ';', absl::SkipWhitespace())) {
                 p = absl::StripAsciiWhitespace(p);
                 size_t colon = p.find(':');
                 if (colon == absl::string_view::npos || colon == 0 || colon + 1 == p.size()) {
                   return Bad(absl::StrCat(": '", p, "' is not a principal (Type:name, such as User:admin)"));
                 }
                 c.super_users.insert(std::string(p));
               }
               return absl::OkStatus();
             }),
      String("authorizer.class.name", &C::authorizer_class_name, kBoth,
             "empty, org.apache.kafka.metadata.authorizer.StandardAuthorizer",
             "the authorizer: Kafka's StandardAuthorizer over the ACLs kept in the metadata log (CreateAcls, strata "
             "acls), checked by every Kafka API and the controllers' Admin service; empty: none, every authenticated "
             "request is allowed and the ACL APIs answer SECURITY_DISABLED",
             [](const std::string& v) -> absl::Status {
               if (!v.empty() && v != kStandardAuthorizer && v != "kafka.security.authorizer.AclAuthorizer") {
                 return Bad(absl::StrCat(" = '", v, "': only ", kStandardAuthorizer, " (or empty) is supported"));
               }
               if (v == "kafka.security.authorizer.AclAuthorizer") {
                 return Bad(absl::StrCat(" = '", v, "' is ZooKeeper's: use ", kStandardAuthorizer));
               }
               return absl::OkStatus();
             }),
      Bool("allow.everyone.if.no.acl.found", &C::allow_everyone_if_no_acl_found, kBoth,
           "with an authorizer: a resource no ACL applies to is open to everyone (false: only to super.users)"),
      Bool("authorizer.log.allowed", &C::authorizer_log_allowed, kBoth,
           "the authorizer's decision log names allowed decisions too (denials always; at most 10 lines a second)"),
      String("controller.listener.names", &C::controller_listener_names, kBoth, "a listener name",
             "the controllers' gRPC port as a listener: its security protocol in listener.security.protocol.map "
             "(PLAINTEXT, or SSL: mutual TLS, a certificate required of every caller; PLAINTEXT when unmapped) and "
             "its listener.name.<name>.ssl.* settings, read by controllers and by brokers alike"),
      Custom("listener.name.<name>.<setting>", "string", kBoth, false, "as the setting",
             "a per-listener value of ssl.keystore.location, ssl.keystore.type, ssl.truststore.location, "
             "ssl.truststore.type, ssl.client.auth, ssl.principal.mapping.rules, sasl.enabled.mechanisms or "
             "connections.max.reauth.ms (the listener's name in lower case), taking precedence over the setting "
             "itself; <mechanism>.sasl.jaas.config (plain, scram-sha-256, scram-sha-512, oauthbearer): the listener's "
             "JAAS entry for a mechanism, as in Kafka (PlainLoginModule's user_<name>=\"<password>\" are the PLAIN "
             "users); oauthbearer.sasl.server.callback.handler.class: Kafka's OAuthBearerValidatorCallbackHandler only",
             NoDefault, [](const std::string&, C&) { return absl::OkStatus(); }),
      Custom("sasl.enabled.mechanisms", "list", kBroker, false, "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER",
             "the SASL mechanisms SASL_PLAINTEXT and SASL_SSL listeners offer (Kafka's default, GSSAPI, is not "
             "supported: name them; per listener as listener.name.<name>.sasl.enabled.mechanisms)",
             [](const C& c) { return absl::StrJoin(c.sasl_enabled_mechanisms, ","); },
             [](const std::string& v, C& c) -> absl::Status {
               c.sasl_enabled_mechanisms.clear();
               for (absl::string_view m : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
                 m = absl::StripAsciiWhitespace(m);
                 if (m != "PLAIN" && m != "SCRAM-SHA-256" && m != "SCRAM-SHA-512" && m != "OAUTHBEARER") {
                   return Bad(absl::StrCat(": '", m, "' is not PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER"));
                 }
                 c.sasl_enabled_mechanisms.push_back(std::string(m));
               }
               return absl::OkStatus();
             }),
      String("sasl.oauthbearer.jwks.endpoint.url", &C::sasl_oauthbearer_jwks_endpoint_url, kBroker,
             "file:///path, /path, http://... or https://...",
             "the JSON Web Key Set OAUTHBEARER tokens (RS256, ES256 JWTs) are checked against, a file or an HTTP(S) "
             "endpoint (https checked against the listener's oauthbearer.sasl.jaas.config option "
             "ssl.truststore.location, else the system's CAs); read in the background every "
             "sasl.oauthbearer.jwks.endpoint.refresh.ms and when a token names a key it lacks; required for OAUTHBEARER"),
      Int("sasl.oauthbearer.jwks.endpoint.refresh.ms", &C::sasl_oauthbearer_jwks_endpoint_refresh_ms, 1000, INT64_MAX,
          kBroker, "how often the JWKS is read again"),
      String("sasl.oauthbearer.expected.issuer", &C::sasl_oauthbearer_expected_issuer, kBroker, "",
             "the iss a token must carry (empty: not checked)"),
      Custom("sasl.oauthbearer.expected.audience", "list", kBroker, false, "aud,...",
             "audiences of which a token's aud must name one (empty: not checked)",
             [](const C& c) { return absl::StrJoin(c.sasl_oauthbearer_expected_audience, ","); },
             [](const std::string& v, C& c) -> absl::Status {
               c.sasl_oauthbearer_expected_audience.clear();
               for (absl::string_view a : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
                 c.sasl_oauthbearer_expected_audience.push_back(std::string(absl::StripAsciiWhitespace(a)));
               }
               return absl::OkStatus();
             }),
      Int("sasl.oauthbearer.clock.skew.seconds", &C::sasl_oauthbearer_clock_skew_seconds, 0, 3600, kBroker,
          "how far a token's exp, nbf and iat may be off this broker's clock"),
      String("sasl.oauthbearer.sub.claim.name", &C::sasl_oauthbearer_sub_claim_name, kBroker, "a claim name",
             "the claim that names the principal (User:<value>)"),
      String("sasl.oauthbearer.scope.claim.name", &C::sasl_oauthbearer_scope_claim_name, kBroker, "a claim name",
             "the claim that holds the token's scope"),
      Int("connections.max.reauth.ms", &C::connections_max_reauth_ms, 0, INT64_MAX, kBroker,
          "how long a SASL session lasts before the client must re-authenticate on its connection (KIP-368; told "
          "to clients in SaslAuthenticate v1+); a request after it closes the connection. 0: sessions never end"),
      String("ssl.client.auth", &C::ssl_client_auth, kBroker, "none, requested, required",
             "whether SSL clients are asked for a certificate (required: refused without one)",
             [](const std::string& v) -> absl::Status {
               if (v != "none" && v != "requested" && v != "required") {
                 return Bad(absl::StrCat(" = '", v, "' must be none, requested or required"));
               }
               return absl::OkStatus();
             }),
      // The broker's background work on its logs.
      Int("log.retention.check.interval.ms", &C::log_retention_check_interval_ms, 1, INT32_MAX, kBroker,
          "how often segments past retention are deleted"),
      Bool("log.cleaner.enable", &C::log_cleaner_enable, kBroker,
           "runs the log cleaner, which compacts topics with cleanup.policy=compact (off: they only grow)"),
      Int("log.cleaner.threads", &C::log_cleaner_threads, 1, 64, kBroker,
          "threads compacting logs, each on its own log; dynamic: AlterConfigs on the broker or the cluster default"),
      Int("log.cleaner.dedupe.buffer.size", &C::log_cleaner_dedupe_buffer_size, 1 << 20, int64_t{1} << 40, kBroker,
          "memory for the cleaner threads' key -> offset maps, shared among them; a cleaning maps what fits and the "
          "rest waits for the next; dynamic: AlterConfigs on the broker or the cluster default"),
      Int("log.cleaner.io.max.bytes.per.second", &C::log_cleaner_io_max_bytes_per_second, 1, INT64_MAX, kBroker,
          "the cleaner threads' read plus write rate, together; dynamic: AlterConfigs on the broker or the cluster "
          "default"),
      Int("log.cleaner.backoff.ms", &C::log_cleaner_backoff_ms, 1, INT32_MAX, kBroker,
          "how long a cleaner thread waits when no log needs cleaning; dynamic: AlterConfigs on the broker or the "
          "cluster default"),
      Int("replica.high.watermark.checkpoint.interval.ms", &C::replica_high_watermark_checkpoint_interval_ms, 1,
          INT32_MAX, kBroker, "how often high watermarks are checkpointed (replication-offset-checkpoint)"),
      Int("log.flush.offset.checkpoint.interval.ms", &C::log_flush_offset_checkpoint_interval_ms, 1, INT32_MAX,
          kBroker,
          "how often recovery points are checkpointed (recovery-point-offset-checkpoint): after an unclean "
          "stop, recovery starts at the last checkpointed recovery point"),
      Int("log.flush.start.offset.checkpoint.interval.ms", &C::log_flush_start_offset_checkpoint_interval_ms, 1,
          INT32_MAX, kBroker, "how often log start offsets are checkpointed (log-start-offset-checkpoint)"),
      Int("log.flush.scheduler.interval.ms", &C::log_flush_scheduler_interval_ms, 1, INT64_MAX, kBroker,
          "how often logs are checked against flush.ms / log.flush.interval.ms (the default: never)"),
      // Tiered storage (KIP-405).
      Bool("remote.log.storage.system.enable", &C::remote_log_storage_system_enable, kBoth,
           "whether topics may set remote.storage.enable (the brokers then run the remote log manager; the "
           "controllers refuse the topic setting without it)"),
      String("remote.log.storage.path", &C::remote_log_storage_path, kBroker, "a directory",
             "where the filesystem remote storage manager keeps remote segments: a directory every broker reaches "
             "(a shared volume or NFS); required with remote.log.storage.system.enable when "
             "rsm.config.storage.backend.class is filesystem"),
      Int("remote.log.manager.thread.pool.size", &C::remote_log_manager_thread_pool_size, 1, 1024, kBroker,
          "threads that copy leaders' rolled segments to the remote tier and apply retention there"),
      Int("remote.log.manager.task.interval.ms", &C::remote_log_manager_task_interval_ms, 1, INT32_MAX, kBroker,
          "how often each led partition with remote storage is looked at for segments to copy or delete"),
      Int("remote.log.manager.task.retry.backoff.ms", &C::remote_log_manager_task_retry_backoff_ms, 1, INT32_MAX,
          kBroker, "the first pause after a failed remote copy or delete; it doubles up to the max"),
      Int("remote.log.manager.task.retry.backoff.max.ms", &C::remote_log_manager_task_retry_backoff_max_ms, 1,
          INT32_MAX, kBroker, "the longest pause between retries of a failed remote copy or delete"),
      Int("remote.log.reader.threads", &C::remote_log_reader_threads, 1, 1024, kBroker,
          "threads that read fetched records from the remote tier (never a network or io thread)"),
      Int("remote.log.manager.copy.max.bytes.per.second", &C::remote_log_manager_copy_max_bytes_per_second, 1,
          INT64_MAX, kBroker,
          "the bytes per second a broker's copies to the remote tier read and upload, together (KIP-956; copies "
          "wait while the rate over the quota windows is above it); dynamic"),
      Int("remote.log.manager.copy.quota.window.num", &C::remote_log_manager_copy_quota_window_num, 1, INT32_MAX,
          kBroker, "the samples the copy quota's rate is measured over"),
      Int("remote.log.manager.copy.quota.window.size.seconds", &C::remote_log_manager_copy_quota_window_size_seconds,
          1, INT32_MAX, kBroker, "the length of each sample of the copy quota"),
      Int("remote.log.manager.fetch.max.bytes.per.second", &C::remote_log_manager_fetch_max_bytes_per_second, 1,
          INT64_MAX, kBroker,
          "the bytes per second a broker's fetches read from the remote tier, together (KIP-956; above it a "
          "fetch reads nothing remote for its partitions, which answer no records); dynamic"),
      Int("remote.log.manager.fetch.quota.window.num", &C::remote_log_manager_fetch_quota_window_num, 1, INT32_MAX,
          kBroker, "the samples the fetch quota's rate is measured over"),
      Int("remote.log.manager.fetch.quota.window.size.seconds",
          &C::remote_log_manager_fetch_quota_window_size_seconds, 1, INT32_MAX, kBroker,
          "the length of each sample of the fetch quota"),
      Int("remote.log.orphan.sweep.interval.ms", &C::remote_log_orphan_sweep_interval_ms, 1, INT64_MAX, kBroker,
          "how often one broker (the unfenced one with the lowest id) lists the remote tier and deletes the objects "
          "no copy in the metadata names (Strata's: Kafka has no such sweep); a deleted topic's objects go at once"),
      Int("remote.log.orphan.grace.ms", &C::remote_log_orphan_grace_ms, 0, INT64_MAX, kBroker,
          "how old an object no copy names must be before a sweep deletes it: a copy whose start this broker has "
          "not heard of yet is younger (Strata's)"),
      Bool("follower.fetch.last.tiered.offset.enable", &C::follower_fetch_last_tiered_offset_enable, kBroker,
           "KIP-1023: an empty follower, or one whose position is in the leader's remote tier, starts at the "
           "leader's earliest pending upload offset (holding only the untiered tail) instead of its local log start; "
           "a topic may override it"),
      Int("remote.log.index.file.cache.total.size.bytes", &C::remote_log_index_file_cache_total_size_bytes, 1,
          INT64_MAX, kBroker, "bytes of remote segments' offset and time indexes kept in memory for remote reads"),
  };
}

}  // namespace strata::server
