// AdminTest served's client quota calls (KIP-546): alterClientQuotas of a user with the
// default client id, then describeClientQuotas through a strict filter and through a
// filter on the user alone; validateOnly changes nothing; a fractional byte rate and an
// unknown key are refused with InvalidRequestException; removing every value leaves no
// entity.
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;

final class ClientQuotasCheck {
  static void check(Admin admin) throws Exception {
    Map<String, String> parts = new HashMap<>();
    parts.put("user", "alice");
    parts.put("client-id", null);  // the default client id
    ClientQuotaEntity entity = new ClientQuotaEntity(parts);
    ClientQuotaFilter strict = ClientQuotaFilter.containsOnly(List.of(
        ClientQuotaFilterComponent.ofEntity("user", "alice"), ClientQuotaFilterComponent.ofDefaultEntity("client-id")));
    admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity, List.of(
        new ClientQuotaAlteration.Op("producer_byte_rate", 1048576.0),
        new ClientQuotaAlteration.Op("request_percentage", 12.5))))).all().get();
    Map<String, Double> want = Map.of("producer_byte_rate", 1048576.0, "request_percentage", 12.5);
    // Another broker may answer the describe: its image catches up moments later.
    Check.until(Duration.ofSeconds(30), () -> {}, () -> want.equals(values(admin, strict, entity)));
    Check.equal(values(admin, strict, entity), want, "describeClientQuotas (strict) after alterClientQuotas");
    ClientQuotaFilter byUser = ClientQuotaFilter.contains(List.of(ClientQuotaFilterComponent.ofEntity("user", "alice")));
    Check.equal(values(admin, byUser, entity), want, "describeClientQuotas of user alice, any client id");
    admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity,
            List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 2.0)))),
        new AlterClientQuotasOptions().validateOnly(true)).all().get();
    Check.equal(values(admin, strict, entity), want, "describeClientQuotas after a validateOnly alteration");
    refused(admin, entity, "producer_byte_rate", 1.5);
    refused(admin, entity, "bytes_per_fortnight", 1.0);
    admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity, List.of(
        new ClientQuotaAlteration.Op("producer_byte_rate", null),
        new ClientQuotaAlteration.Op("request_percentage", null))))).all().get();
    Check.that(Check.until(Duration.ofSeconds(30), () -> {}, () -> values(admin, strict, entity) == null),
        "describeClientQuotas after every value was removed: no entity");
  }

  private static void refused(Admin admin, ClientQuotaEntity entity, String key, double value) throws Exception {
    try {
      admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity, List.of(new ClientQuotaAlteration.Op(key, value)))))
          .all().get();
      Check.that(false, "alterClientQuotas " + key + "=" + value + " was accepted");
    } catch (ExecutionException e) {
      Check.that(e.getCause() instanceof InvalidRequestException, "alterClientQuotas " + key + "=" + value + ": " + e.getCause());
    }
  }

  // The entity's values as the filter describes them; null when the entity is not there.
  private static Map<String, Double> values(Admin admin, ClientQuotaFilter filter, ClientQuotaEntity entity) {
    try {
      return admin.describeClientQuotas(filter).entities().get().get(entity);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }
}
