// Transactions with the Java client against Strata.
//   TransactionsTest basic BOOTSTRAP
//       a transactional producer commits and aborts; read_committed sees only the committed
//       records and stops at the last stable offset while a transaction is open; a second
//       producer with the same transactional.id fences the first (ProducerFencedException);
//       transaction.timeout.ms above the broker's maximum is InvalidTxnTimeoutException; the
//       AdminClient's listTransactions, describeTransactions and describeProducers.
//   TransactionsTest fill BOOTSTRAP TOPIC COUNT
//       COUNT records to TOPIC (idempotent, round robin over its partitions): values
//       "<partition>-<n>".
//   TransactionsTest copy BOOTSTRAP IN OUT GROUP TRANSACTIONAL_ID
//       consume-transform-produce: IN's records to the same partition of OUT in
//       transactions of at most 100 records, each committing the consumer's positions with
//       sendOffsetsToTransaction. Errors (brokers killed under it) abort the transaction
//       and start over from the committed offsets with a new producer and consumer, as an
//       exactly-once application does. Ends once every record of IN is committed.
//   TransactionsTest verify BOOTSTRAP IN OUT GROUP
//       read_committed, OUT's partition p holds IN's partition p exactly, in order (every
//       record once: none lost, none twice, none aborted); the group's committed offsets
//       are IN's end offsets. Prints how many aborted records read_uncommitted sees.
//   TransactionsTest verify-partition BOOTSTRAP IN PARTITION OUT GROUP
//       the same for one partition of IN copied to OUT (one partition) by Kafka's
//       TransactionalMessageCopier.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidTxnTimeoutException;
import org.apache.kafka.common.errors.ProducerFencedException;

