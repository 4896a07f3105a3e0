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

  // A static member `a` closes (it does not leave) and `again` makes its new incarnation
  // with the same group.instance.id: it gets a's partitions back, and `b`, the other
  // member, gives nothing up. Closes both.
  static void checkStaticMemberReturns(GroupMember a, GroupMember b, java.util.function.Supplier<GroupMember> again,
                                       Duration bound) {
    Set<TopicPartition> aHad = new HashSet<>(a.assigned());
    int bRevoked = b.revoked.size();
    a.consumer.close();
    GroupMember a2 = again.get();
    Check.that(Check.until(bound, () -> { a2.poll(); b.poll(); }, () -> !a2.assigned().isEmpty()),
        "static: the member comes back with its instance id");
    Check.equal(a2.assigned(), aHad, "static: the returning member's partitions");
    b.poll();
    Check.equal(b.revoked.size(), bRevoked, "static: revocations the other member saw");
    a2.consumer.close();
    b.consumer.close();
  }

  @Override public void onPartitionsRevoked(Collection<TopicPartition> ps) {
    if (!ps.isEmpty()) revoked.add(new HashSet<>(ps));
  }

  @Override public void onPartitionsAssigned(Collection<TopicPartition> ps) {}
}
