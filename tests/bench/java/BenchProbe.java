// Probes for tests/bench/kafka_sidebyside.sh, run the same against Apache Kafka and Strata
// with the Java client (single-file source: java -cp "$KAFKA_LIBS/*" BenchProbe.java ...).
//   BenchProbe acks BOOTSTRAP TOPIC SECONDS
//       an idempotent acks=all producer sends one record at a time (linger.ms=0, one in
//       flight) for SECONDS and prints the wall-clock ms of every acknowledgement, one a
//       line: the failover is the first one after the kill.
//   BenchProbe isr BOOTSTRAP TOPIC SINCE_MS
//       waits until every partition of TOPIC has all its replicas in the ISR (AdminClient,
//       every 50 ms) and prints the ms from SINCE_MS (wall clock) to then.
//   BenchProbe isr-without BOOTSTRAP TOPIC NODE
//       waits until NODE is in no ISR of TOPIC (the cluster noticed that it is gone).
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class BenchProbe {
  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "acks" -> acks(args[1], args[2], Integer.parseInt(args[3]));
      case "isr" -> isr(args[1], args[2], Long.parseLong(args[3]), -1);
      case "isr-without" -> isr(args[1], args[2], System.currentTimeMillis(), Integer.parseInt(args[3]));
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  private static void acks(String bootstrap, String topic, int seconds) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("acks", "all");
    p.put("linger.ms", "0");
    p.put("max.in.flight.requests.per.connection", "1");
    p.put("delivery.timeout.ms", "120000");
    byte[] value = new byte[1024];
    long end = System.currentTimeMillis() + seconds * 1000L;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      while (System.currentTimeMillis() < end) {
        producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
        System.out.println(System.currentTimeMillis());
      }
    }
  }

  // without < 0: until every ISR is whole; else until no ISR holds node `without`.
  private static void isr(String bootstrap, String topic, long sinceMs, int without) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    try (Admin admin = Admin.create(p)) {
      while (true) {
        try {
          TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
          boolean done = true;
          for (TopicPartitionInfo pi : d.partitions()) {
            done &= without < 0 ? pi.isr().size() == pi.replicas().size()
                                : pi.isr().stream().noneMatch(n -> n.id() == without);
          }
          if (done) {
            System.out.println(System.currentTimeMillis() - sinceMs);
            return;
          }
        } catch (Exception e) {
          // a broker still starting: ask again
        }
        Thread.sleep(50);
      }
    }
  }

  private BenchProbe() {}
}
