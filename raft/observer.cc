#include "raft/observer.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "base/check.h"
#include "base/logging.h"
#include "base/status_macros.h"
#include "raft.grpc.pb.h"
#include "raft/snapshot_transfer.h"

namespace strata::raft {

namespace pb = strata::raft::v1;

absl::StatusOr<std::unique_ptr<RaftObserver>> RaftObserver::Start(RaftObserverOptions options) {
  ABSL_CHECK(options.state_machine != nullptr);
  ABSL_CHECK(!options.voters.empty());
  std::unique_ptr<RaftObserver> observer(new RaftObserver(std::move(options)));
  STRATA_ASSIGN_OR_RETURN(observer->snapshots_,
                          SnapshotStore::Open(*storage::FileOps::Default(),
                                              storage::JoinPath(observer->options_.dir, kSnapshotsDirName)));
  observer->applied_ = observer->options_.applied;
  observer->thread_ = std::thread([o = observer.get()] { o->Run(); });
  return observer;
}

RaftObserver::~RaftObserver() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (active_context_) static_cast<grpc::ClientContext*>(active_context_.get())->TryCancel();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Index RaftObserver::applied() const {
  std::lock_guard<std::mutex> lock(mu_);
  return applied_;
}

Index RaftObserver::commit_seen() const {
  std::lock_guard<std::mutex> lock(mu_);
  return commit_seen_;
}

bool RaftObserver::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

int64_t RaftObserver::snapshots_restored() const {
  std::lock_guard<std::mutex> lock(mu_);
  return snapshots_restored_;
}

bool RaftObserver::WaitForApplied(Index index, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return changed_.wait_for(lock, timeout, [&] { return applied_ >= index; });
}

void RaftObserver::Run() {
  size_t next_voter = 0;
  while (true) {
    const std::string& address = options_.voters[next_voter++ % options_.voters.size()];
    bool fatal = false;
    absl::Status ended = Follow(address, &fatal);
    if (fatal) {
      spdlog::error("observer: metadata state failed, stopping: {}", ended.ToString());
      {
        std::lock_guard<std::mutex> lock(mu_);
        failed_ = true;
      }
      changed_.notify_all();
      if (options_.on_fatal) options_.on_fatal(ended);
      return;
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) return;
    spdlog::debug("observer: stream from {} ended: {}", address, ended.ToString());
    changed_.wait_for(lock, options_.retry_backoff, [&] { return stopping_; });
    if (stopping_) return;
  }
}

absl::Status RaftObserver::Follow(const std::string& address, bool* fatal) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 50);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 500);
  auto stub = pb::RaftTransport::NewStub(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
  auto context = std::make_shared<grpc::ClientContext>();
  pb::ObserveRequest request;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return absl::CancelledError("stopping");
    active_context_ = context;
    request.set_from_index(applied_ + 1);
  }
  auto reader = stub->Observe(context.get(), request);
  std::unique_ptr<SnapshotReceiver> receiver;
  pb::ObserveResponse response;
  absl::Status result = absl::OkStatus();
  while (result.ok() && reader->Read(&response)) {
    if (response.has_snapshot_chunk()) {
      if (!receiver) receiver = std::make_unique<SnapshotReceiver>(*snapshots_);
      result = receiver->Accept(response.snapshot_chunk());
      if (result.ok() && receiver->sealed()) {
        SnapshotMeta meta = receiver->meta();
        result = options_.state_machine->RestoreSnapshot(*storage::FileOps::Default(), snapshots_->PathOf(meta), meta);
        *fatal = !result.ok();
        receiver.reset();
        if (result.ok()) {
          std::lock_guard<std::mutex> lock(mu_);
          applied_ = meta.index;
          ++snapshots_restored_;
        }
        changed_.notify_all();
      }
      continue;
    }
    for (const pb::LogEntry& e : response.entries()) {
      Index applied = this->applied();
      if (e.index() <= applied) continue;  // already here
      if (e.index() != applied + 1) {
        result = absl::DataLossError(absl::StrCat("observer: entry ", e.index(), " follows ", applied));
        break;
      }
      result = options_.state_machine->Apply(Entry{e.term(), e.index(), e.data()});
      if (!result.ok()) {
        *fatal = true;
        break;
      }
      std::lock_guard<std::mutex> lock(mu_);
      applied_ = e.index();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      commit_seen_ = std::max(commit_seen_, response.commit_index());
    }
    changed_.notify_all();
  }
  if (!result.ok()) context->TryCancel();
  grpc::Status status = reader->Finish();
  {
    std::lock_guard<std::mutex> lock(mu_);
    active_context_.reset();
  }
  if (!result.ok()) return result;
  return absl::UnavailableError(absl::StrCat(address, ": ", status.error_message()));
}

}  // namespace strata::raft
