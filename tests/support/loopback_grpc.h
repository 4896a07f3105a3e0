#pragma once
// A gRPC server on a free 127.0.0.1 port serving one (fake) service, and a
// ControllerClient pointed at it, for tests of what a broker sends its controller.
// Not thread-safe to set up; the server and client are.

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "broker/lifecycle/controller_client.h"

namespace strata::testing {

struct LoopbackController {
  std::unique_ptr<grpc::Server> server;  // nullptr when it could not start
  std::unique_ptr<broker::ControllerClient> client;
};

inline LoopbackController StartLoopbackController(grpc::Service* service) {
  LoopbackController out;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service);
  out.server = builder.BuildAndStart();
  if (out.server == nullptr || port == 0) return LoopbackController{};
  out.client = std::make_unique<broker::ControllerClient>(
      std::vector<broker::ControllerAddress>{{1, "127.0.0.1:" + std::to_string(port)}});
  return out;
}

}  // namespace strata::testing
