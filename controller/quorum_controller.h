#pragma once
// QuorumController: the active controller. On the Raft leader it turns broker and admin
// requests into metadata records (cluster_control.h decides), writes them through Raft
// and answers once they are applied; elsewhere it answers NOT_CONTROLLER naming the
// leader. It also keeps the brokers' sessions: a broker without a heartbeat for
// broker.session.timeout.ms is fenced and its leaderships move; a fenced broker whose
// metadata caught up with its registration is unfenced. A broker whose session stream
// breaks from its side while its listeners refuse connections (the process is gone) is
// fenced at once (README.md, "Session streams").
// Writes are serialised (one decision at a time, made on an image that holds every
// earlier write); reads use the image as applied.
// Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "admin.pb.h"
#include "controller.pb.h"
#include "controller/broker_session_streams.h"
#include "controller/cluster_control.h"
#include "controller/metadata_store.h"
#include "raft/raft_node.h"

namespace strata::controller {

struct QuorumControllerOptions {
  ControllerConfig config;
  std::string cluster_id;
  // A static quorum's voters, each one's host:port (controller.quorum.voters):
  // DescribeQuorum's nodes (a dynamic quorum's endpoints are in its configuration).
  std::map<int32_t, std::string> voter_addresses;
  std::chrono::milliseconds session_timeout{9000};  // broker.session.timeout.ms
  // leader.imbalance.check.interval.seconds: how often the active controller moves
  // leadership back to preferred replicas (config.auto_leader_rebalance).
  std::chrono::milliseconds leader_imbalance_check_interval{300000};
  std::chrono::milliseconds write_timeout{10000};
  // Largest Raft entry to write; bigger requests go in several (each topic whole).
  size_t max_entry_bytes = 900 << 10;
  // authorizer.class.name is set: the ACL calls are served (else SECURITY_DISABLED).
  bool authorizer_enabled = false;
  // controller.listener.names: a voter added to a dynamic quorum needs an endpoint of it.
  std::string controller_listener_name = "CONTROLLER";
};

class QuorumController {
 public:
  QuorumController(raft::RaftNode& node, MetadataStore& store, QuorumControllerOptions options);
  ~QuorumController();  // stops the session thread

  admin::v1::CreateTopicsResponse CreateTopics(const admin::v1::CreateTopicsRequest& request);
  admin::v1::DeleteTopicsResponse DeleteTopics(const admin::v1::DeleteTopicsRequest& request);
  admin::v1::CreatePartitionsResponse CreatePartitions(const admin::v1::CreatePartitionsRequest& request);
  admin::v1::DescribeClusterResponse DescribeCluster();
  admin::v1::DescribeTopicsResponse DescribeTopics(const admin::v1::DescribeTopicsRequest& request);
  admin::v1::ElectLeadersResponse ElectLeaders(const admin::v1::ElectLeadersRequest& request);
  // The leader's answer (elsewhere NOT_CONTROLLER naming it): the voters and their
  // replication; local: this controller's own view, whoever leads.
  admin::v1::DescribeQuorumResponse DescribeQuorum(bool local = false);
  admin::v1::AlterConfigsResponse AlterConfigs(const admin::v1::AlterConfigsRequest& request);
  admin::v1::DescribeConfigsResponse DescribeConfigs(const admin::v1::DescribeConfigsRequest& request);
  // Partition reassignments (reassignment.h). The list is the active controller's.
  admin::v1::AlterPartitionReassignmentsResponse AlterPartitionReassignments(
      const admin::v1::AlterPartitionReassignmentsRequest& request);
  admin::v1::ListPartitionReassignmentsResponse ListPartitionReassignments(
      const admin::v1::ListPartitionReassignmentsRequest& request);
  // SCRAM credentials (scram_control.h).
  admin::v1::AlterUserScramCredentialsResponse AlterUserScramCredentials(
      const admin::v1::AlterUserScramCredentialsRequest& request);
  admin::v1::DescribeUserScramCredentialsResponse DescribeUserScramCredentials(
      const admin::v1::DescribeUserScramCredentialsRequest& request);
  // Client quotas (client_quota_control.h).
  admin::v1::AlterClientQuotasResponse AlterClientQuotas(const admin::v1::AlterClientQuotasRequest& request);
  admin::v1::DescribeClientQuotasResponse DescribeClientQuotas(const admin::v1::DescribeClientQuotasRequest& request);
  // Feature levels (feature_control.h): answered once the FeatureLevel records are
  // applied (validate_only: once decided); the refused update's error on the response.
  admin::v1::UpdateFeaturesResponse UpdateFeatures(const admin::v1::UpdateFeaturesRequest& request);
  admin::v1::DescribeFeaturesResponse DescribeFeatures();
  // An operator's UnregisterBroker (PlanUnregisterBroker), answered once applied; the
  // broker's session state here (heartbeat time, DescribeQuorum's observer) goes with it.
  admin::v1::UnregisterBrokerResponse UnregisterBroker(const admin::v1::UnregisterBrokerRequest& request);
  // A dynamic quorum's voters (KIP-853; quorum_controller_voters.cc), one change at a
  // time through this node's Raft core, which must lead: answered with the outcome, or
  // REQUEST_TIMED_OUT when the request's timeout passed first (the change may still
  // happen; a retry answers DUPLICATE_VOTER or VOTER_NOT_FOUND if it did).
  admin::v1::RaftVoterChangeResponse AddRaftVoter(const admin::v1::AddRaftVoterRequest& request);
  admin::v1::RaftVoterChangeResponse RemoveRaftVoter(const admin::v1::RemoveRaftVoterRequest& request);
  admin::v1::RaftVoterChangeResponse UpdateRaftVoter(const admin::v1::UpdateRaftVoterRequest& request);
  // ACLs (acl_control.h); SECURITY_DISABLED without an authorizer.
  admin::v1::CreateAclsResponse CreateAcls(const admin::v1::CreateAclsRequest& request);
  admin::v1::DeleteAclsResponse DeleteAcls(const admin::v1::DeleteAclsRequest& request);
  admin::v1::DescribeAclsResponse DescribeAcls(const admin::v1::DescribeAclsRequest& request);

