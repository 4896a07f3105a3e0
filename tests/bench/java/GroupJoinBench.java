// A member joining a consuming group, classic protocol against KIP-848's, with the Java
// client (kafka-clients 4.4.0) against any Kafka-protocol cluster: a topic of 12
// partitions written to all along; member A alone reads all 12; member B subscribes.
// Per round: B's time from subscribe() to its first partitions ("join"), and A's longest
// gap between two polls that returned records from B's subscribe until both hold 6 and
// a second after ("pause": how long the member already there stopped consuming). Each
// member polls on its own thread. Kinds:
//   classic-eager        group.protocol=classic, RangeAssignor (the Java client's
//                        default choice): every member revokes everything each rebalance;
//   classic-cooperative  group.protocol=classic, CooperativeStickyAssignor (KIP-429);
//   consumer             group.protocol=consumer (KIP-848), the broker's assignor.
// Prints each round and, per kind, RESULT group_join {"system", "kind", "join_ms",
// "pause_ms", "rounds"} with medians over the rounds (SYSTEM names the cluster).
// Usage: GroupJoinBench SYSTEM BOOTSTRAP ROUNDS KIND...
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

public final class GroupJoinBench {
  private static final int PARTITIONS = 12;
  private static final Duration BOUND = Duration.ofSeconds(90);

  // A member polling on its own thread: when its polls returned records, and when it
  // first held partitions.
  private static final class Member implements Runnable {
    final KafkaConsumer<String, String> consumer;
    final List<Long> recordsAt = Collections.synchronizedList(new ArrayList<>());
    volatile int held = 0;
    volatile long firstAssignedAt = -1;
    final long subscribedAt;
    final AtomicBoolean stop = new AtomicBoolean();
    final Thread thread;

    Member(String bootstrap, String group, String topic, String kind) {
      Map<String, String> p = new HashMap<>();
      p.put("group.id", group);
      p.put("auto.offset.reset", "latest");
      switch (kind) {
        case "consumer" -> p.put("group.protocol", "consumer");
        case "classic-eager" -> p.put("partition.assignment.strategy", RangeAssignor.class.getName());
        case "classic-cooperative" -> p.put("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
        default -> throw new IllegalArgumentException("kind " + kind);
      }
      consumer = Check.consumer(bootstrap, p);
      subscribedAt = System.nanoTime();
      consumer.subscribe(List.of(topic));
      thread = new Thread(this);
      thread.start();
    }

    @Override public void run() {
      while (!stop.get()) {
        int n = consumer.poll(Duration.ofMillis(20)).count();
        long now = System.nanoTime();
        if (n > 0) recordsAt.add(now);
        held = consumer.assignment().size();
        if (held > 0 && firstAssignedAt < 0) firstAssignedAt = now;
      }
      consumer.close();
    }

    void close() throws InterruptedException {
      stop.set(true);
      thread.join();
    }
  }

  private static boolean waitFor(java.util.function.BooleanSupplier done) throws InterruptedException {
    long deadline = System.nanoTime() + BOUND.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) return false;
      Thread.sleep(5);  // polling the members' state, which their threads update
    }
    return true;
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    Collections.sort(s);
    return s.isEmpty() ? Double.NaN : s.get(s.size() / 2);
  }

  public static void main(String[] args) throws Exception {
    String system = args[0];
    String bootstrap = args[1];
    int rounds = Integer.parseInt(args[2]);
    List<String> kinds = Arrays.asList(args).subList(3, args.length);
    String topic = "join-bench-" + System.currentTimeMillis();
    try (Admin admin = Check.admin(bootstrap)) {
      Check.createTopic(admin, topic, PARTITIONS);
    }
    AtomicBoolean stop = new AtomicBoolean();
    Thread producer = new Thread(() -> {
      try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of("linger.ms", "1", "acks", "1"))) {
        for (long i = 0; !stop.get(); i++) {
          for (int part = 0; part < PARTITIONS; part++) p.send(new ProducerRecord<>(topic, part, null, "v" + i));
          try {
            Thread.sleep(5);  // pacing: a record per partition every 5 ms
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    });
    producer.start();
    Map<String, List<Double>> joins = new LinkedHashMap<>();
    Map<String, List<Double>> pauses = new LinkedHashMap<>();
    int failed = 0;
    for (int round = 0; round < rounds; round++) {
      for (String kind : kinds) {  // alternating kinds, round by round
        String group = "join-" + kind + "-" + round;
        Member a = new Member(bootstrap, group, topic, kind);
        Member b = null;
        try {
          if (!waitFor(() -> a.held == PARTITIONS && !a.recordsAt.isEmpty())) throw new IllegalStateException("A alone");
          b = new Member(bootstrap, group, topic, kind);
          Member bb = b;
          if (!waitFor(() -> a.held == PARTITIONS / 2 && bb.held == PARTITIONS / 2)) throw new IllegalStateException("split");
          long splitAt = System.nanoTime();
          waitFor(() -> System.nanoTime() - splitAt > 1_000_000_000L);
          long start = b.subscribedAt;
          long last = start;
          long longest = 0;
          List<Long> at;
          synchronized (a.recordsAt) {
            at = new ArrayList<>(a.recordsAt);
          }
          for (long t : at) {
            if (t < start) continue;
            longest = Math.max(longest, t - last);
            last = t;
          }
          double joinMs = (b.firstAssignedAt - b.subscribedAt) / 1e6;
          double pauseMs = longest / 1e6;
          joins.computeIfAbsent(kind, k -> new ArrayList<>()).add(joinMs);
          pauses.computeIfAbsent(kind, k -> new ArrayList<>()).add(pauseMs);
          System.out.printf("round %d %-20s join %7.1f ms  pause of the member already there %7.1f ms%n", round, kind,
              joinMs, pauseMs);
        } catch (IllegalStateException e) {
          System.err.println("round " + round + " " + kind + ": " + e.getMessage() + " did not happen in " + BOUND);
          failed++;
        } finally {
          a.close();
          if (b != null) b.close();
        }
      }
    }
    stop.set(true);
    producer.join();
    for (String kind : kinds) {
      System.out.printf("RESULT group_join {\"system\": \"%s\", \"kind\": \"%s\", \"join_ms\": %.1f, "
          + "\"pause_ms\": %.1f, \"rounds\": %d}%n", system, kind, median(joins.getOrDefault(kind, List.of())), median(pauses.getOrDefault(kind, List.of())),
          joins.getOrDefault(kind, List.of()).size());
    }
    System.exit(failed > 0 ? 1 : 0);
  }

  private GroupJoinBench() {}
}
