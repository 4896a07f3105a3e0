#include "server/server_config.h"

#include "storage/log_config.h"

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"

namespace strata::server {
namespace {

TEST(ServerConfig, ParsesKafkaNamedSettings) {
  auto c = ServerConfig::Parse(
      "# a comment\nnode.id=2\nprocess.roles=controller\n"
      "controller.quorum.voters=1@localhost:9093, 2@127.0.0.1:9094,3@ctrl-3:9095\n"
      "metadata.log.dir=/var/lib/strata/meta\ncontroller.quorum.election.timeout.ms=250\n"
      "metadata.log.max.record.bytes.between.snapshots=1048576\nmetadata.log.segment.bytes=8388608\n"
      "metrics.listener=0.0.0.0:9404\n",
      "s.properties");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->node_id, 2);
  EXPECT_EQ(c->voters.size(), 3u);
  EXPECT_EQ(c->voters.at(3), "ctrl-3:9095");
  EXPECT_EQ(c->metadata_log_dir, "/var/lib/strata/meta");
  EXPECT_EQ(c->election_timeout_ms, 250);
  EXPECT_EQ(c->snapshot_bytes, 1 << 20);
  EXPECT_EQ(c->segment_bytes, 8 << 20);
  EXPECT_EQ(c->metrics_listener, "0.0.0.0:9404");
}

TEST(ServerConfig, ConsumerGroupSettingsHaveKafkasNamesAndDefaults) {
  const std::string broker =
      "node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\nlog.dirs=/l\n"
      "listeners=PLAINTEXT://h:2\n";
  auto defaults = ServerConfig::Parse(broker, "s.properties");
  ASSERT_TRUE(defaults.ok()) << defaults.status();
  EXPECT_EQ(defaults->group_consumer_session_timeout_ms, 45000);
  EXPECT_EQ(defaults->group_consumer_heartbeat_interval_ms, 5000);
  EXPECT_EQ(defaults->group_consumer_assignors, (std::vector<std::string>{"uniform", "range"}));
  auto set = ServerConfig::Parse(broker + "group.consumer.assignors= range , uniform\n"
                                          "group.consumer.session.timeout.ms=10000\n"
                                          "group.consumer.heartbeat.interval.ms=1000\ngroup.consumer.max.size=3\n",
                                 "s.properties");
  ASSERT_TRUE(set.ok()) << set.status();
  EXPECT_EQ(set->group_consumer_assignors, (std::vector<std::string>{"range", "uniform"}));
  EXPECT_EQ(set->group_consumer_session_timeout_ms, 10000);
  EXPECT_EQ(set->group_consumer_heartbeat_interval_ms, 1000);
  EXPECT_EQ(set->group_consumer_max_size, 3);
}

// A broker with tiered storage on the directory store, to which the rsm.config cases add.
const std::string kTieredBroker =
    "node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\nlog.dirs=/l\n"
    "listeners=PLAINTEXT://h:2\nremote.log.storage.system.enable=true\nremote.log.storage.path=/r\n";

TEST(ServerConfig, TheRemoteTiersStoreIsChosenBySettings) {
  auto fs = ServerConfig::Parse(kTieredBroker, "s.properties");
  ASSERT_TRUE(fs.ok()) << fs.status();
  EXPECT_FALSE(fs->s3_backend());
  auto s3 = ServerConfig::Parse(
      "node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\nlog.dirs=/l\n"
      "listeners=PLAINTEXT://h:2\nremote.log.storage.system.enable=true\n"
      "rsm.config.storage.backend.class=io.aiven.kafka.tieredstorage.storage.s3.S3Storage\n"
      "rsm.config.storage.s3.bucket.name=tiered\nrsm.config.storage.s3.endpoint.url=http://127.0.0.1:9000/\n"
      "rsm.config.key.prefix=a/\nrsm.config.storage.s3.multipart.upload.part.size=8388608\n",
      "s.properties");
  ASSERT_TRUE(s3.ok()) << s3.status();
  EXPECT_TRUE(s3->s3_backend());
  EXPECT_EQ(s3->rsm_backend, "s3");
  EXPECT_EQ(s3->rsm_s3_bucket, "tiered");
  EXPECT_EQ(s3->rsm_key_prefix, "a/");
  EXPECT_EQ(s3->rsm_s3_multipart_upload_part_size, 8 << 20);
  EXPECT_EQ(s3->rsm_s3_region, "us-east-1");
}

TEST(ServerConfig, EveryMistakeNamesTheKeyAndLine) {
  const std::string base = "node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n";
  struct Case {
    std::string text;
    std::string words;
  } cases[] = {
      {base + "log.dirs.typo=/x\n", "line 5: 'log.dirs.typo' is not a setting strata-server knows"},
      {"process.roles=controller\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n", "'node.id' is required"},
      {"node.id=zero\nprocess.roles=controller\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n",
       "line 1: 'node.id' must be a positive integer"},
      {"node.id=1\nprocess.roles=router\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n",
       "roles are 'broker' and 'controller'"},
      {"node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\nlisteners=PLAINTEXT://h:1\n",
       "'log.dirs' is required for a broker"},
      {"node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\nlog.dirs=/l\n"
       "listeners=h:1\n",
       "listener 'h:1' is not NAME://host:port"},
      {"node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@h\nmetadata.log.dir=/m\n",
       "voter '1@h' has no valid host:port"},
      {"node.id=4\nprocess.roles=controller\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n",
       "does not list node.id 4"},
      {base + "controller.quorum.election.timeout.ms=5\n", "must be 50..600000"},
      {base + "no equals sign\n", "line 5: 'no equals sign' is not key=value"},
      {base + "metadata.log.segment.bytes=4096\n", "'metadata.log.segment.bytes' = '4096' must be 2097152.."},
      {base + "metadata.log.max.record.bytes.between.snapshots=0\n", "must be 1.."},
      {base + "metrics.listener=9404\n", "'metrics.listener' = '9404' must be host:port"},
      {base + "auto.create.topics.enable=yes\n", "must be true or false"},
      {base + "group.consumer.assignors=uniform,sticky\n", "'sticky' is not an assignor (uniform, range)"},
      {base + "group.consumer.assignors=range,range\n", "'range' is named twice"},
      {base + "group.consumer.heartbeat.interval.ms=45000\n",
       "'group.consumer.heartbeat.interval.ms' (45000) must be less than group.consumer.session.timeout.ms (45000)"},
      {base + "log.retention.ms=soon\n", "'log.retention.ms' = 'soon' is not an integer"},
      {base + "log.message.timestamp.type=Now\n", "must be CreateTime or LogAppendTime"},
      {base + "min.insync.replicas=0\n", "must be 1..1000"},
      {base + "listeners=SSL://h:1\n", "listener SSL is SSL but ssl.keystore.location is not set"},
      {base + "listeners=INTERNAL://h:1\n", "listener INTERNAL has no security protocol"},
      {base + "listeners=PLAINTEXT://h:1\nadvertised.listeners=OTHER://x:2\n", "OTHER is not one of the listeners"},
      {base + "ssl.keystore.type=JKS\n", "only PEM is supported"},
      {base + "listeners=SSL://h:1\nssl.keystore.location=/k\nssl.client.auth=required\n",
       "listener SSL: ssl.client.auth needs ssl.truststore.location"},
      {base + "listeners=SSL://h:1\nssl.keystore.location=/k\nlistener.name.ssl.ssl.client.auth=required\n",
       "listener SSL: ssl.client.auth needs ssl.truststore.location"},
      {base + "listener.name.ssl.ssl.client.auth=always\n",
       "line 5: 'listener.name.ssl.ssl.client.auth' = 'always' must be none, requested or required"},
      {base + "listener.name.ssl.num.io.threads=4\n", "is not listener.name.<name>.<setting> for a setting"},
      {base + "listener.name.ssl\n", "is not key=value"},
      {base + "listener.security.protocol.map=CONTROLLER:SSL\n",
       "the controller listener CONTROLLER is SSL but neither listener.name.controller.ssl.keystore.location nor "
       "ssl.keystore.location is set"},
      {base + "listener.security.protocol.map=CONTROLLER:SSL\nssl.keystore.location=/k\n",
       "neither listener.name.controller.ssl.truststore.location nor ssl.truststore.location"},
      {base + "controller.listener.names=A,B\n", "must name one listener"},
      {base + "ssl.principal.mapping.rules=RULE:^CN=(.*)$/$1\n", "invalid rule 'RULE:^CN=(.*)$/$1'"},
      {base + "super.users=admin\n", "'admin' is not a principal"},
      {base + "network.thread.apis=Produce,Metadata\n", "'Metadata' is not Produce or Fetch"},
      // The quorum: one of the two ways, and the controller listener where it is needed.
      {"node.id=1\nprocess.roles=controller\nmetadata.log.dir=/m\n",
       "exactly one of 'controller.quorum.voters' (a static quorum) and 'controller.quorum.bootstrap.servers'"},
      {base + "controller.quorum.bootstrap.servers=h:1\n", "exactly one of 'controller.quorum.voters'"},
      {"node.id=1\nprocess.roles=controller\ncontroller.quorum.bootstrap.servers=h:1\nmetadata.log.dir=/m\n",
       "a controller of a dynamic quorum (controller.quorum.bootstrap.servers) listens on the listener named by "
       "controller.listener.names; add CONTROLLER://host:port to 'listeners'"},
      {"node.id=1\nprocess.roles=controller\ncontroller.quorum.bootstrap.servers=h:1\nmetadata.log.dir=/m\n"
       "listeners=CONTROLLER://h:0\n",
       "the controller listener CONTROLLER needs a fixed port"},
      {"node.id=1\nprocess.roles=controller\ncontroller.quorum.bootstrap.servers=h:1,h\nmetadata.log.dir=/m\n",
       "'controller.quorum.bootstrap.servers': 'h' is not <host>:<port>"},
      {"node.id=1\nprocess.roles=controller\ncontroller.quorum.bootstrap.servers=h:1,h:1\nmetadata.log.dir=/m\n",
       "'h:1' appears twice"},
      {base + "listeners=CONTROLLER://h:2\n",
       "the controller listener CONTROLLER is h:2, but controller.quorum.voters names h:1 for node 1"},
      {"node.id=7\nprocess.roles=broker\ncontroller.quorum.bootstrap.servers=h:1\nmetadata.log.dir=/m\nlog.dirs=/l\n"
       "listeners=PLAINTEXT://h:2,CONTROLLER://h:3\n",
       "CONTROLLER is the controller listener (controller.listener.names), but this node is no controller"},
      // The remote tier's store (rsm.config.*).
      {kTieredBroker + "rsm.config.storage.backend.class=gcs\n",
       "'rsm.config.storage.backend.class': 'gcs' is not filesystem or s3"},
      {kTieredBroker + "rsm.config.storage.backend.class=s3\n",
       "= s3 needs rsm.config.storage.s3.bucket.name"},
      {kTieredBroker + "rsm.config.storage.s3.endpoint.url=127.0.0.1:9000\n",
       "must be http://host[:port] or https://host[:port]"},
      {kTieredBroker + "rsm.config.storage.s3.endpoint.url=http://h:1/path\n", "must be http://host[:port]"},
      {kTieredBroker + "rsm.config.storage.s3.path.style.access.enabled=yes\n", "must be true, false or empty"},
      {kTieredBroker + "rsm.config.storage.s3.multipart.upload.part.size=1048576\n", "must be 5242880.."},
      {"node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\nlog.dirs=/l\n"
       "listeners=PLAINTEXT://h:2\nremote.log.storage.system.enable=true\n",
       "needs remote.log.storage.path (the directory every broker reaches), or rsm.config.storage.backend.class=s3"},
  };
  for (const auto& c : cases) {
    auto parsed = ServerConfig::Parse(c.text, "s.properties");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.words), absl::string_view::npos) << parsed.status();
  }
}