  controller::v1::BrokerRegistrationResponse RegisterBroker(const controller::v1::BrokerRegistrationRequest& request);
  controller::v1::BrokerHeartbeatResponse BrokerHeartbeat(const controller::v1::BrokerHeartbeatRequest& request);
  controller::v1::AlterPartitionResponse AlterPartition(const controller::v1::AlterPartitionRequest& request);
  // A block of producer ids for the broker, answered once its ProducerIds record is
  // applied (so a later controller never hands out the same ids).
  controller::v1::AllocateProducerIdsResponse AllocateProducerIds(const controller::v1::AllocateProducerIdsRequest& request);
  controller::v1::RemoteLogSegmentUpdateResponse RemoteLogSegmentUpdate(
      const controller::v1::RemoteLogSegmentUpdateRequest& request);
  // DeleteRecords on a partition with remote storage: answered once its
  // RemoteLogStartOffset record is applied.
  controller::v1::RemoteLogStartOffsetUpdateResponse RemoteLogStartOffsetUpdate(
      const controller::v1::RemoteLogStartOffsetUpdateRequest& request);
  // The log dirs a broker moved its replicas to (KIP-858; PlanAssignReplicaToDir): one
  // result per assignment, answered once the directories are applied; a partition named
  // twice is refused (INVALID_REQUEST). A stale broker epoch refuses the whole request.
  controller::v1::AssignReplicasToDirsResponse AssignReplicasToDirs(
      const controller::v1::AssignReplicasToDirsRequest& request);

  // A broker's session stream (ControllerService.BrokerSession) opened: refused with
  // NOT_CONTROLLER, BROKER_ID_NOT_REGISTERED or STALE_BROKER_EPOCH (token 0), or held
  // (its token). The broker's listeners are probed once here: those that accept are the
  // ones whose refusal counts when the stream breaks. `cancel` ends the stream from here.
  struct SessionStreamOpened {
    controller::v1::BrokerSessionResponse response;
    uint64_t token = 0;
  };
  SessionStreamOpened OpenSessionStream(const controller::v1::BrokerSessionRequest& request,
                                        std::function<void()> cancel);
  // The stream of `token` ended. broken: its connection was closed or reset from the
  // broker's side (it ended without the broker's closing message, and not from here). A broken stream
  // that was its broker's latest is followed by probes of its listeners; when they
  // refuse twice in a row and no new stream came, the broker of that epoch is fenced now.
  void SessionStreamEnded(uint64_t token, bool broken);
  // Ends every session stream: this node stops being the active controller, or stops.
  void CancelSessionStreams() { session_streams_.CancelAll(); }
  size_t session_streams() const { return session_streams_.size(); }

