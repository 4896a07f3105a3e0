// The Java producer with its defaults (acks=all, enable.idempotence=true) against Strata.
//   ProducerTest codecs BOOTSTRAP
//       every codec (none, gzip, snappy, lz4, zstd) with headers (one of them null-valued),
//       read back by a consumer: each record's key, value and headers as sent, per codec.
//   ProducerTest produce BOOTSTRAP TOPIC COUNT ACKED_FILE
//       COUNT records ("v0".."v<COUNT-1>", paced so that a leader can be killed while they
//       are in flight); each acknowledged value is appended to ACKED_FILE as it is acked.
//       Fails if a send fails (the delivery timeout, 120 s, outlasts any failover).
//   ProducerTest verify BOOTSTRAP TOPIC ACKED_FILE
//       reads TOPIC from the beginning to its end offsets: every acknowledged value is
//       there, and no value is there twice.
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

public final class ProducerTest {
  private static final List<String> CODECS = List.of("none", "gzip", "snappy", "lz4", "zstd");
  private static final int PER_CODEC = 300;

  public static void main(String[] args) throws Exception {
    String bootstrap = args[1];
    switch (args[0]) {
      case "codecs" -> codecs(bootstrap);
      case "produce" -> produce(bootstrap, args[2], Integer.parseInt(args[3]), Path.of(args[4]));
      case "verify" -> verify(bootstrap, args[2], Path.of(args[3]));
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    Check.finish("ProducerTest " + args[0]);
  }

  private static void codecs(String bootstrap) throws Exception {
    try (Admin admin = Check.admin(bootstrap)) {
      Check.createTopic(admin, "codecs", 3);
    }
    for (String codec : CODECS) {
      try (KafkaProducer<String, String> p =
               Check.producer(bootstrap, Map.of("compression.type", codec, "linger.ms", "5"))) {
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < PER_CODEC; i++) {
          RecordHeaders h = new RecordHeaders();
          h.add("codec", codec.getBytes(StandardCharsets.UTF_8));
          h.add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
          h.add("empty", null);
          // Repetitive values, so that every codec really compresses the batch.
          String value = (codec + "-" + i + " ").repeat(20);
          acks.add(p.send(new ProducerRecord<>("codecs", null, codec + "-" + i, value, h)));
        }
        for (Future<RecordMetadata> f : acks) f.get();
      }
    }
    Map<String, Integer> good = new HashMap<>();
    List<ConsumerRecord<String, String>> all = readAll(bootstrap, "codecs");
    for (ConsumerRecord<String, String> r : all) {
      String codec = header(r, "codec");
      String seq = header(r, "seq");
      Header empty = r.headers().lastHeader("empty");
      boolean ok = r.key().equals(codec + "-" + seq)
          && r.value().equals((codec + "-" + seq + " ").repeat(20))
          && empty != null && empty.value() == null && r.headers().toArray().length == 3;
      if (ok) good.merge(codec, 1, Integer::sum);
    }
    Check.equal(all.size(), CODECS.size() * PER_CODEC, "records read back");
    for (String codec : CODECS) {
      Check.equal(good.getOrDefault(codec, 0), PER_CODEC,
          codec + ": records with key, value and headers as sent");
    }
  }

  private static void produce(String bootstrap, String topic, int count, Path ackedFile)
      throws Exception {
    AtomicInteger failed = new AtomicInteger();
    try (BufferedWriter acked = Files.newBufferedWriter(ackedFile);
         KafkaProducer<String, String> p = Check.producer(bootstrap, Map.of())) {
      for (int i = 0; i < count; i++) {
        String value = "v" + i;
        p.send(new ProducerRecord<>(topic, "k" + (i % 16), value), (md, e) -> {
          if (e != null) {
            failed.incrementAndGet();
            System.err.println("send of " + value + " failed: " + e);
            return;
          }
          synchronized (acked) {
            try {
              acked.write(value);
              acked.newLine();
              acked.flush();
            } catch (java.io.IOException io) {
              throw new java.io.UncheckedIOException(io);
            }
          }
        });
        if (i % 100 == 99) Thread.sleep(10);  // pacing: the run lasts a few seconds
      }
      p.flush();
    }
    Check.equal(failed.get(), 0, "sends that failed");
  }

  private static void verify(String bootstrap, String topic, Path ackedFile) throws Exception {
    Set<String> acked = new HashSet<>(Files.readAllLines(ackedFile));
    Map<String, Integer> seen = new HashMap<>();
    for (ConsumerRecord<String, String> r : readAll(bootstrap, topic)) {
      seen.merge(r.value(), 1, Integer::sum);
    }
    long lost = acked.stream().filter(v -> !seen.containsKey(v)).count();
    long doubled = seen.values().stream().filter(n -> n > 1).count();
    System.out.println(acked.size() + " acknowledged, " + seen.size() + " distinct values stored");
    Check.equal(lost, 0L, "acknowledged values missing");
    Check.equal(doubled, 0L, "values stored more than once");
  }

  // Every record of the topic, from its beginning to the end offsets of now (assign, no group).
  static List<ConsumerRecord<String, String>> readAll(String bootstrap, String topic) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, Map.of())) {
      List<TopicPartition> parts = c.partitionsFor(topic).stream()
          .map(pi -> new TopicPartition(topic, pi.partition())).toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      boolean done = Check.until(Duration.ofSeconds(60),
          () -> c.poll(Duration.ofMillis(200)).forEach(out::add),
          () -> parts.stream().allMatch(tp -> c.position(tp) >= end.get(tp)));
      Check.that(done, topic + ": read to the end offsets " + end);
    }
    return out;
  }

  private static String header(ConsumerRecord<String, String> r, String key) {
    Header h = r.headers().lastHeader(key);
    return h == null || h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8);
  }

  private ProducerTest() {}
}