TEST(ServerConfig, ABrokerNeedsNoVoteAndNamesItsListenersAndLogDirs) {
  auto c = ServerConfig::Parse(
      "node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:9093\nmetadata.log.dir=/m\n"
      "log.dirs=/data/a, /data/b\nlisteners=PLAINTEXT://127.0.0.1:9092\nbroker.rack=r1\n"
      "broker.heartbeat.interval.ms=500\n",
      "b.properties");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->broker);
  EXPECT_FALSE(c->controller);
  EXPECT_EQ(c->log_dirs, (std::vector<std::string>{"/data/a", "/data/b"}));
  ASSERT_EQ(c->listeners.size(), 1u);
  EXPECT_EQ(c->listeners[0].name, "PLAINTEXT");
  EXPECT_EQ(c->listeners[0].host, "127.0.0.1");
  EXPECT_EQ(c->listeners[0].port, 9092);
  EXPECT_EQ(c->broker_rack, "r1");
  EXPECT_EQ(c->broker_heartbeat_interval_ms, 500);
}

TEST(ServerConfig, ADynamicQuorumsControllerListensOnItsControllerListenerWhichServesNoKafka) {
  auto c = ServerConfig::Parse(
      "node.id=2\nprocess.roles=broker,controller\ncontroller.quorum.bootstrap.servers=h1:9093, h2:9093\n"
      "metadata.log.dir=/m\nlog.dirs=/d\nlisteners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://0.0.0.0:9093\n"
      "advertised.listeners=CONTROLLER://h2:9093\n",
      "d.properties");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->dynamic_quorum());
  EXPECT_TRUE(c->voters.empty());
  EXPECT_EQ(c->bootstrap_servers, (std::vector<std::string>{"h1:9093", "h2:9093"}));
  // Kafka is served on PLAINTEXT only; the controller listens on CONTROLLER and is
  // reached at its advertised address.
  ASSERT_EQ(c->listeners.size(), 1u);
  EXPECT_EQ(c->listeners[0].name, "PLAINTEXT");
  ASSERT_TRUE(c->controller_listener.has_value());
  EXPECT_EQ(c->controller_listener->security_protocol, "PLAINTEXT");
  EXPECT_EQ(c->ControllerAddress(), "0.0.0.0:9093");
  EXPECT_EQ(c->ControllerAdvertised(), (std::pair<std::string, int32_t>("h2", 9093)));

  // A static quorum's controller may name its listener too, at its voters entry.
  auto s = ServerConfig::Parse(
      "node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@h:9093\nmetadata.log.dir=/m\n"
      "listeners=CONTROLLER://h:9093\n",
      "s.properties");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_FALSE(s->dynamic_quorum());
  EXPECT_EQ(s->ControllerAddress(), "h:9093");
  EXPECT_EQ(s->ControllerAdvertised(), (std::pair<std::string, int32_t>("h", 9093)));
}

