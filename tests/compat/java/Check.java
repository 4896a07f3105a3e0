// What the Java client tests share: counted checks, the clients' properties, polling
// until a condition holds (with a bound, never a sleep), and topic creation.
import java.time.Duration;
import java.util.*;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

final class Check {
  private static int failures = 0;

  static void that(boolean ok, String what) {
    if (ok) {
      System.out.println("ok: " + what);
    } else {
      System.err.println("FAILED: " + what);
      failures++;
    }
  }

  static void equal(Object got, Object want, String what) {
    that(Objects.equals(got, want), what + ": got " + got + ", want " + want);
  }

  // Exits 1 if a check failed, else prints "<name> passed".
  static void finish(String name) {
    if (failures > 0) {
      System.err.println(name + ": " + failures + " checks failed");
      System.exit(1);
    }
    System.out.println(name + " passed");
    System.exit(0);
  }

  // Calls step until done holds, for at most the bound; false if it never held.
  static boolean until(Duration bound, Runnable step, BooleanSupplier done) {
    long deadline = System.nanoTime() + bound.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) return false;
      step.run();
    }
    return true;
  }

  // The client config file named by $STRATA_JAVA_CLIENT_CONFIG (security.protocol, ssl.*,
  // sasl.*: a --secure cluster's admin.properties), else nothing: every client of a test
  // then connects as that file says.
  static Properties clientConfig() {
    Properties p = new Properties();
    String path = System.getenv("STRATA_JAVA_CLIENT_CONFIG");
    if (path == null || path.isEmpty()) return p;
    try (java.io.Reader in = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of(path))) {
      p.load(in);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return p;
  }

  static Properties producerProps(String bootstrap) {
    Properties p = clientConfig();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;  // acks=all and enable.idempotence=true are the client's defaults
  }

  static KafkaProducer<String, String> producer(String bootstrap, Map<String, String> extra) {
    Properties p = producerProps(bootstrap);
    p.putAll(extra);
    return new KafkaProducer<>(p);
  }

  static KafkaConsumer<String, String> consumer(String bootstrap, Map<String, String> extra) {
    Properties p = clientConfig();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.putAll(extra);
    return new KafkaConsumer<>(p);
  }

  static Admin admin(String bootstrap) {
    Properties p = clientConfig();
    p.put("bootstrap.servers", bootstrap);
    p.put("default.api.timeout.ms", "30000");
    return Admin.create(p);
  }

  // RF 3 with min.insync.replicas=2, as the cluster has them.
  static void createTopic(Admin admin, String name, int partitions) throws Exception {
    NewTopic t = new NewTopic(name, partitions, (short) 3)
        .configs(Map.of("min.insync.replicas", "2"));
    admin.createTopics(List.of(t)).all().get();
  }

  private Check() {}
}
