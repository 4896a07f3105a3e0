#pragma once
// What the Raft transport's Propose RPC was (raw bytes to commit), called by name on a
// channel: the tests check that nothing serves it any more (UNIMPLEMENTED) and that
// nothing is committed. Not thread-safe (one call).

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"

namespace strata::testing {

// The status of /strata.raft.v1.RaftTransport/Propose with a ProposeRequest{data: "bad"}.
inline grpc::Status CallRawPropose(const std::shared_ptr<grpc::Channel>& channel) {
  grpc::GenericStub generic(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  std::string data = "\x0a\x03" "bad";
  grpc::Slice slice(data);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  absl::Mutex mu;
  bool done = false;
  grpc::Status status;
  generic.UnaryCall(&context, "/strata.raft.v1.RaftTransport/Propose", grpc::StubOptions(), &request, &response,
                    [&](grpc::Status s) {
                      absl::MutexLock lock(&mu);
                      status = std::move(s);
                      done = true;
                    });
  absl::MutexLock lock(&mu);
  mu.Await(absl::Condition(&done));
  return status;
}

}  // namespace strata::testing