TEST(ServerConfig, ListenersLogDefaultsAndTls) {
  auto c = ServerConfig::Parse(
      "node.id=7\nprocess.roles=broker\ncontroller.quorum.voters=1@h:9093\nmetadata.log.dir=/m\nlog.dirs=/d\n"
      "listeners=PLAINTEXT://0.0.0.0:9092,CLIENTS://0.0.0.0:9093\n"
      "advertised.listeners=PLAINTEXT://broker-7:9092,CLIENTS://kafka.example:19093\n"
      "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CLIENTS:SSL\nssl.keystore.location=/etc/k.pem\n"
      "ssl.truststore.location=/etc/ca.pem\nssl.client.auth=required\nlog.retention.ms=1000\n"
      "log.message.timestamp.type=LogAppendTime\nmessage.max.bytes=2048\nnum.io.threads=4\nmin.insync.replicas=2\n"
      "auto.create.topics.enable=true\n",
      "b.properties");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_TRUE(c->auto_create_topics_enable);
  ASSERT_EQ(c->listeners.size(), 2u);
  EXPECT_EQ(c->listeners[0].security_protocol, "PLAINTEXT");
  EXPECT_EQ(c->listeners[0].advertised_host, "broker-7");
  EXPECT_EQ(c->listeners[1].security_protocol, "SSL");
  EXPECT_EQ(c->listeners[1].host, "0.0.0.0");
  EXPECT_EQ(c->listeners[1].advertised_host, "kafka.example");
  EXPECT_EQ(c->listeners[1].advertised_port, 19093);
  EXPECT_EQ(c->ssl_client_auth, "required");
  EXPECT_EQ(c->log_settings.at("log.retention.ms"), "1000");
  EXPECT_EQ(c->log_settings.at("log.message.timestamp.type"), "LogAppendTime");
  EXPECT_EQ(c->log_settings.at("message.max.bytes"), "2048");
  EXPECT_EQ(c->num_io_threads, 4);
  EXPECT_EQ(c->min_insync_replicas, 2);
}

