#pragma once
// ControllerClient: a broker's (or a tool's) way to the active controller. It knows every
// controller's address (and id, where known: a tool's bootstrap list may name addresses
// only), remembers the one that answered last, and follows NOT_CONTROLLER answers to the
// leader they name when its address is known, trying the others otherwise or when one is
// down. In a dynamic quorum (KIP-853) the controllers change: SetRediscover gives it a way
// to ask controller.quorum.bootstrap.servers again when a leader it does not know is
// named, or no controller it knows answers.
// Thread-safe.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/status/statusor.h"
#include "admin.grpc.pb.h"
#include "controller.grpc.pb.h"

namespace strata::broker {

struct ControllerAddress {
  int32_t id = 0;  // 0: unknown
  std::string address;  // host:port
};

// "id@host:port,..." (controller.quorum.voters' form) or "host:port,...".
std::vector<ControllerAddress> ParseControllerAddresses(absl::string_view text);

// The way to the active controller as its callers see it: one call that reaches the
// active controller (or fails by a deadline), and the typed calls built on it. Broker
// code takes this interface, so a test can put a small fake in place of the real
// client (ControllerClient, below). Implementations are thread-safe.
class ControllerChannel {
 public:
  virtual ~ControllerChannel() = default;

  // Calls `call` on controllers until one answers with something other than
  // NOT_CONTROLLER, or `deadline` passes. call makes its stub on the channel, returns
  // the gRPC status and sets *error_code / *controller_id from the response.
  using Call = std::function<grpc::Status(grpc::ClientContext*, const std::shared_ptr<grpc::Channel>&,
                                          int32_t* error_code, int32_t* controller_id)>;
  virtual absl::Status CallActive(const Call& call, std::chrono::milliseconds deadline) = 0;

  // CallActive for one method of a service whose responses carry error_code and
  // controller_id (ControllerService, AdminService): *response is the active
  // controller's. *unanswered (when given): an attempt ended without an answer (the
  // controller may have acted on it: a request that is not idempotent was maybe sent
  // twice).
  template <typename Service, typename Request, typename Response>
  absl::Status CallMethod(grpc::Status (Service::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
                          const Request& request, Response* response, std::chrono::milliseconds deadline,
                          bool* unanswered = nullptr) {
    if (unanswered != nullptr) *unanswered = false;
    return CallActive(
        [&](grpc::ClientContext* context, const std::shared_ptr<grpc::Channel>& channel, int32_t* code, int32_t* leader) {
          auto stub = Service::NewStub(channel);
          *response = Response();
          grpc::Status status = (stub.get()->*method)(context, request, response);
          if (!status.ok() && unanswered != nullptr) *unanswered = true;
          *code = response->error_code();
          *leader = response->controller_id();
          return status;
        },
        deadline);
  }
  template <typename Request, typename Response>
  absl::Status CallController(grpc::Status (controller::v1::ControllerService::Stub::*method)(grpc::ClientContext*,
                                                                                            const Request&, Response*),
                              const Request& request, Response* response, std::chrono::milliseconds deadline) {
    return CallMethod<controller::v1::ControllerService>(method, request, response, deadline);
  }
  template <typename Request, typename Response>
  absl::Status CallAdmin(grpc::Status (admin::v1::AdminService::Stub::*method)(grpc::ClientContext*, const Request&,
                                                                               Response*),
                         const Request& request, Response* response, std::chrono::milliseconds deadline,
                         bool* unanswered = nullptr) {
    return CallMethod<admin::v1::AdminService>(method, request, response, deadline, unanswered);
  }
};

// The gRPC client of the controller quorum.
class ControllerClient final : public ControllerChannel {
 public:
  // credentials: TLS toward the controllers (security/grpc_tls.h; null: plaintext).
  explicit ControllerClient(std::vector<ControllerAddress> controllers,
                            std::chrono::milliseconds call_timeout = std::chrono::seconds(5),
                            std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);
  // controllers: node id -> host:port (controller.quorum.voters).
  explicit ControllerClient(const std::map<int32_t, std::string>& controllers,
                            std::chrono::milliseconds call_timeout = std::chrono::seconds(5),
                            std::shared_ptr<grpc::ChannelCredentials> credentials = nullptr);

  absl::Status CallActive(const Call& call, std::chrono::milliseconds deadline) override;

  // The channel to the controller that answered last as the active one (for a stream
  // that CallActive's retries do not fit: ControllerSessionStream).
  std::shared_ptr<grpc::Channel> ActiveChannel();
  // A controller said which one is active (NOT_CONTROLLER's controller id): the next
  // call starts there, when its address is known.
  void NoteActive(int32_t controller_id);
  // Replaces the controllers (not empty): a dynamic quorum's voters changed.
  void SetControllers(std::vector<ControllerAddress> controllers);
  // Called (on a caller's thread, at most once a round) when a named leader is unknown or
  // no controller answered: the controllers as found again, or empty to keep the list.
  void SetRediscover(std::function<std::vector<ControllerAddress>()> rediscover);

 private:
  std::shared_ptr<grpc::Channel> Channel(const std::string& address);
  // Asks rediscover_ (when set) and takes its answer; whether the list changed.
  bool Rediscover();

  const std::chrono::milliseconds call_timeout_;
  const std::shared_ptr<grpc::ChannelCredentials> credentials_;
  absl::Mutex mu_;
  std::vector<ControllerAddress> controllers_ ABSL_GUARDED_BY(mu_);
  std::function<std::vector<ControllerAddress>()> rediscover_ ABSL_GUARDED_BY(mu_);
  // By address.
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_ ABSL_GUARDED_BY(mu_);
  ControllerAddress last_active_ ABSL_GUARDED_BY(mu_);
};

}  // namespace strata::broker
