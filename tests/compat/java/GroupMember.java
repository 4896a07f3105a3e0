// A consumer-group member for the group tests (ConsumerGroupTest, ConsumerProtocolTest):
// a KafkaConsumer subscribed to one topic, the records its polls returned, and the
// non-empty revocations its rebalance listener saw.
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

final class GroupMember implements ConsumerRebalanceListener {
  final KafkaConsumer<String, String> consumer;
  final List<Set<TopicPartition>> revoked = new ArrayList<>();
  int read = 0;

  // extra: the consumer's settings besides group.id (e.g. group.protocol, an assignor).
  GroupMember(String bootstrap, String group, String topic, Map<String, String> extra) {
    Map<String, String> p = new HashMap<>(extra);
    p.put("group.id", group);
    consumer = Check.consumer(bootstrap, p);
    consumer.subscribe(List.of(topic), this);
  }

  // One poll; the number of records it returned.
  int poll() {
    int n = consumer.poll(Duration.ofMillis(100)).count();
    read += n;
    return n;
  }

  Set<TopicPartition> assigned() { return consumer.assignment(); }

  // Whether every assigned partition was read up to `end`.
  boolean readTo(long end) { return assigned().stream().allMatch(tp -> consumer.position(tp) == end); }

  @Override public void onPartitionsRevoked(Collection<TopicPartition> ps) {
    if (!ps.isEmpty()) revoked.add(new HashSet<>(ps));
  }

  @Override public void onPartitionsAssigned(Collection<TopicPartition> ps) {}
}
