// Transactions' figures for tests/bench/txn_bench.sh, run the same against Apache Kafka and
// Strata with the Java client (single-file source: java -cp "$KAFKA_LIBS/*" TxnBench.java ...).
//   TxnBench run BOOTSTRAP N
//       on topics txn-bench-{idem,txn,mixed} (3 partitions each, made by the caller):
//       * idempotent: N records of 1 KiB, acks=all, the client's default batching;
//       * transactional: the same N records in transactions of 100 (beginTransaction, 100
//         sends, commitTransaction): records/s, and commitTransaction's latency p50/p99;
//       * read_committed vs read_uncommitted: the transactional topic consumed from the
//         beginning to its end by a consumer of each isolation (assign, no group), three
//         times each, taking turns: the medians;
//       * aborted: N records in transactions of 100, every other one aborted, consumed
//         read_committed (the consumer drops the aborted ones by the aborted-transaction
//         lists): records/s of the records it delivers, against the committed-only topic.
//       Prints one "FIGURE name value" line per figure.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class TxnBench {
  static final int TXN = 100;
  static final byte[] VALUE = new byte[1024];

  public static void main(String[] args) throws Exception {
    if (!args[0].equals("run")) throw new IllegalArgumentException(args[0]);
    String bs = args[1];
    int n = Integer.parseInt(args[2]);
    new Random(7).nextBytes(VALUE);
    // Warm-up (JIT, connections, the coordinator's topic): not counted.
    produceTransactional(bs, "txn-bench-mixed", 2000, "warm", false, new ArrayList<>());
    double idem = produceIdempotent(bs, "txn-bench-idem", n);
    figure("idempotent_records_per_s", idem);
    List<Double> commits = new ArrayList<>();
    double txn = produceTransactional(bs, "txn-bench-txn", n, "bench", false, commits);
    figure("transactional_records_per_s", txn);
    Collections.sort(commits);
    figure("commit_p50_ms", commits.get(commits.size() / 2));
    figure("commit_p99_ms", commits.get(Math.min(commits.size() - 1, (int) (commits.size() * 0.99))));
    // Each read three times, the isolations taking turns (the page cache is warm for all
    // but the first): the median.
    List<Double> committed = new ArrayList<>(), uncommitted = new ArrayList<>();
    for (int r = 0; r < 3; r++) {
      uncommitted.add(consume(bs, "txn-bench-txn", "read_uncommitted", n));
      committed.add(consume(bs, "txn-bench-txn", "read_committed", n));
    }
    figure("read_committed_records_per_s", median(committed));
    figure("read_uncommitted_records_per_s", median(uncommitted));
    produceTransactional(bs, "txn-bench-mixed", 2 * n, "mixed", true, new ArrayList<>());
    List<Double> mixed = new ArrayList<>();
    for (int r = 0; r < 3; r++) mixed.add(consume(bs, "txn-bench-mixed", "read_committed", n + 1000));
    figure("read_committed_half_aborted_records_per_s", median(mixed));
  }

  static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  static void figure(String name, double value) {
    System.out.printf(Locale.ROOT, "FIGURE %s %.2f%n", name, value);
  }

  static Properties producerProps(String bs) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bs);
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    return p;
  }

  static double produceIdempotent(String bs, String topic, int n) throws Exception {
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(producerProps(bs))) {
      long t0 = System.nanoTime();
      Future<?> last = null;
      for (int i = 0; i < n; i++) last = p.send(new ProducerRecord<>(topic, VALUE));
      p.flush();
      last.get();
      return n / ((System.nanoTime() - t0) / 1e9);
    }
  }

  // n records in transactions of TXN; every other transaction aborted when alternate.
  static double produceTransactional(String bs, String topic, int n, String id, boolean alternate,
                                     List<Double> commitMs) throws Exception {
    Properties props = producerProps(bs);
    props.put("transactional.id", "txn-bench-" + id);
    try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(props)) {
      p.initTransactions();
      long t0 = System.nanoTime();
      for (int i = 0, t = 0; i < n; i += TXN, t++) {
        p.beginTransaction();
        for (int j = 0; j < TXN && i + j < n; j++) p.send(new ProducerRecord<>(topic, VALUE));
        if (alternate && t % 2 == 1) {
          p.abortTransaction();
          continue;
        }
        long c0 = System.nanoTime();
        p.commitTransaction();
        commitMs.add((System.nanoTime() - c0) / 1e6);
      }
      return n / ((System.nanoTime() - t0) / 1e9);
    }
  }

  // Records/s of a consumer of the isolation reading topic from the beginning until it
  // has `want` records or reaches the end offsets.
  static double consume(String bs, String topic, String isolation, int want) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bs);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("isolation.level", isolation);
    p.put("enable.auto.commit", "false");
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(pi -> new TopicPartition(topic, pi.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long count = 0;
      long t0 = System.nanoTime();
      while (count < want && !parts.stream().allMatch(tp -> c.position(tp) >= end.get(tp))) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) count++;
      }
      return count / ((System.nanoTime() - t0) / 1e9);
    }
  }

  private TxnBench() {}
}
