#pragma once
// The gRPC faces of the QuorumController: ControllerService (brokers) and AdminService
// (the strata CLI, and brokers forwarding their clients' requests), proto/controller.proto
// and proto/admin.proto. Each call is first authorized (a broker for its own id on
// ControllerService, RequireAdmin on AdminService: security/control_plane_authorizer.h;
// no authorizer: every call), then handed to the controller as it is; a node that is not
// the active controller answers NOT_CONTROLLER with the leader's id (the caller retries
// there). A BrokerSession stream holds one gRPC thread for as long as the broker keeps
// it open.
// Thread-safe.

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "admin.grpc.pb.h"
#include "controller.grpc.pb.h"
#include "controller/quorum_controller.h"
#include "security/control_plane_authorizer.h"

namespace strata::controller {

// The authorization every RPC of both services starts with.
class AuthorizedService {
 protected:
  explicit AuthorizedService(const security::ControlPlaneAuthorizer* authorizer) : authorizer_(authorizer) {}
  grpc::Status Broker(const grpc::ServerContext* context, const char* rpc, int32_t broker_id) const {
    return authorizer_ == nullptr ? grpc::Status::OK : authorizer_->RequireBroker(*context, rpc, broker_id);
  }
  grpc::Status Admin(const grpc::ServerContext* context, const char* rpc) const {
    return authorizer_ == nullptr ? grpc::Status::OK : authorizer_->RequireAdmin(*context, rpc);
  }
  grpc::Status AdminOrController(const grpc::ServerContext* context, const char* rpc, int32_t controller_id) const {
    return authorizer_ == nullptr ? grpc::Status::OK
                                  : authorizer_->RequireAdminOrController(*context, rpc, controller_id);
  }

 private:
  const security::ControlPlaneAuthorizer* const authorizer_;
};

class ControllerGrpcService final : public controller::v1::ControllerService::Service, AuthorizedService {
 public:
  // authorizer: null, or one that outlives the service.
  explicit ControllerGrpcService(QuorumController& c, const security::ControlPlaneAuthorizer* authorizer = nullptr)
      : AuthorizedService(authorizer), c_(c) {}
  grpc::Status BrokerRegistration(grpc::ServerContext* context, const controller::v1::BrokerRegistrationRequest* request,
                                  controller::v1::BrokerRegistrationResponse* response) override {
    if (grpc::Status allowed = Broker(context, "BrokerRegistration", request->broker_id()); !allowed.ok()) return allowed;
    *response = c_.RegisterBroker(*request);
    return grpc::Status::OK;
  }
  grpc::Status BrokerHeartbeat(grpc::ServerContext* context, const controller::v1::BrokerHeartbeatRequest* request,
                               controller::v1::BrokerHeartbeatResponse* response) override {
    if (grpc::Status allowed = Broker(context, "BrokerHeartbeat", request->broker_id()); !allowed.ok()) return allowed;
    *response = c_.BrokerHeartbeat(*request);
    return grpc::Status::OK;
  }
  grpc::Status AlterPartition(grpc::ServerContext* context, const controller::v1::AlterPartitionRequest* request,
                              controller::v1::AlterPartitionResponse* response) override {
    if (grpc::Status allowed = Broker(context, "AlterPartition", request->broker_id()); !allowed.ok()) return allowed;
    *response = c_.AlterPartition(*request);
    return grpc::Status::OK;
  }
  grpc::Status RemoteLogSegmentUpdate(grpc::ServerContext* context, const controller::v1::RemoteLogSegmentUpdateRequest* request,
                                      controller::v1::RemoteLogSegmentUpdateResponse* response) override {
    if (grpc::Status allowed = Broker(context, "RemoteLogSegmentUpdate", request->broker_id()); !allowed.ok()) return allowed;
    *response = c_.RemoteLogSegmentUpdate(*request);
    return grpc::Status::OK;
  }
  grpc::Status RemoteLogStartOffsetUpdate(grpc::ServerContext* context,
                                          const controller::v1::RemoteLogStartOffsetUpdateRequest* request,
                                          controller::v1::RemoteLogStartOffsetUpdateResponse* response) override {
    if (grpc::Status allowed = Broker(context, "RemoteLogStartOffsetUpdate", request->broker_id()); !allowed.ok()) {
      return allowed;
    }
    *response = c_.RemoteLogStartOffsetUpdate(*request);
    return grpc::Status::OK;
  }
  grpc::Status AssignReplicasToDirs(grpc::ServerContext* context, const controller::v1::AssignReplicasToDirsRequest* request,
                                    controller::v1::AssignReplicasToDirsResponse* response) override {
    if (grpc::Status allowed = Broker(context, "AssignReplicasToDirs", request->broker_id()); !allowed.ok()) return allowed;
    *response = c_.AssignReplicasToDirs(*request);
    return grpc::Status::OK;
  }
  grpc::Status AllocateProducerIds(grpc::ServerContext* context, const controller::v1::AllocateProducerIdsRequest* request,
                                   controller::v1::AllocateProducerIdsResponse* response) override {
    if (grpc::Status allowed = Broker(context, "AllocateProducerIds", request->broker_id()); !allowed.ok()) return allowed;
    *response = c_.AllocateProducerIds(*request);
    return grpc::Status::OK;
  }
  grpc::Status BrokerSession(grpc::ServerContext* context,
                             grpc::ServerReaderWriter<controller::v1::BrokerSessionResponse,
                                                      controller::v1::BrokerSessionRequest>* stream) override {
    controller::v1::BrokerSessionRequest request;
    if (!stream->Read(&request)) return grpc::Status::OK;
    if (grpc::Status allowed = Broker(context, "BrokerSession", request.broker_id()); !allowed.ok()) return allowed;
    // The controller may end the stream from another thread, until this call returns.
    struct Handle {
      absl::Mutex mu;
      grpc::ServerContext* context ABSL_GUARDED_BY(mu);
    };
    auto handle = std::make_shared<Handle>();
    {
      absl::MutexLock lock(&handle->mu);
      handle->context = context;
    }
    QuorumController::SessionStreamOpened opened = c_.OpenSessionStream(request, [handle] {
      absl::MutexLock lock(&handle->mu);
      if (handle->context != nullptr) handle->context->TryCancel();
    });
    stream->Write(opened.response);
    if (opened.token != 0) {
      bool closing = false;  // the broker's closing message: it ends the stream on purpose
      while (stream->Read(&request)) closing = closing || request.closing();
      // Without it, the connection was closed or reset (or the controller ended it, which
      // SessionStreamEnded knows). Not IsCancelled(): it can still say false here.
      c_.SessionStreamEnded(opened.token, /*broken=*/!closing);
    }
    absl::MutexLock lock(&handle->mu);
    handle->context = nullptr;
    return grpc::Status::OK;
  }

