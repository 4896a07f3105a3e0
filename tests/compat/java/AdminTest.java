// The Java AdminClient against Strata.
//   AdminTest served BOOTSTRAP CLUSTER_ID
//       the calls Strata serves, each checked against what it did: createTopics,
//       createPartitions, describeTopics, describeCluster, describeConfigs (sources;
//       types and docs with includeDocumentation), listOffsets (earliest, latest, a
//       timestamp, max timestamp), electLeaders, listConsumerGroups,
//       describeConsumerGroups, describeShareGroups (of a consumer group: not a share
//       group), listConsumerGroupOffsets, alterConsumerGroupOffsets,
//       deleteConsumerGroupOffsets, deleteConsumerGroups, alterUserScramCredentials,
//       describeUserScramCredentials, alterClientQuotas and describeClientQuotas
//       (ClientQuotasCheck.java), describeAcls (SECURITY_DISABLED: no authorizer),
//       describeFeatures, updateFeatures (validateOnly at the current level passes, a level
//       above the supported one refused with InvalidUpdateVersionException, nothing
//       changed), unregisterBroker (an unknown id refused with
//       BrokerIdNotRegisteredException), incrementalAlterConfigs (SET, APPEND, SUBTRACT, DELETE, validateOnly,
//       a value out of range), deleteRecords (the low watermark, earliest after it, past the
//       high watermark refused), describeLogDirs and describeReplicaLogDirs (each replica of a
//       partition in one dir of its broker, its size, the volume's bytes),
//       alterPartitionReassignments and listPartitionReassignments (a partition with records
//       moved to another broker: the new replicas hold every record, the old one's dir no
//       longer holds it; an unknown broker, a broker named twice, an unknown partition and a
//       cancel of none refused with Kafka's exceptions), deleteTopics.
//   AdminTest unsupported BOOTSTRAP
//       every call Strata does not serve yet fails at once with UnsupportedVersionException
//       (not a timeout, not a closed connection); docs/compatibility.md lists them.
//   AdminTest alter-log-dirs BOOTSTRAP
//       alterReplicaLogDirs, on a cluster of two or more log dirs per broker
//       (strata-cluster --log-dirs 2): a partition's leader replica, with records, moved to
//       another dir of its broker (describeReplicaLogDirs: there, no future replica left,
//       within a deadline; the records all read back; describeLogDirs: no other dir holds
//       it); a path not among the broker's log dirs refused with LogDirNotFoundException.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.TopicPartitionReplica;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ElectionNotNeededException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

public final class AdminTest {
  public static void main(String[] args) throws Exception {
    try (Admin admin = Check.admin(args[1])) {
      switch (args[0]) {
        case "served" -> served(admin, args[1], args[2]);
        case "unsupported" -> UnsupportedCalls.check(admin);
        case "alter-log-dirs" -> alterReplicaLogDirs(admin, args[1]);
        default -> throw new IllegalArgumentException("unknown mode " + args[0]);
      }
    }
    Check.finish("AdminTest " + args[0]);
  }

