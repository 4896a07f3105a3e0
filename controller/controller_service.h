#pragma once
// The gRPC faces of the QuorumController: ControllerService (brokers) and AdminService
// (the strata CLI), proto/controller.proto and proto/admin.proto. Each call is handed to
// the controller as it is; a node that is not the active controller answers
// NOT_CONTROLLER with the leader's id (the caller retries there). A BrokerSession stream
// holds one gRPC thread for as long as the broker keeps it open.
// Thread-safe.

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "admin.grpc.pb.h"
#include "controller.grpc.pb.h"
#include "controller/quorum_controller.h"

namespace strata::controller {

class ControllerGrpcService final : public controller::v1::ControllerService::Service {
 public:
  explicit ControllerGrpcService(QuorumController& c) : c_(c) {}
  grpc::Status BrokerRegistration(grpc::ServerContext*, const controller::v1::BrokerRegistrationRequest* request,
                                  controller::v1::BrokerRegistrationResponse* response) override {
    *response = c_.RegisterBroker(*request);
    return grpc::Status::OK;
  }
  grpc::Status BrokerHeartbeat(grpc::ServerContext*, const controller::v1::BrokerHeartbeatRequest* request,
                               controller::v1::BrokerHeartbeatResponse* response) override {
    *response = c_.BrokerHeartbeat(*request);
    return grpc::Status::OK;
  }
  grpc::Status AlterPartition(grpc::ServerContext*, const controller::v1::AlterPartitionRequest* request,
                              controller::v1::AlterPartitionResponse* response) override {
    *response = c_.AlterPartition(*request);
    return grpc::Status::OK;
  }
  grpc::Status RemoteLogSegmentUpdate(grpc::ServerContext*, const controller::v1::RemoteLogSegmentUpdateRequest* request,
                                      controller::v1::RemoteLogSegmentUpdateResponse* response) override {
    *response = c_.RemoteLogSegmentUpdate(*request);
    return grpc::Status::OK;
  }
  grpc::Status AllocateProducerIds(grpc::ServerContext*, const controller::v1::AllocateProducerIdsRequest* request,
                                   controller::v1::AllocateProducerIdsResponse* response) override {
    *response = c_.AllocateProducerIds(*request);
    return grpc::Status::OK;
  }
  grpc::Status BrokerSession(grpc::ServerContext* context,
                             grpc::ServerReaderWriter<controller::v1::BrokerSessionResponse,
                                                      controller::v1::BrokerSessionRequest>* stream) override {
    controller::v1::BrokerSessionRequest request;
    if (!stream->Read(&request)) return grpc::Status::OK;
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
      while (stream->Read(&request)) {
      }  // the broker sends nothing more: Read returns when the stream ends
      // Cancelled, rather than half-closed: the connection was closed or reset (or the
      // controller ended it, which SessionStreamEnded knows).
      c_.SessionStreamEnded(opened.token, /*broken=*/context->IsCancelled());
    }
    absl::MutexLock lock(&handle->mu);
    handle->context = nullptr;
    return grpc::Status::OK;
  }

 private:
  QuorumController& c_;
};

class AdminGrpcService final : public admin::v1::AdminService::Service {
 public:
  explicit AdminGrpcService(QuorumController& c) : c_(c) {}
  grpc::Status CreateTopics(grpc::ServerContext*, const admin::v1::CreateTopicsRequest* request,
                            admin::v1::CreateTopicsResponse* response) override {
    *response = c_.CreateTopics(*request);
    return grpc::Status::OK;
  }
  grpc::Status DeleteTopics(grpc::ServerContext*, const admin::v1::DeleteTopicsRequest* request,
                            admin::v1::DeleteTopicsResponse* response) override {
    *response = c_.DeleteTopics(*request);
    return grpc::Status::OK;
  }
  grpc::Status CreatePartitions(grpc::ServerContext*, const admin::v1::CreatePartitionsRequest* request,
                                admin::v1::CreatePartitionsResponse* response) override {
    *response = c_.CreatePartitions(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeCluster(grpc::ServerContext*, const admin::v1::DescribeClusterRequest*,
                               admin::v1::DescribeClusterResponse* response) override {
    *response = c_.DescribeCluster();
    return grpc::Status::OK;
  }
  grpc::Status DescribeTopics(grpc::ServerContext*, const admin::v1::DescribeTopicsRequest* request,
                              admin::v1::DescribeTopicsResponse* response) override {
    *response = c_.DescribeTopics(*request);
    return grpc::Status::OK;
  }
  grpc::Status ElectLeaders(grpc::ServerContext*, const admin::v1::ElectLeadersRequest* request,
                            admin::v1::ElectLeadersResponse* response) override {
    *response = c_.ElectLeaders(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeQuorum(grpc::ServerContext*, const admin::v1::DescribeQuorumRequest*,
                              admin::v1::DescribeQuorumResponse* response) override {
    *response = c_.DescribeQuorum();
    return grpc::Status::OK;
  }
  grpc::Status AlterConfigs(grpc::ServerContext*, const admin::v1::AlterConfigsRequest* request,
                            admin::v1::AlterConfigsResponse* response) override {
    *response = c_.AlterConfigs(*request);
    return grpc::Status::OK;
  }
  grpc::Status DescribeConfigs(grpc::ServerContext*, const admin::v1::DescribeConfigsRequest* request,
                               admin::v1::DescribeConfigsResponse* response) override {
    *response = c_.DescribeConfigs(*request);
    return grpc::Status::OK;
  }

 private:
  QuorumController& c_;
};

}  // namespace strata::controller
