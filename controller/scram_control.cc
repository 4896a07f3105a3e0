#include "controller/scram_control.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "security/scram.h"

namespace strata::controller {
namespace {

std::optional<security::ScramMechanism> Mechanism(int32_t m) {
  if (m == static_cast<int32_t>(security::ScramMechanism::kSha256)) return security::ScramMechanism::kSha256;
  if (m == static_cast<int32_t>(security::ScramMechanism::kSha512)) return security::ScramMechanism::kSha512;
  return std::nullopt;
}

// The checks of one deletion or upsertion; Outcome{} when it may be written.
Outcome Check(const std::string& user, int32_t mechanism) {
  if (user.empty()) return {ErrorCode::kUnacceptableCredential, "the user name is empty"};
  if (!Mechanism(mechanism)) {
    return {ErrorCode::kUnsupportedSaslMechanism, absl::StrCat("SCRAM mechanism ", mechanism, " is unknown")};
  }
  return {};
}

}  // namespace

std::vector<UserPlan> PlanAlterUserScramCredentials(const MetadataImage& image,
                                                    const admin::v1::AlterUserScramCredentialsRequest& request) {
  std::vector<UserPlan> plans;
  std::map<std::string, size_t> index;
  std::set<std::pair<std::string, int32_t>> named;
  auto plan_of = [&](const std::string& user) -> Plan& {
    auto [it, added] = index.emplace(user, plans.size());
    if (added) plans.push_back(UserPlan{user, {}});
    return plans[it->second].plan;
  };
  auto fail = [](Plan& plan, Outcome outcome) {
    if (plan.outcome.ok()) plan.outcome = std::move(outcome);
  };
  for (const auto& d : request.deletions()) {
    Plan& plan = plan_of(d.name());
    if (!named.insert({d.name(), d.mechanism()}).second) {
      fail(plan, {ErrorCode::kDuplicateResource, "a user's credential for one mechanism is named twice"});
    } else if (Outcome o = Check(d.name(), d.mechanism()); !o.ok()) {
      fail(plan, o);
    } else if (image.security().FindScramCredential(d.name(), d.mechanism()) == nullptr) {
      fail(plan, {ErrorCode::kResourceNotFound, "no such credential to delete"});
    } else {
      pb::MetadataRecord r;
      r.mutable_remove_user_scram_credential()->set_name(d.name());
      r.mutable_remove_user_scram_credential()->set_mechanism(d.mechanism());
      plan.records.push_back(std::move(r));
    }
  }
  for (const auto& u : request.upsertions()) {
    Plan& plan = plan_of(u.name());
    if (!named.insert({u.name(), u.mechanism()}).second) {
      fail(plan, {ErrorCode::kDuplicateResource, "a user's credential for one mechanism is named twice"});
    } else if (Outcome o = Check(u.name(), u.mechanism()); !o.ok()) {
      fail(plan, o);
    } else if (u.iterations() < security::kScramMinIterations || u.iterations() > security::kScramMaxIterations) {
      fail(plan, {ErrorCode::kUnacceptableCredential,
                  absl::StrCat("iterations must be ", security::kScramMinIterations, "..", security::kScramMaxIterations,
                               ", not ", u.iterations())});
    } else if (u.salt().empty() || u.salted_password().empty()) {
      fail(plan, {ErrorCode::kUnacceptableCredential, "the salt and the salted password must not be empty"});
    } else {
      security::ScramCredential c =
          security::CredentialFromSaltedPassword(*Mechanism(u.mechanism()), u.salt(), u.salted_password(), u.iterations());
      pb::MetadataRecord r;
      auto* out = r.mutable_user_scram_credential();
      out->set_name(u.name());
      out->set_mechanism(u.mechanism());
      out->set_salt(c.salt);
      out->set_stored_key(c.stored_key);
      out->set_server_key(c.server_key);
      out->set_iterations(c.iterations);
      plan.records.push_back(std::move(r));
    }
  }
  for (UserPlan& p : plans) {
    if (!p.plan.outcome.ok()) p.plan.records.clear();  // all or none
  }
  return plans;
}

admin::v1::DescribeUserScramCredentialsResponse DescribeUserScramCredentials(
    const MetadataImage& image, const admin::v1::DescribeUserScramCredentialsRequest& request) {
  admin::v1::DescribeUserScramCredentialsResponse response;
  std::vector<std::string> users(request.users().begin(), request.users().end());
  for (const auto& d : image.security().DescribeScramCredentials(users)) {
    auto* result = response.add_results();
    result->set_user(d.user);
    result->set_error_code(static_cast<int32_t>(d.error));
    result->set_error_message(d.message);
    for (const auto& [mechanism, iterations] : d.mechanism_iterations) {
      auto* info = result->add_credential_infos();
      info->set_mechanism(mechanism);
      info->set_iterations(iterations);
    }
  }
  return response;
}

}  // namespace strata::controller
