#pragma once
// How the active controller's answers carry outcomes (quorum_controller.cc and
// quorum_controller_reads.cc): a Kafka error code and message on a response or item,
// NOT_CONTROLLER naming the leader, SECURITY_DISABLED without an authorizer, and every
// topic config with its value or default.
// Not thread-safe (functions over one response).

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "admin.pb.h"
#include "controller/plan.h"
#include "storage/log_config.h"

namespace strata::controller {

inline int32_t Code(ErrorCode c) { return static_cast<int32_t>(c); }

// NOT_CONTROLLER naming the leader when `leader` is set (this node is not active).
template <typename Response>
bool RefuseIfNotActive(const std::optional<int32_t>& leader, Response* response) {
  if (!leader) return false;
  response->set_error_code(Code(ErrorCode::kNotController));
  response->set_error_message(absl::StrCat("not the active controller; the leader is ", *leader));
  response->set_controller_id(*leader);
  return true;
}

template <typename Response>
void SetOutcome(const Outcome& o, Response* r) {
  r->set_error_code(Code(o.code));
  r->set_error_message(o.message);
}

// SECURITY_DISABLED for an ACL call of a cluster without an authorizer, as Kafka.
template <typename Response>
bool SecurityDisabled(bool authorizer_enabled, Response* response) {
  if (authorizer_enabled) return false;
  response->set_error_code(Code(ErrorCode::kSecurityDisabled));
  response->set_error_message("no authorizer is configured (authorizer.class.name)");
  return true;
}

// Every known topic config: the value set (from `set`) or the default.
inline void AddTopicConfigEntries(const std::map<std::string, std::string>& set,
                                  google::protobuf::RepeatedPtrField<admin::v1::ConfigEntry>* out) {
  for (const storage::TopicSetting& setting : storage::TopicSettings()) {
    admin::v1::ConfigEntry* e = out->Add();
    e->set_name(setting.name);
    auto v = set.find(setting.name);
    e->set_value(v == set.end() ? setting.default_value : v->second);
    e->set_is_default(v == set.end());
  }
}

}  // namespace strata::controller
