// The Java consumer in groups against Strata (topic "groups", 6 partitions of 100 records).
//   range              two members split the partitions into contiguous halves; they read
//                      everything, commit, leave; a new member resumes at the commits.
//   cooperative-sticky a member joining takes 3 of the first member's 6 partitions, and
//                      the first member gives up only those 3 (no stop-the-world revoke).
//   static             members with group.instance.id: one closes and comes back with the
//                      same id, gets its partitions back, and the other sees no rebalance.
//   seek, offsetsForTimes on a topic with explicit timestamps.
// Usage: ConsumerGroupTest BOOTSTRAP
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

public final class ConsumerGroupTest {
  private static final String TOPIC = "groups";
  private static final int PARTITIONS = 6;
  private static final int PER_PARTITION = 100;
  private static final Duration BOUND = Duration.ofSeconds(60);

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    try (Admin admin = Check.admin(bootstrap)) {
      Check.createTopic(admin, TOPIC, PARTITIONS);
      Check.createTopic(admin, "times", 1);
      try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of())) {
        for (int i = 0; i < PARTITIONS * PER_PARTITION; i++) {
          p.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, "g" + i));
        }
        for (int i = 0; i < 100; i++) {
          p.send(new ProducerRecord<>("times", 0, TIME0 + i * 1000L, null, "t" + i));
        }
        p.flush();
      }
      range(bootstrap);
      cooperativeSticky(bootstrap);
      staticMembers(bootstrap, admin);
    }
    seekAndTimes(bootstrap);
    Check.finish("ConsumerGroupTest");
  }

  private static boolean split(GroupMember a, GroupMember b) {
    Set<TopicPartition> both = new HashSet<>(a.assigned());
    both.addAll(b.assigned());
    return a.assigned().size() == 3 && b.assigned().size() == 3 && both.size() == PARTITIONS;
  }

  private static void range(String bootstrap) {
    Map<String, String> cfg = Map.of("partition.assignment.strategy", RangeAssignor.class.getName());
    GroupMember a = new GroupMember(bootstrap, "range-group", TOPIC, cfg);
    Check.that(Check.until(BOUND, a::poll, () -> a.assigned().size() == PARTITIONS),
        "range: the first member gets all 6 partitions");
    GroupMember b = new GroupMember(bootstrap, "range-group", TOPIC, cfg);
    Check.that(Check.until(BOUND, () -> { a.poll(); b.poll(); }, () -> split(a, b)),
        "range: a second member joins and each gets 3");
    for (GroupMember m : List.of(a, b)) {
      List<Integer> ps = m.assigned().stream().map(TopicPartition::partition).sorted().toList();
      Check.that(ps.get(2) - ps.get(0) == 2, "range: contiguous partitions " + ps);
    }
    Check.that(Check.until(BOUND, () -> { a.poll(); b.poll(); }, () -> a.readTo(PER_PARTITION) && b.readTo(PER_PARTITION)),
        "range: the two read everything");
    a.consumer.commitSync();
    b.consumer.commitSync();
    a.consumer.close();
    b.consumer.close();
    GroupMember c = new GroupMember(bootstrap, "range-group", TOPIC, cfg);
    Check.that(Check.until(BOUND, c::poll, () -> c.assigned().size() == PARTITIONS),
        "range: a new member gets all 6");
    for (TopicPartition tp : c.assigned()) {
      Check.equal(c.consumer.position(tp), (long) PER_PARTITION, "range: resumes " + tp + " at");
    }
    Check.equal(c.read, 0, "range: records read again after the commits");
    c.consumer.close();
  }

  private static void cooperativeSticky(String bootstrap) {
    Map<String, String> cfg =
        Map.of("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
    GroupMember a = new GroupMember(bootstrap, "sticky-group", TOPIC, cfg);
    Check.that(Check.until(BOUND, a::poll, () -> a.assigned().size() == PARTITIONS),
        "cooperative-sticky: the first member gets all 6");
    GroupMember b = new GroupMember(bootstrap, "sticky-group", TOPIC, cfg);
    Check.that(Check.until(BOUND, () -> { a.poll(); b.poll(); }, () -> split(a, b)),
        "cooperative-sticky: a second member joins and each gets 3");
    Check.equal(a.revoked.size(), 1, "cooperative-sticky: revocations seen by the first member");
    if (a.revoked.size() == 1) {
      Check.equal(a.revoked.get(0), b.assigned(),
          "cooperative-sticky: the first member gave up exactly what the second got");
    }
    a.consumer.close();
    b.consumer.close();
  }

  private static void staticMembers(String bootstrap, Admin admin) throws Exception {
    Map<String, String> cfg = Map.of("partition.assignment.strategy", RangeAssignor.class.getName(),
        "session.timeout.ms", "30000");
    GroupMember a = new GroupMember(bootstrap, "static-group", TOPIC, with(cfg, "group.instance.id", "a"));
    GroupMember b = new GroupMember(bootstrap, "static-group", TOPIC, with(cfg, "group.instance.id", "b"));
    Check.that(Check.until(BOUND, () -> { a.poll(); b.poll(); }, () -> split(a, b)),
        "static: two members with 3 partitions each");
    ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("static-group"))
        .describedGroups().get("static-group").get();
    Set<String> ids = new TreeSet<>();
    for (MemberDescription m : d.members()) m.groupInstanceId().ifPresent(ids::add);
    Check.equal(ids, new TreeSet<>(Set.of("a", "b")), "static: describeConsumerGroups' instance ids");
    // A static member does not leave the group on close.
    GroupMember.checkStaticMemberReturns(a, b,
        () -> new GroupMember(bootstrap, "static-group", TOPIC, with(cfg, "group.instance.id", "a")), BOUND);
  }

  private static final long TIME0 = 1_700_000_000_000L;

  private static void seekAndTimes(String bootstrap) {
    TopicPartition tp = new TopicPartition("times", 0);
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, Map.of())) {
      c.assign(List.of(tp));
      Map<TopicPartition, OffsetAndTimestamp> at = c.offsetsForTimes(Map.of(tp, TIME0 + 50_500L));
      Check.equal(at.get(tp) == null ? null : at.get(tp).offset(), 51L,
          "offsetsForTimes: the first record at or after the time");
      Check.equal(c.offsetsForTimes(Map.of(tp, TIME0 + 1_000_000L)).get(tp), null,
          "offsetsForTimes after the last record");
      c.seek(tp, 42);
      List<ConsumerRecord<String, String>> got = new ArrayList<>();
      Check.until(BOUND, () -> c.poll(Duration.ofMillis(100)).forEach(got::add), () -> !got.isEmpty());
      Check.that(!got.isEmpty() && got.get(0).offset() == 42 && got.get(0).value().equals("t42")
          && got.get(0).timestamp() == TIME0 + 42_000L, "seek: the first record after seek(42)");
    }
  }

  private static Map<String, String> with(Map<String, String> m, String k, String v) {
    Map<String, String> out = new HashMap<>(m);
    out.put(k, v);
    return out;
  }

  private ConsumerGroupTest() {}
}
