// The AdminClient calls Strata does not serve yet, each with the issue that brings it. Each
// must fail at once with UnsupportedVersionException: the client sees from ApiVersions that
// the broker lacks the API and never sends it. docs/compatibility.md lists the same calls.
import java.util.*;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

final class UnsupportedCalls {
  private record Call(String name, String issue, Supplier<KafkaFuture<?>> run) {}

  static void check(Admin admin) throws Exception {
    Check.createTopic(admin, "unsupported", 1);
    TopicPartition tp = new TopicPartition("unsupported", 0);
    List<Call> calls = List.of(
        new Call("createDelegationToken", "36", () -> admin.createDelegationToken().delegationToken()),
        new Call("describeDelegationToken", "36", () -> admin.describeDelegationToken().delegationTokens()),
        new Call("describeStreamsGroups", "40", () -> admin.describeStreamsGroups(List.of("streams")).all()));
    for (Call call : calls) {
      long start = System.nanoTime();
      Throwable got = null;
      try {
        call.run().get().get();
      } catch (ExecutionException e) {
        got = e.getCause();
      } catch (UnsupportedVersionException e) {  // some calls throw before a future exists
        got = e;
      }
      long ms = (System.nanoTime() - start) / 1_000_000;
      Check.that(got instanceof UnsupportedVersionException,
          call.name() + " (issue " + call.issue() + "): " + got + " after " + ms + " ms");
    }
  }

  private UnsupportedCalls() {}
}
