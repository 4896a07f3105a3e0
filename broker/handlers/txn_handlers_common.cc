#include "broker/handlers/txn_handlers_common.h"

#include "broker/handlers/authorization.h"

namespace strata::broker {

proto::kafka::ErrorCode CheckTransactionalRequest(const ApiRequest& request, const std::string& transactional_id) {
  using proto::kafka::ErrorCode;
  if (transactional_id.empty()) return ErrorCode::kInvalidRequest;
  if (!AuthorizedOnTransactionalId(request, security::AclOperation::kWrite, transactional_id)) {
    return ErrorCode::kTransactionalIdAuthorizationFailed;
  }
  if (request.broker.transaction_coordinator == nullptr) return ErrorCode::kCoordinatorNotAvailable;
  return ErrorCode::kNone;
}

}  // namespace strata::broker
