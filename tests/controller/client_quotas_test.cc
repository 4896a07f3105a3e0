// Client quotas in the metadata image and the controller's rules (client_quotas_image.h,
// client_quota_control.h): Kafka's describe filters (exact, default, any named, strict),
// the entities and values an alteration may name, INVALID_REQUEST for each bad entry
// with nothing written for it, and removals and unchanged values that write nothing.

#include <gtest/gtest.h>

#include "controller/client_quota_control.h"
#include "controller/client_quotas_image.h"
#include "controller/metadata_image.h"

namespace strata::controller {
namespace {

namespace pb = metadata::v1;
using Parts = std::vector<std::pair<std::string, std::optional<std::string>>>;

void SetParts(const Parts& parts, EntityParts* out) {
  for (const auto& [type, name] : parts) {
    pb::ClientQuotaEntityPart* p = out->Add();
    p->set_entity_type(type);
    if (name) p->set_entity_name(*name);
  }
}

pb::MetadataRecord Quota(const Parts& entity, const std::string& key, double value, bool remove = false) {
  pb::MetadataRecord r;
  SetParts(entity, r.mutable_client_quota()->mutable_entity());
  r.mutable_client_quota()->set_key(key);
  r.mutable_client_quota()->set_value(value);
  r.mutable_client_quota()->set_remove(remove);
  return r;
}

ClientQuotaEntity E(const Parts& parts) { return ClientQuotaEntity(parts.begin(), parts.end()); }

// An image with one entity of each shape.
MetadataImage Image() {
  MetadataImage image;
  for (const pb::MetadataRecord& r : {Quota({{"user", "alice"}}, "producer_byte_rate", 100),
                                      Quota({{"user", std::nullopt}}, "producer_byte_rate", 50),
                                      Quota({{"user", "alice"}, {"client-id", "app"}}, "consumer_byte_rate", 10),
                                      Quota({{"client-id", std::nullopt}}, "request_percentage", 25),
                                      Quota({{"ip", "10.0.0.1"}}, "connection_creation_rate", 5)}) {
    EXPECT_TRUE(image.Apply(r).ok());
  }
  return image;
}

std::vector<ClientQuotaEntity> Matched(const MetadataImage& image, const std::vector<QuotaFilterComponent>& filter,
                                       bool strict) {
  auto described = image.client_quotas().Describe(filter, strict);
  EXPECT_TRUE(described.ok()) << described.status();
  std::vector<ClientQuotaEntity> out;
  if (described.ok()) {
    for (const auto& [entity, values] : *described) out.push_back(entity);
  }
  return out;
}

TEST(ClientQuotasImage, DescribeMatchesKafkasFilters) {
  MetadataImage image = Image();
  using F = QuotaFilterComponent;
  EXPECT_EQ(Matched(image, {}, false).size(), 5u) << "no components, not strict: every entity";
  EXPECT_TRUE(Matched(image, {}, true).empty());
  EXPECT_EQ(Matched(image, {{"user", F::kExact, "alice"}}, false),
            (std::vector<ClientQuotaEntity>{E({{"client-id", "app"}, {"user", "alice"}}), E({{"user", "alice"}})}))
      << "in the image's order";
  EXPECT_EQ(Matched(image, {{"user", F::kExact, "alice"}}, true), (std::vector<ClientQuotaEntity>{E({{"user", "alice"}})}));
  EXPECT_EQ(Matched(image, {{"user", F::kDefault, std::nullopt}}, false),
            (std::vector<ClientQuotaEntity>{E({{"user", std::nullopt}})}));
  EXPECT_EQ(Matched(image, {{"client-id", F::kSpecified, std::nullopt}}, false),
            (std::vector<ClientQuotaEntity>{E({{"client-id", "app"}, {"user", "alice"}})}))
      << "any named client id: not the default";
  EXPECT_EQ(Matched(image, {{"ip", F::kExact, "10.0.0.1"}}, true).size(), 1u);
}

TEST(ClientQuotasImage, ABadFilterIsRefusedWithKafkasReason) {
  MetadataImage image = Image();
  using F = QuotaFilterComponent;
  auto refused = [&](const std::vector<F>& filter) {
    auto d = image.client_quotas().Describe(filter, false);
    return d.ok() ? std::string("accepted") : std::string(d.status().message());
  };
  EXPECT_EQ(refused({{"user", F::kExact, std::nullopt}}), "Request specified MATCH_TYPE_EXACT, but set match string to null.");
  EXPECT_EQ(refused({{"user", F::kDefault, "x"}}), "Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
  EXPECT_EQ(refused({{"user", 9, std::nullopt}}), "Unknown match type 9.");
  EXPECT_EQ(refused({{"", F::kDefault, std::nullopt}}), "Invalid empty entity type.");
  EXPECT_EQ(refused({{"group", F::kDefault, std::nullopt}}), "Unsupported entity type group.");
  EXPECT_EQ(refused({{"user", F::kDefault, std::nullopt}, {"user", F::kExact, "a"}}),
            "Entity type user cannot appear more than once in the filter.");
  EXPECT_NE(refused({{"ip", F::kDefault, std::nullopt}, {"user", F::kExact, "a"}}).find("ip entity cannot be combined"),
            std::string::npos);
}

TEST(ClientQuotasImage, RecordsOutsideTheRulesAreRefused) {
  MetadataImage image = Image();
  const std::string before = image.Dump();
  EXPECT_FALSE(image.Apply(Quota({}, "producer_byte_rate", 1)).ok());
  EXPECT_FALSE(image.Apply(Quota({{"user", "a"}}, "connection_creation_rate", 1)).ok()) << "an ip's key";
  EXPECT_FALSE(image.Apply(Quota({{"ip", "not-an-address"}}, "connection_creation_rate", 1)).ok());
  EXPECT_FALSE(image.Apply(Quota({{"user", "a"}}, "producer_byte_rate", 0, /*remove=*/true)).ok()) << "nothing set";
  EXPECT_EQ(image.Dump(), before);
  ASSERT_TRUE(image.Apply(Quota({{"user", "alice"}}, "producer_byte_rate", 0, /*remove=*/true)).ok());
  EXPECT_EQ(image.client_quotas().quotas().count(E({{"user", "alice"}})), 0u) << "its last value gone, the entity too";
}

admin::v1::AlterClientQuotasRequest Alter(const Parts& entity,
                                          const std::vector<std::tuple<std::string, double, bool>>& ops) {
  admin::v1::AlterClientQuotasRequest request;
  auto* entry = request.add_entries();
  SetParts(entity, entry->mutable_entity());
  for (const auto& [key, value, remove] : ops) {
    auto* op = entry->add_ops();
    op->set_key(key);
    op->set_value(value);
    op->set_remove(remove);
  }
  return request;
}

std::string Refusal(const MetadataImage& image, const admin::v1::AlterClientQuotasRequest& request, size_t entry = 0) {
  std::vector<Plan> plans = PlanAlterClientQuotas(image, request);
  EXPECT_EQ(plans.size(), static_cast<size_t>(request.entries_size()));
  const Plan& p = plans.at(entry);
  if (p.outcome.ok()) return "ok";
  EXPECT_EQ(p.outcome.code, ErrorCode::kInvalidRequest);
  EXPECT_TRUE(p.records.empty()) << "nothing written for a refused entry";
  return p.outcome.message;
}

TEST(ClientQuotaControl, EachBadEntryIsInvalidRequestWithItsReason) {
  MetadataImage image = Image();
  EXPECT_EQ(Refusal(image, Alter({}, {{"producer_byte_rate", 1, false}})), "Invalid empty client quota entity.");
  EXPECT_EQ(Refusal(image, Alter({{"user", "a"}}, {{"producer_byte_rate", 1.5, false}})),
            "Quota producer_byte_rate must be a whole number, not 1.5.");
  EXPECT_EQ(Refusal(image, Alter({{"user", "a"}}, {{"producer_byte_rate", -1, false}})),
            "Quota producer_byte_rate must be a number above zero, not -1.");
  EXPECT_EQ(Refusal(image, Alter({{"user", "a"}}, {{"request_percentage", 12.5, false}})), "ok")
      << "request_percentage takes fractions";
  EXPECT_EQ(Refusal(image, Alter({{"user", "a"}}, {{"bytes_rate", 1, false}})),
            "Invalid configuration key bytes_rate for user=a.");
  EXPECT_EQ(Refusal(image, Alter({{"user", "a"}}, {{"bytes_rate", 1, true}})),
            "Invalid configuration key bytes_rate for user=a.")
      << "an unknown key is refused when removed too";
  EXPECT_EQ(Refusal(image, Alter({{"user", "a"}}, {{"producer_byte_rate", 1, false}, {"producer_byte_rate", 2, false}})),
            "Quota key producer_byte_rate appears twice for user=a.");
  EXPECT_NE(Refusal(image, Alter({{"ip", "1.2.3.4"}, {"user", "a"}}, {{"connection_creation_rate", 1, false}}))
                .find("cannot be combined"),
            std::string::npos);
  // One entity twice: the second entry is refused, the first planned.
  admin::v1::AlterClientQuotasRequest twice = Alter({{"user", "a"}}, {{"producer_byte_rate", 1, false}});
  *twice.add_entries() = twice.entries(0);
  EXPECT_EQ(Refusal(image, twice, 0), "ok");
  EXPECT_EQ(Refusal(image, twice, 1), "The entity user=a is named twice in the request.");
}

TEST(ClientQuotaControl, OnlyChangesAreWrittenAndTheyApply) {
  MetadataImage image = Image();
  // Unchanged (alice's 100) and removal of what is not set (her consumer rate): nothing.
  std::vector<Plan> same = PlanAlterClientQuotas(
      image, Alter({{"user", "alice"}}, {{"producer_byte_rate", 100, false}, {"consumer_byte_rate", 0, true}}));
  ASSERT_TRUE(same.at(0).outcome.ok());
  EXPECT_TRUE(same.at(0).records.empty());
  std::vector<Plan> change = PlanAlterClientQuotas(
      image, Alter({{"user", "alice"}}, {{"producer_byte_rate", 0, true}, {"consumer_byte_rate", 300, false}}));
  ASSERT_TRUE(change.at(0).outcome.ok());
  ASSERT_EQ(change.at(0).records.size(), 2u);
  for (const pb::MetadataRecord& r : change.at(0).records) ASSERT_TRUE(image.Apply(r).ok());
  EXPECT_EQ(image.client_quotas().quotas().at(E({{"user", "alice"}})), (ClientQuotaValueMap{{"consumer_byte_rate", 300}}));
  // The Admin service's describe answers the image, entity parts and values.
  admin::v1::DescribeClientQuotasRequest describe;
  auto* c = describe.add_components();
  c->set_entity_type("user");
  c->set_match_type(0);
  c->set_match("alice");
  describe.set_strict(true);
  admin::v1::DescribeClientQuotasResponse r = DescribeClientQuotas(image, describe);
  ASSERT_EQ(r.error_code(), 0) << r.error_message();
  ASSERT_EQ(r.entries_size(), 1);
  EXPECT_EQ(r.entries(0).values().at("consumer_byte_rate"), 300);
  c->set_match_type(7);
  EXPECT_EQ(DescribeClientQuotas(image, describe).error_code(), static_cast<int32_t>(ErrorCode::kInvalidRequest));
}

}  // namespace
}  // namespace strata::controller
