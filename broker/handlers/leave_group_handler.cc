#include "broker/handlers/leave_group_handler.h"

#include "broker/handlers/authorization.h"
#include "broker/group/group_coordinator.h"
#include "proto/kafka/leave_group.h"

namespace strata::broker {

namespace kafka = strata::proto::kafka;

namespace {
constexpr int16_t kBatchedMembers = 3;
}  // namespace

void HandleLeaveGroup(const ApiRequest& request, ApiResponder respond) {
  const KafkaApisContext& context = request.broker;
  const int16_t version = request.header.api_version;
  AnswerAtOnce(
      request, respond, [](kafka::Reader& reader, int16_t v) { return kafka::ReadLeaveGroupRequest(reader, v); },
      [&](const kafka::LeaveGroupRequest& r) {
        std::vector<MemberIdentity> members;
        if (version >= kBatchedMembers) {
          for (const auto& m : r.members) members.push_back({m.member_id, m.group_instance_id});
        } else {
          members.push_back({r.member_id, std::nullopt});
        }
        GroupCoordinator::LeaveResult result;
        if (!AuthorizedOnGroup(request, security::AclOperation::kRead, r.group_id)) {
          kafka::LeaveGroupResponse denied;
          denied.error_code = static_cast<int16_t>(ErrorCode::kGroupAuthorizationFailed);
          return denied;
        }
        if (context.group_coordinator == nullptr) {
          result.error = ErrorCode::kCoordinatorNotAvailable;
        } else {
          result = context.group_coordinator->LeaveGroup(r.group_id, members);
        }
        kafka::LeaveGroupResponse out;
        out.error_code = static_cast<int16_t>(result.error);
        if (version < kBatchedMembers) {
          if (result.error == ErrorCode::kNone && !result.members.empty()) {
            out.error_code = static_cast<int16_t>(result.members.front());
          }
          return out;
        }
        for (size_t i = 0; i < result.members.size() && i < members.size(); ++i) {
          out.members.push_back(
              {members[i].member_id, members[i].group_instance_id, static_cast<int16_t>(result.members[i])});
        }
        return out;
      },
      [](const auto& response, int16_t v, kafka::Writer& writer) { kafka::WriteLeaveGroupResponse(response, v, writer); });
}

}  // namespace strata::broker
