#pragma once
// The controller role of strata-server: a voter of the Raft metadata quorum (RaftNode on
// metadata.log.dir, gRPC transport to the other voters), the metadata image it applies
// (MetadataStore, RocksDB in metadata.log.dir/metadata-image) and, on the leader, the
// active controller (QuorumController) serving ControllerService and AdminService on the
// node's controller.quorum.voters address, or in a dynamic quorum (KIP-853) on its
// controller listener. A dynamic quorum's controller starts from
// metadata.log.dir/bootstrap-voters.json when format wrote one, keeps its transport's
// peers and the control plane's members in step with its configuration, and while it
// knows no configuration asks controller.quorum.bootstrap.servers who the voters are.
// Not thread-safe: main starts and stops it.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

#include "absl/status/statusor.h"
#include "controller/controller_service.h"
#include "controller/metadata_store.h"
#include "controller/quorum_controller.h"
#include "raft/bootstrap_resolver.h"
#include "raft/grpc_transport.h"
#include "raft/raft_node.h"
#include "security/control_plane_authorizer.h"
#include "security/grpc_tls.h"
#include "storage/meta_properties.h"
#include "server/server_config.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace strata::server {

inline constexpr char kMetadataImageDir[] = "metadata-image";

class ControllerRole {
 public:
  // meta: metadata.log.dir's meta.properties (the cluster, and the directory id that is
  // half of this node's voter key).
  static absl::StatusOr<std::unique_ptr<ControllerRole>> Start(const ServerConfig& config,
                                                               const storage::MetaProperties& meta,
                                                               std::function<void(const absl::Status&)> on_fatal);
  ~ControllerRole();  // Stop()

  controller::MetadataStore& store() { return *store_; }
  raft::RaftNode& node() { return *node_; }
  // Orderly: the node stops taking part, the server lets go of it, the transport ends,
  // the metadata log closes cleanly.
  absl::Status Stop();

 private:
  explicit ControllerRole(const ServerConfig& config) : config_(config) {}
  // Every quorum's (on_membership, on the node's driver thread, and the resolver):
  // the transport's peers, and the members the control plane admits to Raft calls, are
  // every controller this node has known as a voter or learner of its configuration (at
  // its latest controller endpoint) and those the bootstrap servers named. Not only the
  // latest voters: a leader that removed itself leads until the removal commits, and the
  // remaining voters must answer it; a removed controller never campaigns, and its votes
  // are not counted.
  void UpdatePeers() ABSL_EXCLUSIVE_LOCKS_REQUIRED(peers_mu_);
  // The resolver thread: while the node knows no voters, asks the bootstrap servers; once
  // it is a voter, keeps its endpoint in the configuration current (UpdateOwnEndpoint).
  void ResolveBootstrapServers(std::string cluster_id, security::TlsFiles tls);
  // A voter whose advertised controller listener differs from its entry in the
  // configuration (it restarted on another address) asks the leader to update it
  // (UpdateRaftVoter, as Kafka's voters do), or updates it itself when it leads.
  void UpdateOwnEndpoint(const std::string& cluster_id, const std::shared_ptr<grpc::ChannelCredentials>& credentials)
      ABSL_LOCKS_EXCLUDED(peers_mu_);

  const ServerConfig config_;
  std::string directory_id_;  // 16 bytes: this voter's key with node.id
  std::string last_update_outcome_;  // UpdateOwnEndpoint's, on the resolver thread only
  // UpdateOwnEndpoint's channels by address (a retry every kResolveInterval while the
  // entry is stale), on the resolver thread only.
  std::map<std::string, std::shared_ptr<grpc::Channel>> update_channels_;
  std::unique_ptr<controller::MetadataStore> store_;
  std::unique_ptr<raft::GrpcTransport> transport_;
  std::unique_ptr<raft::RaftNode> node_;
  std::unique_ptr<controller::QuorumController> controller_;
  std::unique_ptr<security::ControlPlaneAuthorizer> authorizer_;
  std::unique_ptr<controller::ControllerGrpcService> controller_service_;
  std::unique_ptr<controller::AdminGrpcService> admin_service_;
  std::unique_ptr<raft::RaftServer> server_;
  bool stopped_ = false;

  absl::Mutex peers_mu_;
  raft::Membership membership_ ABSL_GUARDED_BY(peers_mu_);
  // From the bootstrap servers (a static quorum: controller.quorum.voters).
  std::map<raft::NodeId, std::string> resolved_ ABSL_GUARDED_BY(peers_mu_);
  std::map<raft::NodeId, std::string> known_ ABSL_GUARDED_BY(peers_mu_);     // from the configurations seen
  std::map<raft::NodeId, std::string> peers_ ABSL_GUARDED_BY(peers_mu_);     // as last set
  bool stopping_ ABSL_GUARDED_BY(peers_mu_) = false;
  std::unique_ptr<raft::QuorumResolver> bootstrap_;  // a dynamic quorum's bootstrap servers
  std::thread resolver_;                              // asks bootstrap_ (ResolveBootstrapServers)
};

}  // namespace strata::server
