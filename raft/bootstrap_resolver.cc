#include "raft/bootstrap_resolver.h"

#include <algorithm>
#include <utility>

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "base/logging.h"
#include "raft.grpc.pb.h"

namespace strata::raft {

namespace pb = ::strata::raft::v1;

struct QuorumResolver::Server {
  std::unique_ptr<pb::RaftTransport::Stub> stub;
};

QuorumResolver::QuorumResolver(std::vector<std::string> servers, std::string listener_name, std::string cluster_id,
                               std::shared_ptr<grpc::ChannelCredentials> credentials)
    : servers_(std::move(servers)), listener_name_(std::move(listener_name)), cluster_id_(std::move(cluster_id)) {
  if (credentials == nullptr) credentials = grpc::InsecureChannelCredentials();
  for (const std::string& server : servers_) {
    stubs_.push_back(std::make_unique<Server>(Server{pb::RaftTransport::NewStub(grpc::CreateChannel(server, credentials))}));
  }
}

QuorumResolver::~QuorumResolver() = default;

ResolvedQuorum QuorumResolver::Resolve(std::chrono::milliseconds timeout) const {
  std::vector<std::pair<std::string, pb::DescribeQuorumResponse>> answers;
  for (size_t i = 0; i < servers_.size(); ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + timeout);
    pb::DescribeQuorumRequest request;
    request.set_cluster_id(cluster_id_);
    pb::DescribeQuorumResponse response;
    grpc::Status status = stubs_[i]->stub->DescribeQuorum(&context, request, &response);
    if (!status.ok()) {
      spdlog::debug("bootstrap server {} did not answer: {}", servers_[i], status.error_message());
      continue;
    }
    answers.emplace_back(servers_[i], std::move(response));
  }
  // The most recent view last, so that it overwrites the others.
  std::stable_sort(answers.begin(), answers.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.second.term(), a.second.commit_index()) <
           std::make_pair(b.second.term(), b.second.commit_index());
  });
  ResolvedQuorum out;
  out.answered = static_cast<int>(answers.size());
  for (const auto& [server, answer] : answers) {
    if (answer.leader_id() != kNoNode || out.leader == kNoNode) out.leader = answer.leader_id();
    if (answer.voters_size() == 0) continue;
    out.voters.clear();
    for (const pb::QuorumVoter& v : answer.voters()) {
      out.voters.push_back(v.id());
      for (const pb::QuorumEndpoint& e : v.endpoints()) {
        if (e.name() == listener_name_) out.addresses[v.id()] = absl::StrCat(e.host(), ":", e.port());
      }
    }
  }
  // Where a server answered is where it is reached, whatever its entry says.
  for (const auto& [server, answer] : answers) out.addresses[answer.node_id()] = server;
  return out;
}

}  // namespace strata::raft
