#pragma once
// The controller role of strata-server: a voter of the Raft metadata quorum (RaftNode on
// metadata.log.dir, gRPC transport to the other voters), the metadata image it applies
// (MetadataStore, RocksDB in metadata.log.dir/metadata-image) and, on the leader, the
// active controller (QuorumController) serving ControllerService and AdminService on the
// node's controller.quorum.voters address.
// Not thread-safe: main starts and stops it.

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "controller/controller_service.h"
#include "controller/metadata_store.h"
#include "controller/quorum_controller.h"
#include "raft/grpc_transport.h"
#include "raft/raft_node.h"
#include "security/control_plane_authorizer.h"
#include "server/server_config.h"

namespace strata::server {

inline constexpr char kMetadataImageDir[] = "metadata-image";

class ControllerRole {
 public:
  static absl::StatusOr<std::unique_ptr<ControllerRole>> Start(const ServerConfig& config, const std::string& cluster_id,
                                                               std::function<void(const absl::Status&)> on_fatal);
  ~ControllerRole();  // Stop()

  controller::MetadataStore& store() { return *store_; }
  raft::RaftNode& node() { return *node_; }
  // Orderly: the node stops taking part, the server lets go of it, the transport ends,
  // the metadata log closes cleanly.
  absl::Status Stop();

 private:
  ControllerRole() = default;
  std::unique_ptr<controller::MetadataStore> store_;
  std::unique_ptr<raft::GrpcTransport> transport_;
  std::unique_ptr<raft::RaftNode> node_;
  std::unique_ptr<controller::QuorumController> controller_;
  std::unique_ptr<security::ControlPlaneAuthorizer> authorizer_;
  std::unique_ptr<controller::ControllerGrpcService> controller_service_;
  std::unique_ptr<controller::AdminGrpcService> admin_service_;
  std::unique_ptr<raft::RaftServer> server_;
  bool stopped_ = false;
};

}  // namespace strata::server