// Kafka's per-listener settings: listener.name.<name>.<setting> before the setting
// itself; the controllers' port is the listener controller.listener.names names.
TEST(ServerConfig, PerListenerSettingsAndTheControllerListener) {
  auto c = ServerConfig::Parse(
      "node.id=1\nprocess.roles=broker,controller\ncontroller.quorum.voters=1@h:9093\nmetadata.log.dir=/m\n"
      "log.dirs=/d\nlisteners=PLAINTEXT://h:9092,CLIENTS://h:9094\n"
      "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CLIENTS:SSL,CONTROL:SSL\ncontroller.listener.names=CONTROL\n"
      "ssl.keystore.location=/etc/k.pem\nssl.truststore.location=/etc/ca.pem\n"
      "listener.name.control.ssl.keystore.location=/etc/node.pem\n"
      "listener.name.CLIENTS.ssl.client.auth=required\n"
      "ssl.principal.mapping.rules=RULE:^CN=(.*?),OU=Nodes$/$1/L,DEFAULT\nsuper.users=User:admin; User:CN=ops\n",
      "b.properties");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->ControllerSecurityProtocol(), "SSL");
  EXPECT_EQ(c->ListenerSetting("CONTROL", "ssl.keystore.location", c->ssl_keystore_location), "/etc/node.pem");
  EXPECT_EQ(c->ListenerSetting("CONTROL", "ssl.truststore.location", c->ssl_truststore_location), "/etc/ca.pem");
  EXPECT_EQ(c->ListenerSetting("CLIENTS", "ssl.client.auth", c->ssl_client_auth), "required");
  EXPECT_EQ(c->ListenerSetting("PLAINTEXT", "ssl.client.auth", c->ssl_client_auth), "none");
  EXPECT_EQ(c->super_users, (std::set<std::string>{"User:admin", "User:CN=ops"}));
  // Unmapped, the controller listener is PLAINTEXT.
  auto plain = ServerConfig::Parse(
      "node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@h:9093\nmetadata.log.dir=/m\n", "c.properties");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->ControllerSecurityProtocol(), "PLAINTEXT");
}

