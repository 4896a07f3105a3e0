#include "raft/raft_node.h"

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"

namespace strata::raft {

absl::StatusOr<std::unique_ptr<RaftNode>> RaftNode::Start(RaftNodeOptions options) {
  ABSL_CHECK(options.transport != nullptr);
  std::unique_ptr<RaftNode> node(new RaftNode(std::move(options)));
  STRATA_ASSIGN_OR_RETURN(node->storage_, RaftStorage::Open(*node->options_.ops, node->options_.metadata_log_dir));
  STRATA_ASSIGN_OR_RETURN(auto entries, node->storage_->ReadEntries());
  node->raft_ = std::make_unique<Raft>(node->options_.config, node->storage_->hard_state(), std::move(entries));
  node->thread_ = std::thread([n = node.get()] { n->Run(); });
  return node;
}

RaftNode::~RaftNode() { Stop(); }

void RaftNode::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  MarkStoppedLocked("node stopped");
  progress_.notify_all();
}

void RaftNode::MarkStoppedLocked(absl::string_view why) {
  status_.stopped = true;
  status_.role = Role::kFollower;  // it takes no part any more
  status_.leader = kNoNode;
  for (auto& [index, p] : pending_) {
    p->done = true;
    p->result = absl::UnavailableError(why);
  }
  pending_.clear();
}

absl::Status RaftNode::Close() {
  Stop();
  if (!storage_) return absl::OkStatus();
  absl::Status s = storage_->Close();
  storage_.reset();
  return s;
}

void RaftNode::Receive(Message message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || inbox_.size() >= 100'000) return;  // bounded: drop, Raft retries
    inbox_.push_back(std::move(message));
  }
  wake_.notify_one();
}

absl::StatusOr<Index> RaftNode::Propose(std::string data, std::chrono::milliseconds timeout) {
  auto proposal = std::make_shared<Proposal>();
  proposal->data = std::move(data);
  std::unique_lock<std::mutex> lock(mu_);
  if (stopping_ || status_.stopped) return absl::UnavailableError("node stopped");
  proposals_.push_back(proposal);
  wake_.notify_one();
  if (!progress_.wait_for(lock, timeout, [&] { return proposal->done; })) {
    return absl::DeadlineExceededError(absl::StrCat("proposal not applied within ", timeout.count(), " ms"));
  }
  if (!proposal->result.ok()) return proposal->result;
  return proposal->index;
}

RaftNodeStatus RaftNode::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void RaftNode::Run() {
  auto next_tick = std::chrono::steady_clock::now() + options_.tick_interval;
  while (true) {
    std::deque<Message> messages;
    std::deque<std::shared_ptr<Proposal>> proposals;
    {
      std::unique_lock<std::mutex> lock(mu_);
      wake_.wait_until(lock, next_tick, [&] { return stopping_ || !inbox_.empty() || !proposals_.empty(); });
      if (stopping_) return;
      messages.swap(inbox_);
      proposals.swap(proposals_);
    }
    for (const Message& m : messages) raft_->Step(m);
    for (auto& p : proposals) {
      absl::Status s = raft_->Propose(p->data);
      std::lock_guard<std::mutex> lock(mu_);
      if (!s.ok()) {
        p->done = true;
        p->result = s;
      } else {
        p->index = raft_->last_index();
        p->term = raft_->term();
        pending_[p->index] = p;
      }
    }
    if (std::chrono::steady_clock::now() >= next_tick) {
      raft_->Tick();
      next_tick += options_.tick_interval;
      if (next_tick < std::chrono::steady_clock::now()) next_tick = std::chrono::steady_clock::now() + options_.tick_interval;
    }
    if (!HandleReady()) return;
    progress_.notify_all();
  }
}

bool RaftNode::HandleReady() {
  while (raft_->HasReady()) {
    Ready rd = raft_->GetReady();
    absl::Status saved = storage_->Save(rd);
    if (!saved.ok()) {
      spdlog::error("node {}: metadata log I/O error, stopping: {}", options_.config.id, saved.ToString());
      {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        MarkStoppedLocked("node stopped on a metadata log I/O error");
      }
      progress_.notify_all();
      if (options_.on_fatal) options_.on_fatal(saved);
      return false;
    }
    for (const Message& m : rd.messages) options_.transport->Send(m);
    for (const Entry& e : rd.committed_entries) {
      if (options_.apply) options_.apply(e);
    }
    raft_->Advance(rd);
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : rd.committed_entries) {
      auto it = pending_.find(e.index);
      if (it == pending_.end()) continue;
      it->second->done = true;
      if (e.term != it->second->term) {
        it->second->result = absl::UnavailableError("the proposal was replaced by a new leader's entry; retry");
      }
      pending_.erase(it);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (raft_->leader() != status_.leader || raft_->term() != status_.term) {
    spdlog::info("node {}: term {}, leader {} ({})", options_.config.id, raft_->term(), raft_->leader(),
                 RoleName(raft_->role()));
  }
  status_.leader = raft_->leader();
  status_.term = raft_->term();
  status_.role = raft_->role();
  status_.commit = raft_->commit_index();
  status_.applied = raft_->applied_index();
  status_.elections = raft_->elections_started();
  return true;
}

}  // namespace strata::raft