public final class TransactionsTest {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[1];
    switch (args[0]) {
      case "basic" -> basic(bootstrap);
      case "fill" -> fill(bootstrap, args[2], Integer.parseInt(args[3]));
      case "copy" -> copy(bootstrap, args[2], args[3], args[4], args[5]);
      case "verify" -> verify(bootstrap, args[2], args[3], args[4]);
      case "verify-partition" -> verifyPartition(bootstrap, args[2], Integer.parseInt(args[3]), args[4], args[5]);
      default -> throw new IllegalArgumentException(args[0]);
    }
    Check.finish("TransactionsTest " + args[0]);
  }

  static KafkaProducer<String, String> transactional(String bootstrap, String id, Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(extra);
    props.put("transactional.id", id);
    return Check.producer(bootstrap, props);
  }

  static List<TopicPartition> partitions(KafkaConsumer<?, ?> c, String topic) {
    return c.partitionsFor(topic).stream().map(pi -> new TopicPartition(topic, pi.partition())).toList();
  }

  // Every record of topic up to its end offsets (read_committed: the last stable offsets).
  static List<ConsumerRecord<String, String>> read(String bootstrap, String topic, String isolation) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, Map.of("isolation.level", isolation))) {
      List<TopicPartition> parts = partitions(c, topic);
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      boolean done = Check.until(Duration.ofSeconds(60), () -> c.poll(Duration.ofMillis(200)).forEach(out::add),
          () -> parts.stream().allMatch(tp -> c.position(tp) >= end.get(tp)));
      Check.that(done, topic + " (" + isolation + "): read to the end offsets " + end);
    }
    return out;
  }

  static List<String> values(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(ConsumerRecord::value).toList();
  }

  private static void basic(String bootstrap) throws Exception {
    String topic = "txn-basic";
    try (Admin admin = Check.admin(bootstrap)) {
      Check.createTopic(admin, topic, 3);
    }
    try (KafkaProducer<String, String> p = transactional(bootstrap, "basic-1", Map.of())) {
      p.initTransactions();
      p.beginTransaction();
      for (int i = 0; i < 6; i++) p.send(new ProducerRecord<>(topic, i % 3, "k", "committed-" + i));
      p.commitTransaction();
      p.beginTransaction();
      for (int i = 0; i < 6; i++) p.send(new ProducerRecord<>(topic, i % 3, "k", "aborted-" + i));
      p.flush();
      p.abortTransaction();
      // An open transaction holds read_committed back at its first offset.
      p.beginTransaction();
      p.send(new ProducerRecord<>(topic, 0, "k", "open")).get();
      try (KafkaConsumer<String, String> committed = Check.consumer(bootstrap, Map.of("isolation.level", "read_committed"));
           KafkaConsumer<String, String> uncommitted = Check.consumer(bootstrap, Map.of())) {
        TopicPartition p0 = new TopicPartition(topic, 0);
        long lso = committed.endOffsets(List.of(p0)).get(p0);
        long hw = uncommitted.endOffsets(List.of(p0)).get(p0);
        Check.equal(hw - lso, 1L, "the open transaction's record is between the LSO and the high watermark");
      }
      try (Admin admin = Check.admin(bootstrap)) {
        Collection<TransactionListing> listed = admin.listTransactions().all().get();
        Check.that(listed.stream().anyMatch(t -> t.transactionalId().equals("basic-1")),
            "listTransactions names basic-1: " + listed);
        TransactionDescription d = admin.describeTransactions(List.of("basic-1")).all().get().get("basic-1");
        Check.equal(d.state().toString(), "Ongoing", "describeTransactions state");
        // Transaction protocol version 2 (KIP-890 part 2, finalized by the cluster): each
        // EndTxn, the commit and the abort, moved the producer to a new epoch (version 1
        // would still be at 0).
        Check.equal((int) d.producerEpoch(), 2, "the producer's epoch after a commit and an abort");
        Check.that(d.topicPartitions().contains(new TopicPartition(topic, 0)), "describeTransactions partitions");
        List<ProducerState> producers = admin.describeProducers(List.of(new TopicPartition(topic, 0))).all().get()
            .get(new TopicPartition(topic, 0)).activeProducers();
        Check.that(producers.stream().anyMatch(s -> s.producerId() == d.producerId()
                && s.currentTransactionStartOffset().isPresent()),
            "describeProducers shows the open transaction's start offset: " + producers);
      }
      p.commitTransaction();
    }
    List<String> committed = values(read(bootstrap, topic, "read_committed"));
    Check.equal(committed.size(), 7, "read_committed records (6 committed, then the one committed last)");
    Check.that(committed.stream().noneMatch(v -> v.startsWith("aborted")), "read_committed returns no aborted record");
    Check.equal(values(read(bootstrap, topic, "read_uncommitted")).size(), 13, "read_uncommitted records");

    // Fencing: a new producer with the same id aborts the old one's transaction.
    KafkaProducer<String, String> zombie = transactional(bootstrap, "basic-fence", Map.of());
    zombie.initTransactions();
    zombie.beginTransaction();
    zombie.send(new ProducerRecord<>(topic, 1, "k", "zombie")).get();
    try (KafkaProducer<String, String> next = transactional(bootstrap, "basic-fence", Map.of())) {
      next.initTransactions();
      Throwable got = null;
      try {
        zombie.commitTransaction();
      } catch (KafkaException e) {
        got = e;
      }
      Check.that(got instanceof ProducerFencedException, "the fenced producer's commit: " + got);
    }
    zombie.close(Duration.ZERO);
    Check.that(values(read(bootstrap, topic, "read_committed")).stream().noneMatch(v -> v.equals("zombie")),
        "the fenced producer's record is aborted");

    // transaction.timeout.ms above transaction.max.timeout.ms.
    Throwable got = null;
    try (KafkaProducer<String, String> p = transactional(bootstrap, "basic-timeout",
        Map.of("transaction.timeout.ms", "3600000", "delivery.timeout.ms", "3600000"))) {
      p.initTransactions();
    } catch (KafkaException e) {
      got = e;
    }
    // The client reports INVALID_TRANSACTION_TIMEOUT from InitProducerId as an unexpected
    // KafkaException carrying the error's message (as against Kafka).
    Check.that(got instanceof InvalidTxnTimeoutException
            || (got != null && String.valueOf(got.getMessage()).contains("transaction.max.timeout.ms")),
        "a timeout above the maximum: " + got);
  }

  private static void fill(String bootstrap, String topic, int count) throws Exception {
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of("linger.ms", "5"))) {
      int partitions = p.partitionsFor(topic).size();
      int[] next = new int[partitions];
      for (int i = 0; i < count; i++) {
        int partition = i % partitions;
        p.send(new ProducerRecord<>(topic, partition, "k" + partition, partition + "-" + next[partition]++));
      }
      p.flush();
    }
    System.out.println(count + " records written to " + topic);
  }

  private static void copy(String bootstrap, String in, String out, String group, String id) throws Exception {
    long copied = 0;
    int restarts = 0;
    while (true) {
      KafkaProducer<String, String> p = transactional(bootstrap, id,
          Map.of("transaction.timeout.ms", "30000", "max.block.ms", "60000"));
      KafkaConsumer<String, String> c = Check.consumer(bootstrap,
          Map.of("group.id", group, "isolation.level", "read_committed", "max.poll.records", "100"));
      try {
        p.initTransactions();
        List<TopicPartition> parts = partitions(c, in);
        c.assign(parts);
        Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(parts));
        for (TopicPartition tp : parts) {
          OffsetAndMetadata o = committed.get(tp);
          if (o == null) c.seekToBeginning(List.of(tp)); else c.seek(tp, o.offset());
        }
        Map<TopicPartition, Long> end = c.endOffsets(parts);
        while (!parts.stream().allMatch(tp -> c.position(tp) >= end.get(tp))) {
          ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(200));
          if (records.isEmpty()) continue;
          p.beginTransaction();
          for (ConsumerRecord<String, String> r : records) {
            p.send(new ProducerRecord<>(out, r.partition(), r.key(), r.value()));
          }
          Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
          for (TopicPartition tp : records.partitions()) positions.put(tp, new OffsetAndMetadata(c.position(tp)));
          p.sendOffsetsToTransaction(positions, c.groupMetadata());
          p.commitTransaction();
          copied += records.count();
        }
        System.out.println("copied " + copied + " records in transactions (" + restarts + " restarts)");
        p.close();
        c.close();
        return;
      } catch (KafkaException e) {
        // A broker killed under the loop: the transaction is aborted (by this producer, or
        // by the coordinator when the next one fences it) and the copy resumes from the
        // committed offsets.
        System.err.println("copy: " + e + "; restarting from the committed offsets");
        restarts++;
        try {
          p.abortTransaction();
        } catch (Exception ignored) {
          // fenced or fatal: the next producer's initTransactions aborts it
        }
        p.close(Duration.ofSeconds(5));
        c.close(Duration.ofSeconds(5));
      }
    }
  }

  private static void verify(String bootstrap, String in, String out, String group) throws Exception {
    Map<Integer, List<String>> input = new TreeMap<>();
    for (ConsumerRecord<String, String> r : read(bootstrap, in, "read_committed")) {
      input.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
    }
    Map<Integer, List<String>> output = new TreeMap<>();
    for (ConsumerRecord<String, String> r : read(bootstrap, out, "read_committed")) {
      output.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r.value());
    }
    long total = 0;
    for (Map.Entry<Integer, List<String>> e : input.entrySet()) {
      List<String> got = output.getOrDefault(e.getKey(), List.of());
      total += e.getValue().size();
      if (!got.equals(e.getValue())) {
        Set<String> want = new HashSet<>(e.getValue());
        Map<String, Integer> counts = new HashMap<>();
        got.forEach(v -> counts.merge(v, 1, Integer::sum));
        long missing = want.stream().filter(v -> !counts.containsKey(v)).count();
        long twice = counts.values().stream().filter(n -> n > 1).count();
        long foreign = counts.keySet().stream().filter(v -> !want.contains(v)).count();
        Check.that(false, "partition " + e.getKey() + ": " + got.size() + " output records for " + e.getValue().size()
            + " input records: " + missing + " missing, " + twice + " twice, " + foreign + " not in the input");
      } else {
        Check.that(true, "partition " + e.getKey() + ": the output holds its " + got.size()
            + " input records once each, in order");
      }
    }
    int uncommitted = read(bootstrap, out, "read_uncommitted").size();
    System.out.println(total + " input records; read_uncommitted sees " + uncommitted
        + " output records (the difference: aborted transactions' records, hidden from read_committed)");
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, Map.of("group.id", group))) {
      List<TopicPartition> parts = partitions(c, in);
      Map<TopicPartition, OffsetAndMetadata> committed = c.committed(new HashSet<>(parts));
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      for (TopicPartition tp : parts) {
        OffsetAndMetadata o = committed.get(tp);
        Check.equal(o == null ? -1L : o.offset(), end.get(tp), "the committed offset of " + tp);
      }
    }
  }

  private static void verifyPartition(String bootstrap, String in, int partition, String out, String group)
      throws Exception {
    List<String> input = read(bootstrap, in, "read_committed").stream().filter(r -> r.partition() == partition)
        .map(ConsumerRecord::value).toList();
    List<String> output = values(read(bootstrap, out, "read_committed"));
    Check.equal(output.size(), input.size(), "records TransactionalMessageCopier committed to " + out);
    Check.that(output.equals(input), out + " holds partition " + partition + " of " + in + " once each, in order");
    System.out.println("read_uncommitted sees " + read(bootstrap, out, "read_uncommitted").size() + " records in " + out);
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, Map.of("group.id", group))) {
      TopicPartition tp = new TopicPartition(in, partition);
      OffsetAndMetadata o = c.committed(Set.of(tp)).get(tp);
      Check.equal(o == null ? -1L : o.offset(), c.endOffsets(List.of(tp)).get(tp), "the committed offset of " + tp);
    }
  }

  private TransactionsTest() {}
}
