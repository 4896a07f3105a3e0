// The Java client over SASL_SSL (a PEM truststore, as Strata's CA is one):
//   SaslTest scram BOOTSTRAP CA USER PASSWORD MECHANISM
//       an idempotent acks=all producer and a group consumer authenticated with SCRAM:
//       every record acknowledged and read back; an AdminClient as the same user lists
//       the topic;
//   SaslTest refused BOOTSTRAP CA USER PASSWORD MECHANISM
//       with wrong credentials: the producer's send and the AdminClient's call fail with
//       SaslAuthenticationException, nothing is acknowledged.
//   SaslTest oauth|oauth-refused BOOTSTRAP CA KEYFILE LIFETIME_SECONDS
//       the same over OAUTHBEARER, with JWTs TestTokenHandler signs with KEYFILE (an
//       expired one, LIFETIME_SECONDS negative, for oauth-refused).
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;

public final class SaslTest {
  public static void main(String[] args) throws Exception {
    if (args[0].startsWith("oauth")) {
      Map<String, String> oauth = Map.of(
          "security.protocol", "SASL_SSL",
          "sasl.mechanism", "OAUTHBEARER",
          "sasl.login.callback.handler.class", "TestTokenHandler",
          "sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required keyFile=\""
              + args[3] + "\" lifetimeSeconds=\"" + args[4] + "\";",
          "ssl.truststore.type", "PEM",
          "ssl.truststore.location", args[2]);
      if (args[0].equals("oauth")) scram(args[1], oauth); else refused(args[1], oauth);
      Check.finish("SaslTest " + args[0]);
      return;
    }
    Map<String, String> sasl = Map.of(
        "security.protocol", "SASL_SSL",
        "sasl.mechanism", args[5],
        "sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
            + args[3] + "\" password=\"" + args[4] + "\";",
        "ssl.truststore.type", "PEM",
        "ssl.truststore.location", args[2]);
    switch (args[0]) {
      case "scram" -> scram(args[1], sasl);
      case "refused" -> refused(args[1], sasl);
      default -> throw new IllegalArgumentException("unknown mode " + args[0]);
    }
    Check.finish("SaslTest " + args[0]);
  }

  private static void scram(String bootstrap, Map<String, String> sasl) throws Exception {
    List<String> sent = new ArrayList<>();
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, sasl)) {
      for (int i = 0; i < 200; ++i) {
        String v = "java-sasl-" + i;
        p.send(new ProducerRecord<>("java-sasl", v)).get();
        sent.add(v);
      }
    }
    Map<String, String> group = new HashMap<>(sasl);
    group.put("group.id", "java-sasl");
    Set<String> got = new HashSet<>();
    try (KafkaConsumer<String, String> c = Check.consumer(bootstrap, group)) {
      c.subscribe(List.of("java-sasl"));
      Check.until(Duration.ofSeconds(60), () -> {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) got.add(r.value());
      }, () -> got.containsAll(sent));
    }
    Check.that(got.containsAll(sent), "read back " + got.size() + " of " + sent.size());
    Properties admin = new Properties();
    admin.putAll(sasl);
    admin.put("bootstrap.servers", bootstrap);
    try (Admin a = Admin.create(admin)) {
      Check.that(a.listTopics().names().get().contains("java-sasl"), "listTopics as the user");
    }
  }

  private static void refused(String bootstrap, Map<String, String> sasl) throws Exception {
    Map<String, String> quick = new HashMap<>(sasl);
    quick.put("max.block.ms", "20000");
    try (KafkaProducer<String, String> p = Check.producer(bootstrap, quick)) {
      p.send(new ProducerRecord<>("java-sasl", "must-not-arrive")).get();
      Check.that(false, "a send with wrong credentials was acknowledged");
    } catch (ExecutionException | SaslAuthenticationException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      Check.that(cause instanceof SaslAuthenticationException, "the producer's failure: " + cause);
    }
    Properties admin = new Properties();
    admin.putAll(sasl);
    admin.put("bootstrap.servers", bootstrap);
    admin.put("request.timeout.ms", "15000");
    admin.put("default.api.timeout.ms", "20000");
    try (Admin a = Admin.create(admin)) {
      a.listTopics().names().get();
      Check.that(false, "listTopics with wrong credentials answered");
    } catch (ExecutionException e) {
      Check.that(e.getCause() instanceof SaslAuthenticationException, "the AdminClient's failure: " + e.getCause());
    }
  }

  private SaslTest() {}
}
