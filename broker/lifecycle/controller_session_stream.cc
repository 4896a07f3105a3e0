#include "broker/lifecycle/controller_session_stream.h"

#include <algorithm>
#include <chrono>

#include "base/logging.h"
#include "proto/kafka/error_code.h"

namespace strata::broker {

namespace cv1 = strata::controller::v1;
using proto::kafka::ErrorCode;

ControllerSessionStream::ControllerSessionStream(ControllerClient& client, int32_t broker_id)
    : client_(client), broker_id_(broker_id) {
  thread_ = std::thread([this] { Run(); });
}

ControllerSessionStream::~ControllerSessionStream() { Close(); }

void ControllerSessionStream::SetEpoch(int64_t broker_epoch) {
  absl::MutexLock lock(&mu_);
  if (epoch_ == broker_epoch) return;
  epoch_ = broker_epoch;
  if (stream_ != nullptr && stream_epoch_ != broker_epoch) EndLocked();
}

void ControllerSessionStream::FollowActive() {
  std::shared_ptr<grpc::Channel> active = client_.ActiveChannel();
  absl::MutexLock lock(&mu_);
  if (context_ != nullptr && channel_ != active) {  // open, or being opened
    spdlog::info("broker {}: the active controller moved: session stream opened there", broker_id_);
    context_->TryCancel();
  }
}

void ControllerSessionStream::EndLocked() {
  if (stream_ == nullptr || ended_) return;
  ended_ = true;
  if (open_) {
    // A clean end, which the controller reads as such: the closing message, half-closed.
    cv1::BrokerSessionRequest closing;
    closing.set_broker_id(broker_id_);
    closing.set_broker_epoch(stream_epoch_);
    closing.set_closing(true);
    stream_->WriteLast(closing, grpc::WriteOptions());
  } else {
    // Still opening: its first write may be waiting for a connection, and nothing may
    // write beside it. Cancelling never waits; a controller that got the request sees a
    // broken stream, probes this broker's listeners and finds them accepting.
    context_->TryCancel();
  }
}

void ControllerSessionStream::Close() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    EndLocked();
    auto ended = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stream_ == nullptr; };
    if (!mu_.AwaitWithTimeout(absl::Condition(&ended), absl::Seconds(2)) && context_ != nullptr) {
      context_->TryCancel();  // a controller that went silent: the read returns now
    }
  }
  if (thread_.joinable()) thread_.join();
}

int64_t ControllerSessionStream::accepted() const {
  absl::MutexLock lock(&mu_);
  return accepted_;
}

bool ControllerSessionStream::open() const {
  absl::MutexLock lock(&mu_);
  return open_;
}

void ControllerSessionStream::Run() {
  auto pause = std::chrono::milliseconds(50);
  while (true) {
    int64_t epoch;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || epoch_ >= 0; };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) return;
      epoch = epoch_;
    }
    grpc::ClientContext context;  // no deadline: the stream lives as long as the registration
    std::shared_ptr<grpc::Channel> channel = client_.ActiveChannel();
    auto stub = cv1::ControllerService::NewStub(channel);
    std::unique_ptr<Stream> stream = stub->BrokerSession(&context);
    cv1::BrokerSessionRequest request;
    request.set_broker_id(broker_id_);
    request.set_broker_epoch(epoch);
    bool wanted;
    {
      absl::MutexLock lock(&mu_);
      context_ = &context;
      stream_ = stream.get();
      channel_ = channel;
      stream_epoch_ = epoch;
      ended_ = false;
      open_ = false;
      wanted = !stopping_ && epoch_ == epoch;
    }
    // Not under mu_: the write may wait for a connection (an unreachable controller), and
    // SetEpoch, FollowActive and Close must not (EndLocked cancels meanwhile).
    bool sent = wanted && stream->Write(request);
    if (!wanted) {
      absl::MutexLock lock(&mu_);
      EndLocked();  // unwanted already: cancelled, so that Finish does not wait on the controller
    }
    cv1::BrokerSessionResponse response;
    bool answered = sent && stream->Read(&response);
    ErrorCode code = static_cast<ErrorCode>(response.error_code());
    if (answered && code == ErrorCode::kNone) {
      {
        absl::MutexLock lock(&mu_);
        if (!ended_) {
          open_ = true;
          ++accepted_;
          if (stopping_ || epoch_ != epoch) EndLocked();  // asked for while it opened
        }
      }
      pause = std::chrono::milliseconds(50);
      while (stream->Read(&response)) {
      }  // nothing more comes: this returns when the stream ends
    } else if (answered && code == ErrorCode::kNotController) {
      client_.NoteActive(response.controller_id());
    } else if (answered) {
      spdlog::warn("broker {}: session stream refused: {}", broker_id_, response.error_message());
    }
    grpc::Status status = stream->Finish();  // half-closes it too, when still needed
    bool on_purpose;
    {
      absl::MutexLock lock(&mu_);
      on_purpose = stopping_ || epoch_ != epoch;
      open_ = false;
      context_ = nullptr;
      stream_ = nullptr;
      channel_ = nullptr;
    }
    if (answered && code == ErrorCode::kNone && !on_purpose) {
      spdlog::info("broker {}: session stream ended by the controller ({}), opening it again", broker_id_,
                   status.ok() ? "closed" : status.error_message());
    }
    if (on_purpose && answered && code == ErrorCode::kNone) continue;  // a new epoch opens at once
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::FromChrono(pause));
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

}  // namespace strata::broker
