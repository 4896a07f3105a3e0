// KIP-848's consumer protocol (group.protocol=consumer) with the Java client against
// Strata: the broker assigns the partitions (ConsumerGroupHeartbeat) and a rebalance
// moves only what changes. Topic "kip848", 6 partitions, written to all along by a
// producer thread.
//   join       a member alone gets all 6; a second joins: each ends with 3, the first
//              gives up exactly the 3 the second gets and reads its other 3 all along
//              (records read by it while the second joined);
//   commit     both commit what they read and close; a new member resumes at the commits;
//   static     members with group.instance.id: one closes and comes back with its
//              partitions, and the other gives nothing up;
//   describe   AdminClient.describeConsumerGroups: type CONSUMER, Stable, the members and
//              their assignments; listGroups names the group's type;
//   regex      a member subscribed with a SubscriptionPattern (the broker resolves it
//              with RE2) gets the matching topics' partitions, then a new matching
//              topic's, never a topic that does not match.
// Usage: ConsumerProtocolTest BOOTSTRAP
//        ConsumerProtocolTest await BOOTSTRAP GROUP MEMBERS NOT_COORDINATOR
//            waits (at most 120 s) until the group is Stable with MEMBERS members at a
//            coordinator other than NOT_COORDINATOR (-1: any), and prints its coordinator
//            id, group epoch, state and member count (exit 1 if it never was)
//        ConsumerProtocolTest consume BOOTSTRAP GROUP TOPIC N MEMBERS_FILE STOP_FILE
//            a member of GROUP reads TOPIC, committing after each poll (a commit that
//            fails with a stale member epoch is left to the next), and writes its
//            member id to MEMBERS_FILE once it has partitions; exits 0 once the group's
//            committed offsets add up to N and STOP_FILE exists
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;

public final class ConsumerProtocolTest {
  private static final String TOPIC = "kip848";
  private static final int PARTITIONS = 6;
  private static final Duration BOUND = Duration.ofSeconds(60);

  // A member of the new protocol.
  private static GroupMember member(String bootstrap, String group, Map<String, String> extra) {
    Map<String, String> p = new HashMap<>(extra);
    p.put("group.protocol", "consumer");
    return new GroupMember(bootstrap, group, TOPIC, p);
  }

