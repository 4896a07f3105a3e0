#pragma once
// A test fixture for the broker's forwarding handlers: a fake AdminService (Fake) on a
// loopback gRPC port as the active controller, and real broker services whose
// KafkaApisContext (context_) forwards to it. Customize sets the broker's options.
// Not thread-safe to set up.

#include <gtest/gtest.h>

#include <memory>

#include "broker/handlers/request_context.h"
#include "tests/support/broker_services.h"
#include "tests/support/loopback_grpc.h"
#include "tests/support/temp_dir.h"

namespace strata::testing {

template <typename Fake>
class ForwardingFixture : public ::testing::Test {
 protected:
  virtual void Customize(BrokerServicesOptions&) {}
  void SetUp() override {
    controller_ = StartLoopbackController(&fake_);
    ASSERT_NE(controller_.server, nullptr);
    BrokerServicesOptions options;
    Customize(options);
    options.controller = controller_.client.get();
    services_ = std::make_unique<BrokerServices>(tmp_.path(), options);
    context_ = std::make_unique<broker::KafkaApisContext>(services_->Context());
  }
  void TearDown() override {
    context_.reset();
    services_.reset();
    controller_.server->Shutdown();
  }

  Fake fake_;
  LoopbackController controller_;
  TempDir tmp_;
  std::unique_ptr<BrokerServices> services_;
  std::unique_ptr<broker::KafkaApisContext> context_;
};

}  // namespace strata::testing