TEST(ServerConfig, NetworkThreadApisNamesProduceAndFetchOnly) {
  EXPECT_EQ(NetworkThreadApis("Produce,Fetch").value(), (std::set<int16_t>{0, 1}));
  EXPECT_EQ(NetworkThreadApis(" Fetch ").value(), (std::set<int16_t>{1}));
  EXPECT_TRUE(NetworkThreadApis("").value().empty());
  EXPECT_FALSE(NetworkThreadApis("produce").ok());  // API names as Kafka spells them
}

TEST(ServerConfig, EverySettingOfTheTableIsReadAndDocumented) {
  const std::string base = "node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n";
  const std::string reference = ConfigurationReference();
  const ServerConfig defaults;
  for (const ServerSetting& s : ServerSettings()) {
    EXPECT_NE(reference.find("| `" + s.name + "` |"), std::string::npos) << s.name;
    EXPECT_FALSE(s.doc.empty()) << s.name;
    if (s.required) continue;
    // Its documented default is a value it accepts, and gives the default config.
    std::string value = s.default_value(defaults);
    auto parsed = ServerConfig::Parse(base + s.name + "=" + value + "\n", "s.properties");
    if (value.empty() && !parsed.ok()) continue;  // no default: a value is needed (listeners, ...)
    ASSERT_TRUE(parsed.ok()) << s.name << "=" << value << ": " << parsed.status();
    EXPECT_EQ(s.default_value(*parsed), value) << s.name;
  }
  for (const storage::TopicSetting& s : storage::TopicSettings()) {
    EXPECT_NE(reference.find("| `" + s.name + "` |"), std::string::npos) << s.name;
    if (s.broker_key.empty()) continue;
    // The broker-level name is a setting strata-server takes: a log default, or its own.
    auto parsed = ServerConfig::Parse(base + s.broker_key + "=" + s.default_value + "\n", "s.properties");
    EXPECT_TRUE(parsed.ok()) << s.broker_key << ": " << parsed.status();
  }
  EXPECT_TRUE(IsBrokerLogSetting("log.segment.bytes"));
  EXPECT_TRUE(IsBrokerLogSetting("message.max.bytes"));
  EXPECT_TRUE(IsBrokerLogSetting("compression.type"));
  EXPECT_FALSE(IsBrokerLogSetting("segment.bytes"));  // the topic's name
  EXPECT_FALSE(IsBrokerLogSetting("min.insync.replicas"));  // the server's own setting, not the log's
}

TEST(ServerConfig, AKeyOutsideTheTableIsRefusedEvenWhenItLooksLikeALogSetting) {
  const std::string base = "node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@h:1\nmetadata.log.dir=/m\n";
  // retention.ms is a topic setting: a broker reads log.retention.ms.
  for (const char* key : {"retention.ms", "log.flush.typo", "num.io.thread"}) {
    auto parsed = ServerConfig::Parse(base + key + "=1\n", "s.properties");
    ASSERT_FALSE(parsed.ok()) << key;
    EXPECT_NE(parsed.status().message().find("is not a setting strata-server knows"), absl::string_view::npos);
  }
}