 private:
  QuorumController& c_;
};

class AdminGrpcService final : public admin::v1::AdminService::Service, AuthorizedService {
 public:
  explicit AdminGrpcService(QuorumController& c, const security::ControlPlaneAuthorizer* authorizer = nullptr)
      : AuthorizedService(authorizer), c_(c) {}
  grpc::Status CreateTopics(grpc::ServerContext* context, const admin::v1::CreateTopicsRequest* request,
                            admin::v1::CreateTopicsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "CreateTopics"); !allowed.ok()) return allowed;
    *response = c_.CreateTopics(*request);
    return grpc::Status::OK;
  }
  grpc::Status DeleteTopics(grpc::ServerContext* context, const admin::v1::DeleteTopicsRequest* request,
                            admin::v1::DeleteTopicsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DeleteTopics"); !allowed.ok()) return allowed;
    *response = c_.DeleteTopics(*request);
    return grpc::Status::OK;
  }
  grpc::Status CreatePartitions(grpc::ServerContext* context, const admin::v1::CreatePartitionsRequest* request,
                                admin::v1::CreatePartitionsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "CreatePartitions"); !allowed.ok()) return allowed;
    *response = c_.CreatePartitions(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeCluster(grpc::ServerContext* context, const admin::v1::DescribeClusterRequest*,
                               admin::v1::DescribeClusterResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeCluster"); !allowed.ok()) return allowed;
    *response = c_.DescribeCluster();
    return grpc::Status::OK;
  }
  grpc::Status DescribeTopics(grpc::ServerContext* context, const admin::v1::DescribeTopicsRequest* request,
                              admin::v1::DescribeTopicsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeTopics"); !allowed.ok()) return allowed;
    *response = c_.DescribeTopics(*request);
    return grpc::Status::OK;
  }
  grpc::Status ElectLeaders(grpc::ServerContext* context, const admin::v1::ElectLeadersRequest* request,
                            admin::v1::ElectLeadersResponse* response) override {
    if (grpc::Status allowed = Admin(context, "ElectLeaders"); !allowed.ok()) return allowed;
    *response = c_.ElectLeaders(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeQuorum(grpc::ServerContext* context, const admin::v1::DescribeQuorumRequest* request,
                              admin::v1::DescribeQuorumResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeQuorum"); !allowed.ok()) return allowed;
    *response = c_.DescribeQuorum(request->local());
    return grpc::Status::OK;
  }
  grpc::Status AlterConfigs(grpc::ServerContext* context, const admin::v1::AlterConfigsRequest* request,
                            admin::v1::AlterConfigsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "AlterConfigs"); !allowed.ok()) return allowed;
    *response = c_.AlterConfigs(*request);
    return grpc::Status::OK;
  }
  grpc::Status AlterUserScramCredentials(grpc::ServerContext* context,
                                         const admin::v1::AlterUserScramCredentialsRequest* request,
                                         admin::v1::AlterUserScramCredentialsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "AlterUserScramCredentials"); !allowed.ok()) return allowed;
    *response = c_.AlterUserScramCredentials(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeUserScramCredentials(grpc::ServerContext* context,
                                            const admin::v1::DescribeUserScramCredentialsRequest* request,
                                            admin::v1::DescribeUserScramCredentialsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeUserScramCredentials"); !allowed.ok()) return allowed;
    *response = c_.DescribeUserScramCredentials(*request);
    return grpc::Status::OK;
  }
  grpc::Status AlterClientQuotas(grpc::ServerContext* context, const admin::v1::AlterClientQuotasRequest* request,
                                 admin::v1::AlterClientQuotasResponse* response) override {
    if (grpc::Status allowed = Admin(context, "AlterClientQuotas"); !allowed.ok()) return allowed;
    *response = c_.AlterClientQuotas(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeClientQuotas(grpc::ServerContext* context, const admin::v1::DescribeClientQuotasRequest* request,
                                    admin::v1::DescribeClientQuotasResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeClientQuotas"); !allowed.ok()) return allowed;
    *response = c_.DescribeClientQuotas(*request);
    return grpc::Status::OK;
  }
  grpc::Status UpdateFeatures(grpc::ServerContext* context, const admin::v1::UpdateFeaturesRequest* request,
                              admin::v1::UpdateFeaturesResponse* response) override {
    if (grpc::Status allowed = Admin(context, "UpdateFeatures"); !allowed.ok()) return allowed;
    *response = c_.UpdateFeatures(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeFeatures(grpc::ServerContext* context, const admin::v1::DescribeFeaturesRequest*,
                                admin::v1::DescribeFeaturesResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeFeatures"); !allowed.ok()) return allowed;
    *response = c_.DescribeFeatures();
    return grpc::Status::OK;
  }
  grpc::Status UnregisterBroker(grpc::ServerContext* context, const admin::v1::UnregisterBrokerRequest* request,
                                admin::v1::UnregisterBrokerResponse* response) override {
    if (grpc::Status allowed = Admin(context, "UnregisterBroker"); !allowed.ok()) return allowed;
    *response = c_.UnregisterBroker(*request);
    return grpc::Status::OK;
  }
  grpc::Status AddRaftVoter(grpc::ServerContext* context, const admin::v1::AddRaftVoterRequest* request,
                            admin::v1::RaftVoterChangeResponse* response) override {
    if (grpc::Status allowed = Admin(context, "AddRaftVoter"); !allowed.ok()) return allowed;
    *response = c_.AddRaftVoter(*request);
    return grpc::Status::OK;
  }
  grpc::Status RemoveRaftVoter(grpc::ServerContext* context, const admin::v1::RemoveRaftVoterRequest* request,
                               admin::v1::RaftVoterChangeResponse* response) override {
    if (grpc::Status allowed = Admin(context, "RemoveRaftVoter"); !allowed.ok()) return allowed;
    *response = c_.RemoveRaftVoter(*request);
    return grpc::Status::OK;
  }
  grpc::Status UpdateRaftVoter(grpc::ServerContext* context, const admin::v1::UpdateRaftVoterRequest* request,
                               admin::v1::RaftVoterChangeResponse* response) override {
    if (grpc::Status allowed = AdminOrController(context, "UpdateRaftVoter", request->voter_id()); !allowed.ok()) {
      return allowed;
    }
    *response = c_.UpdateRaftVoter(*request);
    return grpc::Status::OK;
  }
  grpc::Status CreateAcls(grpc::ServerContext* context, const admin::v1::CreateAclsRequest* request,
                          admin::v1::CreateAclsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "CreateAcls"); !allowed.ok()) return allowed;
    *response = c_.CreateAcls(*request);
    return grpc::Status::OK;
  }
  grpc::Status DeleteAcls(grpc::ServerContext* context, const admin::v1::DeleteAclsRequest* request,
                          admin::v1::DeleteAclsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DeleteAcls"); !allowed.ok()) return allowed;
    *response = c_.DeleteAcls(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeAcls(grpc::ServerContext* context, const admin::v1::DescribeAclsRequest* request,
                            admin::v1::DescribeAclsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeAcls"); !allowed.ok()) return allowed;
    *response = c_.DescribeAcls(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeConfigs(grpc::ServerContext* context, const admin::v1::DescribeConfigsRequest* request,
                               admin::v1::DescribeConfigsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "DescribeConfigs"); !allowed.ok()) return allowed;
    *response = c_.DescribeConfigs(*request);
    return grpc::Status::OK;
  }
  grpc::Status AlterPartitionReassignments(grpc::ServerContext* context,
                                           const admin::v1::AlterPartitionReassignmentsRequest* request,
                                           admin::v1::AlterPartitionReassignmentsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "AlterPartitionReassignments"); !allowed.ok()) return allowed;
    *response = c_.AlterPartitionReassignments(*request);
    return grpc::Status::OK;
  }
  grpc::Status ListPartitionReassignments(grpc::ServerContext* context,
                                          const admin::v1::ListPartitionReassignmentsRequest* request,
                                          admin::v1::ListPartitionReassignmentsResponse* response) override {
    if (grpc::Status allowed = Admin(context, "ListPartitionReassignments"); !allowed.ok()) return allowed;
    *response = c_.ListPartitionReassignments(*request);
    return grpc::Status::OK;
  }

 private:
  QuorumController& c_;
};

}  // namespace strata::controller