  private static void served(Admin admin, String bootstrap, String clusterId) throws Exception {
    Check.createTopic(admin, "admin-a", 3);
    admin.createPartitions(Map.of("admin-a", NewPartitions.increaseTo(5))).all().get();
    // The controller has the new partitions; the brokers' metadata follows a moment later
    // (as Kafka's does).
    TopicDescription[] t = {null};
    Check.until(Duration.ofSeconds(30), () -> t[0] = describe(admin, "admin-a"),
        () -> t[0] != null && t[0].partitions().size() == 5);
    Check.equal(t[0].partitions().size(), 5, "describeTopics after createPartitions: partitions");
    for (TopicPartitionInfo p : t[0].partitions()) {
      Check.that(p.leader() != null && p.replicas().size() == 3 && p.replicas().contains(p.leader()),
          "describeTopics: partition " + p.partition() + " has a leader among 3 replicas");
    }

    DescribeClusterResult c = admin.describeCluster();
    Check.equal(c.nodes().get().size(), 3, "describeCluster: brokers");
    Check.equal(c.clusterId().get(), clusterId, "describeCluster: cluster id");
    Check.that(c.controller().get() != null, "describeCluster: a controller node");

    // describeFeatures reads a broker's ApiVersions (KIP-584): transaction.version 2 is
    // finalized once every broker supports it, as each of these does.
    FeatureMetadata features = admin.describeFeatures().featureMetadata().get();
    FinalizedVersionRange tv = features.finalizedFeatures().get("transaction.version");
    Check.that(tv != null && tv.maxVersionLevel() == 2 && tv.minVersionLevel() == 2,
        "describeFeatures: transaction.version finalized at 2: " + features);
    SupportedVersionRange tvSupported = features.supportedFeatures().get("transaction.version");
    Check.that(tvSupported != null && tvSupported.minVersion() == 0 && tvSupported.maxVersion() == 2,
        "describeFeatures: transaction.version 0-2 supported: " + features);
    Check.that(features.finalizedFeaturesEpoch().isPresent() && features.finalizedFeaturesEpoch().get() > 0,
        "describeFeatures: an epoch: " + features);
    updateFeatures(admin);
    refusedWith(admin.unregisterBroker(99).all(),
        org.apache.kafka.common.errors.BrokerIdNotRegisteredException.class, "unregisterBroker of unknown broker 99");
    // KIP-853's calls reach the controller (the broker lists AddRaftVoter and
    // RemoveRaftVoter), whose static quorum refuses them with its reason, not the
    // client's "does not support".
    for (var call : List.of(
        admin.addRaftVoter(4, Uuid.randomUuid(), Set.of(new RaftVoterEndpoint("CONTROLLER", "127.0.0.1", 1))).all(),
        admin.removeRaftVoter(1, Uuid.randomUuid()).all())) {
      Throwable refused = refusedWith(call, org.apache.kafka.common.errors.UnsupportedVersionException.class,
          "a voter change of a static quorum");
      Check.that(refused != null && String.valueOf(refused.getMessage()).contains("static"),
          "a voter change of a static quorum: the controller's reason: " + refused);
    }

    ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "admin-a");
    Config cfg = admin.describeConfigs(List.of(topic)).all().get().get(topic);
    ConfigEntry minIsr = cfg.get("min.insync.replicas");
    Check.that(minIsr != null && minIsr.value().equals("2")
            && minIsr.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG,
        "describeConfigs: min.insync.replicas=2 set on the topic: " + minIsr);
    int brokerId = c.nodes().get().iterator().next().id();
    ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(brokerId));
    ConfigEntry nodeId = admin.describeConfigs(List.of(broker)).all().get().get(broker).get("node.id");
    Check.that(nodeId != null && nodeId.value().equals(Integer.toString(brokerId))
            && nodeId.source() == ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG,
        "describeConfigs: broker " + brokerId + "'s node.id from its properties: " + nodeId);
    // includeDocumentation (v3+): each config's type and doc.
    DescribeConfigsOptions documented = new DescribeConfigsOptions().includeDocumentation(true);
    ConfigEntry retention = admin.describeConfigs(List.of(topic), documented).all().get().get(topic).get("retention.ms");
    Check.that(retention != null && retention.type() == ConfigEntry.ConfigType.LONG
            && retention.documentation() != null && !retention.documentation().isEmpty(),
        "describeConfigs with documentation: retention.ms is a long with a doc: " + retention);
    ConfigEntry cleanerThreads =
        admin.describeConfigs(List.of(broker), documented).all().get().get(broker).get("log.cleaner.threads");
    Check.that(cleanerThreads != null && cleanerThreads.type() == ConfigEntry.ConfigType.INT
            && cleanerThreads.documentation() != null && cleanerThreads.documentation().contains("dynamic"),
        "describeConfigs with documentation: log.cleaner.threads is an int, documented as dynamic: " + cleanerThreads);

    incrementalAlterConfigs(admin, topic);

    listOffsets(admin, bootstrap);
    deleteRecords(admin);
    describeLogDirs(admin);
    reassignments(admin, bootstrap);

    // Every leader is already the preferred one: named partitions answer ELECTION_NOT_NEEDED,
    // and all partitions (null) answer none of them, as Kafka's controller does.
    Set<TopicPartition> named = Set.of(new TopicPartition("admin-a", 0), new TopicPartition("admin-a", 1));
    Map<TopicPartition, Optional<Throwable>> elected =
        admin.electLeaders(ElectionType.PREFERRED, named).partitions().get();
    Check.equal(elected.keySet(), named, "electLeaders: the named partitions answered");
    for (var e : elected.entrySet()) {
      Check.that(e.getValue().isPresent() && e.getValue().get() instanceof ElectionNotNeededException,
          "electLeaders " + e.getKey() + ": " + e.getValue());
    }
    Check.equal(admin.electLeaders(ElectionType.PREFERRED, null).partitions().get(), Map.of(),
        "electLeaders on all partitions: none needed one");

    groups(admin, bootstrap);
    scramCredentials(admin);
    ClientQuotasCheck.check(admin);
    // Without an authorizer the ACL calls are served and answer SECURITY_DISABLED, as Kafka's.
    try {
      admin.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values().get();
      Check.that(false, "describeAcls without an authorizer answered");
    } catch (ExecutionException e) {
      Check.that(e.getCause() instanceof org.apache.kafka.common.errors.SecurityDisabledException,
          "describeAcls without an authorizer: " + e.getCause());
    }

    admin.deleteTopics(List.of("admin-a")).all().get();
    Check.that(Check.until(Duration.ofSeconds(30), () -> sleepBriefly(), () -> !topicNames(admin).contains("admin-a")),
        "deleteTopics: gone from listTopics");
  }

  // updateFeatures (UpdateFeatures v2, forwarded to the active controller): validateOnly
  // at transaction.version's current level passes, level 3 (above the 0-2 every broker
  // supports) is refused naming the feature, and the level is still 2 after both.
  private static void updateFeatures(Admin admin) throws Exception {
    FeatureUpdate.UpgradeType up = FeatureUpdate.UpgradeType.UPGRADE;
    try {
      admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 2, up)),
          new UpdateFeaturesOptions().validateOnly(true)).all().get();
      Check.that(true, "updateFeatures validateOnly: transaction.version=2 accepted");
    } catch (ExecutionException e) {
      Check.that(false, "updateFeatures validateOnly: transaction.version=2 refused: " + e.getCause());
    }
    Throwable refused = refusedWith(
        admin.updateFeatures(Map.of("transaction.version", new FeatureUpdate((short) 3, up)),
            new UpdateFeaturesOptions()).all(),
        org.apache.kafka.common.errors.InvalidUpdateVersionException.class, "updateFeatures transaction.version=3");
    Check.that(refused != null && String.valueOf(refused.getMessage()).contains("transaction.version"),
        "updateFeatures transaction.version=3: the refusal names the feature: " + refused);
    FinalizedVersionRange tv = admin.describeFeatures().featureMetadata().get().finalizedFeatures()
        .get("transaction.version");
    Check.that(tv != null && tv.maxVersionLevel() == 2, "describeFeatures after updateFeatures: still 2: " + tv);
  }

  // Waits for the future; checks that it failed with `expected`; returns what it failed with.
  private static Throwable refusedWith(KafkaFuture<Void> future, Class<? extends Throwable> expected, String what)
      throws InterruptedException {
    try {
      future.get();
      Check.that(false, what + ": accepted");
      return null;
    } catch (ExecutionException e) {
      Check.that(expected.isInstance(e.getCause()), what + ": " + e.getCause());
      return e.getCause();
    }
  }

  // A user's SCRAM credentials set, described (mechanism and iterations, never a key)
  // and deleted; too few iterations refused.
  private static void scramCredentials(Admin admin) throws Exception {
    admin.alterUserScramCredentials(List.of(
        new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), "d1"),
        new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 10000), "d2")))
        .all().get();
    // The admin client may ask another broker than the one that forwarded the change:
    // its metadata catches up moments later, as Kafka's do.
    Set<String> want = new TreeSet<>(List.of("SCRAM_SHA_256:4096", "SCRAM_SHA_512:10000"));
    Check.until(Duration.ofSeconds(30), () -> sleepBriefly(), () -> scramInfos(admin, "dave").equals(want));
    Check.equal(scramInfos(admin, "dave"), want, "describeUserScramCredentials: dave's mechanisms and iterations");
    try {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
          "erin", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 100), "e"))).all().get();
      Check.that(false, "alterUserScramCredentials with 100 iterations was accepted");
    } catch (ExecutionException e) {
      Check.that(e.getCause() instanceof org.apache.kafka.common.errors.UnacceptableCredentialException,
          "alterUserScramCredentials with 100 iterations: " + e.getCause());
    }
    admin.alterUserScramCredentials(List.of(
        new UserScramCredentialDeletion("dave", ScramMechanism.SCRAM_SHA_256),
        new UserScramCredentialDeletion("dave", ScramMechanism.SCRAM_SHA_512))).all().get();
    Check.that(Check.until(Duration.ofSeconds(30), () -> sleepBriefly(), () -> scramInfos(admin, "dave").isEmpty()),
        "describeUserScramCredentials after the deletions: dave is gone");
  }

  // A user's credentials as "MECHANISM:iterations", empty when the user has none.
  private static Set<String> scramInfos(Admin admin, String user) {
    Set<String> infos = new TreeSet<>();
    try {
      Map<String, UserScramCredentialsDescription> all = admin.describeUserScramCredentials().all().get();
      UserScramCredentialsDescription d = all.get(user);
      if (d != null) {
        for (ScramCredentialInfo i : d.credentialInfos()) infos.add(i.mechanism() + ":" + i.iterations());
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    return infos;
  }

  // Ten records on partition 0 of admin-a, the sixth with the largest timestamp.
  private static void listOffsets(Admin admin, String bootstrap) throws Exception {
    long t0 = 1_700_000_000_000L;
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of())) {
      for (int i = 0; i < 10; i++) {
        long ts = i == 5 ? t0 + 1_000_000 : t0 + i * 10;
        p.send(new ProducerRecord<>("admin-a", 0, ts, null, "o" + i));
      }
      p.flush();
    }
    TopicPartition p0 = new TopicPartition("admin-a", 0);
    Check.equal(offset(admin, p0, OffsetSpec.earliest()), 0L, "listOffsets earliest");
    Check.equal(offset(admin, p0, OffsetSpec.latest()), 10L, "listOffsets latest");
    Check.equal(offset(admin, p0, OffsetSpec.forTimestamp(t0 + 35)), 4L, "listOffsets for a timestamp");
    Check.equal(offset(admin, p0, OffsetSpec.maxTimestamp()), 5L, "listOffsets max timestamp");
  }

  // deleteRecords (issue 38) on partition 0 of admin-a, which listOffsets left with ten
  // records: the low watermark answered, the earliest offset moved, past the high
  // watermark refused (OFFSET_OUT_OF_RANGE) with nothing moved.
  private static void deleteRecords(Admin admin) throws Exception {
    TopicPartition p0 = new TopicPartition("admin-a", 0);
    DeletedRecords deleted = admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(p0).get();
    Check.equal(deleted.lowWatermark(), 4L, "deleteRecords before offset 4: the low watermark");
    Check.equal(offset(admin, p0, OffsetSpec.earliest()), 4L, "listOffsets earliest after deleteRecords");
    try {
      admin.deleteRecords(Map.of(p0, RecordsToDelete.beforeOffset(11))).all().get();
      Check.that(false, "deleteRecords past the high watermark answered");
    } catch (ExecutionException e) {
      Check.that(e.getCause() instanceof org.apache.kafka.common.errors.OffsetOutOfRangeException,
          "deleteRecords past the high watermark: " + e.getCause());
    }
    Check.equal(offset(admin, p0, OffsetSpec.earliest()), 4L, "listOffsets earliest after a refused deleteRecords");
  }

  // describeLogDirs (issue 38): every broker answers its log dirs; each replica of
  // admin-a-0 is in exactly one dir of its broker, with records (listOffsets wrote ten,
  // deleteRecords kept six) and the volume's sizes; describeReplicaLogDirs names that dir.
  private static void describeLogDirs(Admin admin) throws Exception {
    TopicPartition p0 = new TopicPartition("admin-a", 0);
    List<Integer> replicas = describe(admin, "admin-a").partitions().get(0).replicas().stream().map(n -> n.id()).toList();
    List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(n -> n.id()).toList();
    Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(brokers).allDescriptions().get();
    Check.equal(dirs.keySet(), new HashSet<>(brokers), "describeLogDirs: every broker answered");
    for (int broker : brokers) {
      int holding = 0;
      for (var dir : dirs.get(broker).entrySet()) {
        LogDirDescription d = dir.getValue();
        Check.that(d.error() == null, "describeLogDirs: broker " + broker + " dir " + dir.getKey() + ": " + d.error());
        Check.that(d.totalBytes().isPresent() && d.usableBytes().isPresent()
                && d.totalBytes().getAsLong() >= d.usableBytes().getAsLong(),
            "describeLogDirs: volume bytes of broker " + broker + ": " + d);
        ReplicaInfo info = d.replicaInfos().get(p0);
        if (info != null) {
          holding++;
          Check.that(info.size() > 0 && !info.isFuture(), "describeLogDirs: admin-a-0 on broker " + broker + ": " + info);
        }
      }
      Check.equal(holding, replicas.contains(broker) ? 1 : 0, "describeLogDirs: dirs of broker " + broker + " holding admin-a-0");
    }
    int leader = replicas.get(0);
    TopicPartitionReplica replica = new TopicPartitionReplica("admin-a", 0, leader);
    var replicaDirs = admin.describeReplicaLogDirs(List.of(replica)).all().get().get(replica);
    Check.that(replicaDirs.getCurrentReplicaLogDir() != null
            && dirs.get(leader).containsKey(replicaDirs.getCurrentReplicaLogDir())
            && replicaDirs.getFutureReplicaLogDir() == null,
        "describeReplicaLogDirs: admin-a-0 on broker " + leader + ": " + replicaDirs);
  }

  // alterReplicaLogDirs (issue 38): admin-dirs-0, with 100 records, moves on its leader to
  // another of the leader's log dirs. The broker answers once the move is under way and
  // copies the replica into a future log in the background: describeReplicaLogDirs is
  // polled until the replica's current dir is the destination and it has no future dir.
  // Then the records all read back from it (the leader) and describeLogDirs shows it in
  // that dir only. A path not among the broker's log dirs: LogDirNotFoundException, and
  // the replica stays where it is.
  private static void alterReplicaLogDirs(Admin admin, String bootstrap) throws Exception {
    String topic = "admin-dirs";
    Check.createTopic(admin, topic, 1);
    TopicDescription[] t = {null};
    Check.until(Duration.ofSeconds(30), () -> t[0] = describe(admin, topic),
        () -> t[0] != null && t[0].partitions().get(0).leader() != null);
    boolean led = t[0] != null && t[0].partitions().get(0).leader() != null;
    Check.that(led, "alterReplicaLogDirs: " + topic + " has a leader");
    if (!led) return;
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of())) {
      for (int i = 0; i < 100; i++) p.send(new ProducerRecord<>(topic, 0, null, "d" + i));
      p.flush();
    }
    int leader = t[0].partitions().get(0).leader().id();
    TopicPartitionReplica replica = new TopicPartitionReplica(topic, 0, leader);
    String[] described = {null};  // the last answer, for the failure messages
    DescribeReplicaLogDirsResult.ReplicaLogDirInfo[] info = {null};
    Runnable describeReplica = () -> {
      sleepBriefly();
      try {
        info[0] = admin.describeReplicaLogDirs(List.of(replica)).all().get().get(replica);
        described[0] = String.valueOf(info[0]);
      } catch (Exception e) {
        info[0] = null;
        described[0] = e.toString();
      }
    };
    boolean placed = Check.until(Duration.ofSeconds(30), describeReplica,
        () -> info[0] != null && info[0].getCurrentReplicaLogDir() != null);
    Check.that(placed, "describeReplicaLogDirs: " + replica + " is in a dir: " + described[0]);
    if (!placed) return;
    String source = info[0].getCurrentReplicaLogDir();
    Set<String> dirs =
        new TreeSet<>(admin.describeLogDirs(List.of(leader)).allDescriptions().get().get(leader).keySet());
    Optional<String> other = dirs.stream().filter(d -> !d.equals(source)).findFirst();
    Check.that(other.isPresent(), "alterReplicaLogDirs: broker " + leader + " has a log dir besides " + source
        + " (run the cluster with --log-dirs 2 or more): " + dirs);
    if (other.isEmpty()) return;
    String destination = other.get();
    try {
      admin.alterReplicaLogDirs(Map.of(replica, destination)).all().get();
    } catch (ExecutionException e) {
      Check.that(false,
          "alterReplicaLogDirs " + replica + " from " + source + " to " + destination + ": " + e.getCause());
      return;
    }
    boolean moved = Check.until(Duration.ofSeconds(60), describeReplica,
        () -> info[0] != null && destination.equals(info[0].getCurrentReplicaLogDir())
            && info[0].getFutureReplicaLogDir() == null);
    Check.that(moved, "alterReplicaLogDirs: " + replica + " moved from " + source + " to " + destination
        + " with no future replica left within 60 s; last described: " + described[0]);
    if (!moved) return;
    Check.equal(offset(admin, new TopicPartition(topic, 0), OffsetSpec.latest()), 100L,
        "listOffsets latest after alterReplicaLogDirs");
    try (KafkaConsumer<String, String> consumer = Check.consumer(bootstrap, Map.of())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<String> values = new ArrayList<>();
      Check.until(Duration.ofSeconds(30),
          () -> consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value())), () -> values.size() >= 100);
      Check.that(values.size() == 100 && values.get(0).equals("d0") && values.get(99).equals("d99"),
          "the records of " + topic + "-0 read from its moved leader replica: " + values.size());
    }
    Map<String, LogDirDescription> after = admin.describeLogDirs(List.of(leader)).allDescriptions().get().get(leader);
    List<String> holding = after.entrySet().stream()
        .filter(e -> e.getValue().replicaInfos().containsKey(new TopicPartition(topic, 0)))
        .map(Map.Entry::getKey).toList();
    Check.equal(holding, List.of(destination),
        "describeLogDirs after alterReplicaLogDirs: the dirs holding " + replica);

    String unknown = "/nonexistent/strata-no-such-log-dir";
    try {
      admin.alterReplicaLogDirs(Map.of(replica, unknown)).all().get();
      Check.that(false, "alterReplicaLogDirs to " + unknown + " answered");
    } catch (ExecutionException e) {
      Check.that(e.getCause() instanceof org.apache.kafka.common.errors.LogDirNotFoundException,
          "alterReplicaLogDirs to a path not among broker " + leader + "'s log dirs: " + e.getCause());
    }
    describeReplica.run();
    Check.that(info[0] != null && destination.equals(info[0].getCurrentReplicaLogDir())
            && info[0].getFutureReplicaLogDir() == null,
        "describeReplicaLogDirs after a refused alterReplicaLogDirs: " + replica + " still in " + destination
            + ": " + described[0]);
    admin.deleteTopics(List.of(topic)).all().get();
  }

  // alterPartitionReassignments and listPartitionReassignments (issue 38): admin-r-0, on
  // the first two brokers with 50 records, moves to the last two. It completes on its own
  // (the new replica catches up and joins the ISR); then the replicas and ISR are the
  // target, the records are all there, and the broker that left no longer holds it.
  private static void reassignments(Admin admin, String bootstrap) throws Exception {
    List<Integer> brokers = admin.describeCluster().nodes().get().stream().map(n -> n.id()).sorted().toList();
    int a = brokers.get(0), b = brokers.get(1), c = brokers.get(2);
    TopicPartition tp = new TopicPartition("admin-r", 0);
    admin.createTopics(List.of(new NewTopic("admin-r", Map.of(0, List.of(a, b))))).all().get();
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of())) {
      for (int i = 0; i < 50; i++) p.send(new ProducerRecord<>("admin-r", 0, null, "r" + i));
      p.flush();
    }
    admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(b, c)))))
        .all().get();
    TopicPartitionInfo[] info = {null};
    boolean done = Check.until(Duration.ofSeconds(30), () -> {
      sleepBriefly();
      TopicDescription d = describe(admin, "admin-r");
      info[0] = d == null ? null : d.partitions().get(0);
    }, () -> {
      try {
        return info[0] != null && admin.listPartitionReassignments(Set.of(tp)).reassignments().get().isEmpty()
            && info[0].replicas().stream().map(n -> n.id()).toList().equals(List.of(b, c))
            && info[0].isr().size() == 2;
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    Check.that(done, "alterPartitionReassignments: admin-r-0 on [" + b + ", " + c + "] in sync: " + info[0]);
    Check.equal(offset(admin, tp, OffsetSpec.latest()), 50L, "listOffsets latest after the reassignment");
    // Each broker deletes its replica once it applied the metadata that removed it.
    Map<Integer, Long> holding = new HashMap<>();
    Map<Integer, Long> want = Map.of(a, 0L, b, 1L, c, 1L);
    Check.until(Duration.ofSeconds(30), () -> {
      sleepBriefly();
      try {
        var dirs = admin.describeLogDirs(brokers).allDescriptions().get();
        for (int broker : brokers) {
          holding.put(broker, dirs.get(broker).values().stream().filter(d -> d.replicaInfos().containsKey(tp)).count());
        }
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    }, () -> holding.equals(want));
    Check.equal(holding, want, "describeLogDirs after the reassignment: the brokers holding admin-r-0");
    try (KafkaConsumer<String, String> consumer = Check.consumer(bootstrap, Map.of())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      List<String> values = new ArrayList<>();
      Check.until(Duration.ofSeconds(30), () -> consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value())),
          () -> values.size() >= 50);
      Check.equal(values.size(), 50, "the records of admin-r-0 read from its new replicas");
      Check.equal(values.get(49), "r49", "the last record of admin-r-0");
    }
    refused(admin, Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(b, 99)))),
        org.apache.kafka.common.errors.InvalidReplicaAssignmentException.class, "a reassignment to an unknown broker");
    refused(admin, Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(b, b)))),
        org.apache.kafka.common.errors.InvalidReplicaAssignmentException.class, "a reassignment naming a broker twice");
    refused(admin, Map.of(new TopicPartition("admin-r", 7), Optional.of(new NewPartitionReassignment(List.of(b, c)))),
        UnknownTopicOrPartitionException.class, "a reassignment of an unknown partition");
    refused(admin, Map.of(tp, Optional.empty()),
        org.apache.kafka.common.errors.NoReassignmentInProgressException.class, "cancelling no reassignment");
    Check.equal(admin.listPartitionReassignments().reassignments().get(), Map.of(),
        "listPartitionReassignments: none in progress");
  }

  private static void refused(Admin admin, Map<TopicPartition, Optional<NewPartitionReassignment>> reassignment,
      Class<?> want, String what) throws Exception {
    try {
      admin.alterPartitionReassignments(reassignment).all().get();
      Check.that(false, what + " answered");
    } catch (ExecutionException e) {
      Check.that(want.isInstance(e.getCause()), what + ": " + e.getCause());
    }
  }

  private static long offset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
    return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get().offset();
  }

  @SuppressWarnings("removal")  // listConsumerGroups: what applications still call
  private static void groups(Admin admin, String bootstrap) throws Exception {
    String g = "admin-group";
    TopicPartition p0 = new TopicPartition("admin-a", 0);
    TopicPartition p1 = new TopicPartition("admin-a", 1);
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, Map.of("group.id", g))) {
      c.subscribe(List.of("admin-a"));
      Check.until(Duration.ofSeconds(60), () -> c.poll(Duration.ofMillis(100)), () -> c.assignment().size() == 5);
      c.commitSync(Map.of(p0, new OffsetAndMetadata(7), p1, new OffsetAndMetadata(0)));
      Check.that(admin.listConsumerGroups().all().get().stream().anyMatch(l -> l.groupId().equals(g)),
          "listConsumerGroups: the group");
      ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(g)).describedGroups().get(g).get();
      Check.equal(d.members().size(), 1, "describeConsumerGroups: members");
      Check.equal(d.groupState(), GroupState.STABLE, "describeConsumerGroups: state");
      // describeShareGroups is served (KIP-932): a group of another type is not a share group.
      try {
        admin.describeShareGroups(List.of(g)).describedGroups().get(g).get();
        Check.that(false, "describeShareGroups of a consumer group: refused");
      } catch (ExecutionException e) {
        Check.that(e.getCause() instanceof GroupIdNotFoundException,
            "describeShareGroups of a consumer group: GroupIdNotFoundException, got " + e.getCause());
      }
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = committed(admin, g);
    Check.equal(offsets.get(p0).offset(), 7L, "listConsumerGroupOffsets: partition 0");
    admin.alterConsumerGroupOffsets(g, Map.of(p0, new OffsetAndMetadata(3))).all().get();
    Check.equal(committed(admin, g).get(p0).offset(), 3L, "alterConsumerGroupOffsets: partition 0");
    admin.deleteConsumerGroupOffsets(g, Set.of(p1)).all().get();
    Check.that(!committed(admin, g).containsKey(p1), "deleteConsumerGroupOffsets: partition 1 gone");
    admin.deleteConsumerGroups(List.of(g)).all().get();
    Check.that(admin.listConsumerGroups().all().get().stream().noneMatch(l -> l.groupId().equals(g)),
        "deleteConsumerGroups: gone from listConsumerGroups");
  }

  private static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin, String g) throws Exception {
    return admin.listConsumerGroupOffsets(g).partitionsToOffsetAndMetadata().get();
  }

  // null while the broker asked does not know the topic yet.
  private static TopicDescription describe(Admin admin, String topic) {
    try {
      return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) return null;
      throw new RuntimeException(e);
    } catch (InterruptedException e) {
      throw new RuntimeException(e);
    }
  }

  private static Set<String> topicNames(Admin admin) {
    try {
      return admin.listTopics().names().get();
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private static void sleepBriefly() {
    try {
      Thread.sleep(50);  // polling the brokers' metadata, bounded by until()
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private AdminTest() {}

  // incrementalAlterConfigs (issue 38): SET, APPEND to a list config's default, DELETE,
  // validateOnly changing nothing, and a value out of range refused with the setting named,
  // each read back with describeConfigs (forwarded to the controller: seen at once).
  static void incrementalAlterConfigs(Admin admin, ConfigResource topic) throws Exception {
    admin.incrementalAlterConfigs(Map.of(topic, List.of(
        new AlterConfigOp(new ConfigEntry("retention.ms", "3600000"), AlterConfigOp.OpType.SET),
        new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.APPEND)))).all().get();
    Config cfg = admin.describeConfigs(List.of(topic)).all().get().get(topic);
    Check.equal(cfg.get("retention.ms").value(), "3600000", "incrementalAlterConfigs SET retention.ms");
    Check.equal(cfg.get("cleanup.policy").value(), "delete,compact", "incrementalAlterConfigs APPEND to the default");
    Check.equal(cfg.get("min.insync.replicas").value(), "2", "incrementalAlterConfigs leaves other configs alone");
    admin.incrementalAlterConfigs(Map.of(topic, List.of(
        new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET))),
        new AlterConfigsOptions().validateOnly(true)).all().get();
    admin.incrementalAlterConfigs(Map.of(topic, List.of(
        new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.SUBTRACT),
        new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE)))).all().get();
    cfg = admin.describeConfigs(List.of(topic)).all().get().get(topic);
    Check.equal(cfg.get("cleanup.policy").value(), "compact", "incrementalAlterConfigs SUBTRACT");
    Check.that(cfg.get("retention.ms").source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG,
        "incrementalAlterConfigs DELETE: retention.ms back to its default (validateOnly wrote nothing): "
            + cfg.get("retention.ms"));
    Throwable got = null;
    try {
      admin.incrementalAlterConfigs(Map.of(topic, List.of(
          new AlterConfigOp(new ConfigEntry("segment.bytes", "12"), AlterConfigOp.OpType.SET)))).all().get();
    } catch (ExecutionException e) {
      got = e.getCause();
    }
    Check.that(got instanceof InvalidConfigurationException && got.getMessage().contains("segment.bytes"),
        "incrementalAlterConfigs of a value out of range: " + got);
    admin.incrementalAlterConfigs(Map.of(topic, List.of(
        new AlterConfigOp(new ConfigEntry("cleanup.policy", null), AlterConfigOp.OpType.DELETE)))).all().get();
  }
}