 private:
  // The leader's id when this node is not the active controller, else nullopt.
  std::optional<int32_t> NotActive() const;
  // Makes the image hold everything committed before this node's term (a no-op entry
  // through Raft, once per term).
  Outcome CatchUpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // Writes records (in entries of at most max_entry_bytes, never splitting a group) and
  // waits until they are applied.
  Outcome WriteLocked(const std::vector<std::vector<pb::MetadataRecord>>& groups)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  TopicId NewTopicId() ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_);
  // Every write RPC takes the same steps; RunWrite runs them in order. It refuses with
  // NOT_CONTROLLER (naming the leader) when this node is not the active controller, runs
  // `admit` (optional: checks made before waiting for write_mu_), then, holding write_mu_,
  // catches up, lets `plan` decide the records to write (from the image it reads), writes
  // them, and hands the write's outcome to `written` (write_mu_ still held) to answer.
  // An error from admit, the catch-up or plan answers the request as is: nothing written.
  struct Writes;
  struct WriteSteps {
    std::function<Outcome()> admit = nullptr;  // optional
    std::function<Outcome(Writes&)> plan;
    std::function<void(Outcome, const Writes&)> written;
  };
  template <typename Response>
  void RunWrite(Response* response, const WriteSteps& steps);
  // An admin write: RunWrite where plan fills the response's items and the records from
  // the image, and the items whose records were written get the write's error if it fails.
  template <typename Response, typename Items>
  void RunAdminWrite(Response* response, Items* items, const std::function<void(const MetadataImage&, Writes&)>& plan);
  // A write from a broker for itself (a remote tier transition, a remote log start):
  // RunWrite where its current registration is checked (STALE_BROKER_EPOCH) and plan's
  // records are written, the outcome answered with this node's id.
  template <typename Response>
  void RunBrokerWrite(Response* response, BrokerId broker, int64_t broker_epoch,
                      const std::function<Plan(const MetadataImage&)>& plan);
  void SessionLoop();
  // After a broken session stream: whether the broker's process is gone (its listeners
  // refuse connections, twice in a row, and it opened no new stream).
  bool BrokerProcessGone(const BrokerSessionStreams::Stream& stream);
  // The leader imbalance check's elections (PlanLeaderRebalance), written at once.
  void RebalanceLeaders();
  // Fences broker id and moves its leaderships (PlanFenceBroker) when the image still
  // shows the registration of broker_epoch unfenced: a broker that registered again
  // since the caller looked keeps its new registration. why ends the log line.
  void FenceBroker(BrokerId id, int64_t broker_epoch, absl::string_view why) ABSL_LOCKS_EXCLUDED(write_mu_);

  // UpdateFeatures' kraft.version upgrade of a static quorum (Kafka 4.1+): the static
  // voters, at their controller.quorum.voters addresses, written into the log
  // (raft::VoterChange::kUpgrade). nullopt when the request is not one (PlanUpdateFeatures
  // decides it).
  std::optional<admin::v1::UpdateFeaturesResponse> UpgradeKraftVersion(const admin::v1::UpdateFeaturesRequest& request);
  // The common path of the three voter calls: the cluster id and the key checked, then
  // the change through the node.
  admin::v1::RaftVoterChangeResponse ChangeRaftVoter(const std::string& cluster_id, raft::VoterChange change,
                                                     int32_t timeout_ms);
  raft::RaftNode& node_;
  MetadataStore& store_;
  const QuorumControllerOptions options_;

  absl::Mutex write_mu_ ABSL_ACQUIRED_BEFORE(sessions_mu_);  // one decision at a time
  raft::Term caught_up_term_ ABSL_GUARDED_BY(write_mu_) = 0;
  std::mt19937_64 ids_ ABSL_GUARDED_BY(write_mu_);

  // The session thread waits on stopping_.
  absl::Mutex sessions_mu_;
  bool stopping_ ABSL_GUARDED_BY(sessions_mu_) = false;
  // The term the heartbeat times below belong to.
  raft::Term sessions_term_ ABSL_GUARDED_BY(sessions_mu_) = 0;
  std::map<BrokerId, std::chrono::steady_clock::time_point> last_heartbeat_ ABSL_GUARDED_BY(sessions_mu_);
  // The metadata offset each broker's last heartbeat said it applied (DescribeQuorum's
  // observers). Memory only.
  std::map<BrokerId, int64_t> applied_metadata_offset_ ABSL_GUARDED_BY(sessions_mu_);
  // The next leader imbalance check (an interval after becoming the active controller).
  std::chrono::steady_clock::time_point next_leader_rebalance_ ABSL_GUARDED_BY(sessions_mu_);
  // What each broker's last heartbeat said of its tier state machine (partitions it
  // cannot yet build from the remote tier): DescribeTopics shows it. Memory only.
  std::map<BrokerId, std::set<std::string>> tier_state_failing_ ABSL_GUARDED_BY(sessions_mu_);
  std::thread sessions_;
  BrokerSessionStreams session_streams_;
};

}  // namespace strata::controller
