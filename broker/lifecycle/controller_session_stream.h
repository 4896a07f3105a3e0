#pragma once
// ControllerSessionStream: the broker's session stream to the active controller
// (proto/controller.proto BrokerSession; controller/README.md, "Session streams"). It
// opens the stream for the broker's current registration once the broker serves, and
// keeps it open: it sends one message and reads until the stream ends. Its only use is
// that it breaks when this process dies, which lets the controller fence the broker at
// once. The stream is closed on purpose only by a closing message that half-closes it
// (WriteLast), which the controller tells apart from a broken connection. When the controller ends it (no
// longer active, or stopping) or refuses it, it opens again at the controller that
// answers now, after a pause that grows to a second.
// Thread-safe.

#include <cstdint>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "broker/lifecycle/controller_client.h"
#include "controller.grpc.pb.h"

namespace strata::broker {

class ControllerSessionStream {
 public:
  ControllerSessionStream(ControllerClient& client, int32_t broker_id);
  ~ControllerSessionStream();  // Close()

  // The registration the stream is for; a new epoch closes the stream of the old one and
  // opens another, -1 closes it.
  void SetEpoch(int64_t broker_epoch);
  // After a call answered by the active controller: a stream still held by another one
  // (one that was cut off and replaced) is cancelled and opened at the active one.
  // Cancelling is safe: were that controller still active, its probe would find this
  // broker's listeners accepting.
  void FollowActive();
  // Half-closes the stream (the controller reads a clean end) and stops. A controller
  // that does not confirm within 2 s gets the stream cancelled.
  void Close();
  // Streams the controller accepted so far, and whether one is open now.
  int64_t accepted() const;
  bool open() const;

 private:
  using Stream = grpc::ClientReaderWriter<controller::v1::BrokerSessionRequest, controller::v1::BrokerSessionResponse>;
  void Run();
  // Ends the current stream, once: sends the closing message and half-closes it when open, cancels it while opening.
  void EndLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  ControllerClient& client_;
  const int32_t broker_id_;
  mutable absl::Mutex mu_;
  int64_t epoch_ ABSL_GUARDED_BY(mu_) = -1;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // The stream being opened or open, with its context and epoch; written under mu_.
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;
  Stream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::shared_ptr<grpc::Channel> channel_ ABSL_GUARDED_BY(mu_);  // the stream's
  int64_t stream_epoch_ ABSL_GUARDED_BY(mu_) = -1;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  bool open_ ABSL_GUARDED_BY(mu_) = false;
  int64_t accepted_ ABSL_GUARDED_BY(mu_) = 0;
  std::thread thread_;
};

}  // namespace strata::broker