  public static void main(String[] args) throws Exception {
    if (args[0].equals("await")) {
      System.exit(await(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4])) ? 0 : 1);
    }
    if (args[0].equals("consume")) {
      consume(args[1], args[2], args[3], Long.parseLong(args[4]), Path.of(args[5]), Path.of(args[6]));
      return;
    }
    String bootstrap = args[0];
    AtomicBoolean stop = new AtomicBoolean();
    Thread producer;
    try (Admin admin = Check.admin(bootstrap)) {
      Check.createTopic(admin, TOPIC, PARTITIONS);
      producer = new Thread(() -> produce(bootstrap, stop));
      producer.start();
      joinAndCommit(bootstrap, admin);
      staticMembers(bootstrap);
      regex(bootstrap, admin);
    }
    stop.set(true);
    producer.join();
    Check.finish("ConsumerProtocolTest");
  }

  // A record to every partition every 10 ms, until stopped.
  private static void produce(String bootstrap, AtomicBoolean stop) {
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of("linger.ms", "5"))) {
      for (long i = 0; !stop.get(); i++) {
        for (int part = 0; part < PARTITIONS; part++) p.send(new ProducerRecord<>(TOPIC, part, null, "v" + i));
        try {
          Thread.sleep(10);  // pacing the load, not waiting for anything
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private static boolean split(GroupMember a, GroupMember b) {
    Set<TopicPartition> both = new HashSet<>(a.assigned());
    both.addAll(b.assigned());
    return a.assigned().size() == 3 && b.assigned().size() == 3 && both.size() == PARTITIONS;
  }

  private static void joinAndCommit(String bootstrap, Admin admin) throws Exception {
    GroupMember a = member(bootstrap, "kip848-group", Map.of());
    Check.that(Check.until(BOUND, a::poll, () -> a.assigned().size() == PARTITIONS),
        "join: the first member gets all 6 partitions");
    GroupMember b = member(bootstrap, "kip848-group", Map.of());
    final int[] readWhileJoining = {0};
    Check.that(Check.until(BOUND, () -> { readWhileJoining[0] += a.poll(); b.poll(); }, () -> split(a, b)),
        "join: a second member joins and each gets 3");
    Check.equal(a.revoked.size(), 1, "join: revocations seen by the first member");
    if (a.revoked.size() == 1) {
      Check.equal(a.revoked.get(0), b.assigned(), "join: the first member gave up exactly what the second got");
    }
    Check.that(readWhileJoining[0] > 0, "join: the first member read " + readWhileJoining[0]
        + " records while the second joined");

    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("kip848-group"))
        .describedGroups().get("kip848-group").get();
    Check.equal(d.type(), GroupType.CONSUMER, "describe: the group's type");
    Check.equal(d.groupState(), GroupState.STABLE, "describe: the group's state");
    Check.equal(d.members().size(), 2, "describe: members");
    Set<TopicPartition> described = new HashSet<>();
    for (MemberDescription m : d.members()) described.addAll(m.assignment().topicPartitions());
    Check.equal(described.size(), PARTITIONS, "describe: the members' partitions");
    boolean listed = false;
    for (GroupListing g : admin.listGroups().all().get()) {
      if (g.groupId().equals("kip848-group")) listed = g.type().equals(Optional.of(GroupType.CONSUMER));
    }
    Check.that(listed, "listGroups: the group, of type consumer");

    // Commit where each stopped reading; a new member resumes there.
    Map<TopicPartition, Long> positions = new HashMap<>();
    for (GroupMember m : List.of(a, b)) {
      for (TopicPartition tp : m.assigned()) positions.put(tp, m.consumer.position(tp));
      m.consumer.commitSync();
    }
    a.consumer.close();
    b.consumer.close();
    GroupMember c = member(bootstrap, "kip848-group", Map.of());
    Check.that(Check.until(BOUND, c::poll, () -> c.assigned().size() == PARTITIONS),
        "commit: a new member gets all 6");
    Map<TopicPartition, OffsetAndMetadata> committed = c.consumer.committed(new HashSet<>(positions.keySet()));
    for (TopicPartition tp : positions.keySet()) {
      OffsetAndMetadata o = committed.get(tp);
      Check.equal(o == null ? null : o.offset(), positions.get(tp), "commit: " + tp + "'s committed offset");
    }
    c.consumer.close();
  }

  private static void staticMembers(String bootstrap) {
    GroupMember a = member(bootstrap, "kip848-static", Map.of("group.instance.id", "a"));
    GroupMember b = member(bootstrap, "kip848-static", Map.of("group.instance.id", "b"));
    Check.that(Check.until(BOUND, () -> { a.poll(); b.poll(); }, () -> split(a, b)),
        "static: two members with 3 partitions each");
    // Its close is a static member's temporary leave (member epoch -2).
    GroupMember.checkStaticMemberReturns(a, b,
        () -> member(bootstrap, "kip848-static", Map.of("group.instance.id", "a")), BOUND);
  }

  private static boolean await(String bootstrap, String group, int members, int notCoordinator) throws Exception {
    String last = "nothing";
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    try (Admin admin = Check.admin(bootstrap)) {
      while (System.nanoTime() < deadline) {
        try {
          ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
          last = d.coordinator().id() + " " + d.groupEpoch().orElse(-1) + " " + d.groupState() + " "
              + d.members().size();
          if (d.groupState() == GroupState.STABLE && d.members().size() == members
              && d.coordinator().id() != notCoordinator) {
            System.out.println(last);
            return true;
          }
        } catch (java.util.concurrent.ExecutionException e) {
          last = e.getCause().toString();  // the coordinator moving: asked again
        }
        Thread.sleep(100);  // polling the coordinator's answer
      }
    }
    System.err.println("await: the group was not Stable with " + members + " members in 120 s: " + last);
    return false;
  }

  private static void regex(String bootstrap, Admin admin) throws Exception {
    Check.createTopic(admin, "kip848-rx-a", 2);
    Check.createTopic(admin, "kip848-other", 2);
    Map<String, String> p = new HashMap<>();
    p.put("group.id", "kip848-regex");
    p.put("group.protocol", "consumer");
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, p)) {
      c.subscribe(new SubscriptionPattern("kip848-rx-.*"));
      Check.that(Check.until(BOUND, () -> c.poll(Duration.ofMillis(100)), () -> c.assignment().size() == 2),
          "regex: the member gets the matching topic's 2 partitions");
      Check.createTopic(admin, "kip848-rx-b", 3);
      Check.that(Check.until(BOUND, () -> c.poll(Duration.ofMillis(100)), () -> c.assignment().size() == 5),
          "regex: a topic created later that matches is assigned too");
      Set<String> topics = new TreeSet<>();
      for (TopicPartition tp : c.assignment()) topics.add(tp.topic());
      Check.equal(topics, new TreeSet<>(Set.of("kip848-rx-a", "kip848-rx-b")), "regex: the member's topics");
    }
  }

  // One member reading until the group's committed offsets add up to `total` and `stop` exists.
  private static void consume(String bootstrap, String group, String topic, long total, Path members, Path stop)
      throws Exception {
    Map<String, String> p = new HashMap<>();
    p.put("group.id", group);
    p.put("group.protocol", "consumer");
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, p); Admin admin = Check.admin(bootstrap)) {
      c.subscribe(List.of(topic));
      boolean written = false;
      long deadline = System.nanoTime() + Duration.ofSeconds(200).toNanos();
      while (System.nanoTime() < deadline) {
        if (c.poll(Duration.ofMillis(200)).count() > 0) {
          try {
            c.commitSync();
          } catch (CommitFailedException e) {
            // STALE_MEMBER_EPOCH: the member's epoch moved on while the commit was sent (a
            // rebalance); the next commit carries the new one, as Kafka's clients expect.
            System.err.println("consume: " + e.getMessage());
          }
        }
        if (!written && !c.assignment().isEmpty()) {
          Files.writeString(members, c.groupMetadata().memberId() + "\n", StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
          written = true;
        }
        long committed = 0;
        for (OffsetAndMetadata o : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
                 .values()) {
          if (o != null) committed += o.offset();
        }
        if (committed >= total && Files.exists(stop)) return;
      }
      System.err.println("consume: the group did not read " + total + " records, or was not stopped, in time");
      System.exit(1);
    }
  }

  private ConsumerProtocolTest() {}
}