TEST(ServerConfig, AConfigFileThatCannotBeReadIsAReadErrorNotAnEmptyConfig) {
  testing::TempDir tmp;
  auto missing = ServerConfig::Load(tmp.Sub("no-such.properties"), {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("cannot read config file"), absl::string_view::npos) << missing.status();
  // A directory opens but every read fails (EISDIR): that error, not "node.id is required".
  auto unreadable = ServerConfig::Load(tmp.path(), {});
  ASSERT_FALSE(unreadable.ok());
  EXPECT_NE(unreadable.status().message().find("cannot read config file " + tmp.path()), absl::string_view::npos)
      << unreadable.status();
  EXPECT_EQ(unreadable.status().message().find("node.id"), absl::string_view::npos) << unreadable.status();
}

}  // namespace
}  // namespace strata::server

namespace strata::server {
namespace {

// The inter-broker listener may be SASL_SSL: the fetchers' client side is the listener's
// truststore and keystore, sasl.mechanism.inter.broker.protocol and the broker's own
// username and password from the listener's JAAS entry for that mechanism.
TEST(ServerConfig, ASaslSslInterBrokerListenerGivesTheFetchersTheirSecurity) {
  testing::TempDir dir;
  const std::string ca = dir.Sub("ca.pem"), keystore = dir.Sub("node.pem");
  for (const std::string& file : {ca, keystore}) {  // only their being readable is checked here
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr) << file;
    std::fclose(f);
  }
  const std::string base =
      "node.id=2\nprocess.roles=broker\ncontroller.quorum.voters=1@h:9093\nmetadata.log.dir=/m\nlog.dirs=/d\n"
      "listeners=CLIENTS://h:9092,REPLICATION://h:9094\n"
      "listener.security.protocol.map=CLIENTS:SASL_SSL,REPLICATION:SASL_SSL\ninter.broker.listener.name=REPLICATION\n"
      "ssl.keystore.location=" + keystore + "\nlistener.name.replication.ssl.truststore.location=" + ca + "\n"
      "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512\n"
      "listener.name.clients.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
      "user_alice=\"a\";\n"
      "listener.name.replication.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
      "required user_broker=\"b\";\n";
  const std::string scram_jaas =
      "listener.name.replication.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule "
      "required username=\"broker\" password=\"broker-secret\";\n";
  auto c = ServerConfig::Parse(base + "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512\n" + scram_jaas +
                                   "ssl.endpoint.identification.algorithm=\n",
                               "b.properties");
  ASSERT_TRUE(c.ok()) << c.status();
  auto s = c->InterBrokerSecurity();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->protocol, "SASL_SSL");
  EXPECT_EQ(s->truststore_pem, ca);
  EXPECT_EQ(s->keystore_pem, keystore);
  EXPECT_FALSE(s->verify_hostname);
  EXPECT_EQ(s->sasl_mechanism, "SCRAM-SHA-512");
  EXPECT_EQ(s->username, "broker");
  EXPECT_EQ(s->password, "broker-secret");

  struct Case {
    std::string text;
    std::string words;
  } cases[] = {
      {base + scram_jaas, "sasl.mechanism.inter.broker.protocol is GSSAPI (Kafka's default), which is not supported"},
      {base + "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-256\n" + scram_jaas,
       "SCRAM-SHA-256 is not among the listener's sasl.enabled.mechanisms"},
      {base + "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512\n",
       "listener.name.replication.scram-sha-512.sasl.jaas.config must give the broker's own username and password"},
      {base + "sasl.mechanism.inter.broker.protocol=PLAIN\n",
       "listener.name.replication.plain.sasl.jaas.config must give the broker's own username and password"},
      {base + "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512\n" + scram_jaas +
           "listener.name.replication.ssl.truststore.location=/no/such/ca.pem\n",
       "the inter-broker listener REPLICATION: ssl.truststore.location /no/such/ca.pem cannot be read"},
      {base + "ssl.endpoint.identification.algorithm=http\n", "https or empty"},
  };
  for (const auto& k : cases) {
    auto parsed = ServerConfig::Parse(k.text, "b.properties");
    ASSERT_FALSE(parsed.ok()) << k.text;
    EXPECT_NE(parsed.status().message().find(k.words), absl::string_view::npos) << parsed.status();
  }
}

}  // namespace
}  // namespace strata::server
