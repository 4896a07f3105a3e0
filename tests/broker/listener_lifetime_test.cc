// A responder that outlives its Listener (a fetch parked in a purgatory that is
// emptied after the listener stopped, as the broker role stops them) can be called and
// destroyed safely: it answers nothing and touches nothing of the stopped server. Labelled
// unit so that the ASan phase runs it: without the fix, destroying such a responder used
// the destroyed io_context (heap-use-after-free).

#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "absl/synchronization/mutex.h"
#include "broker/network/listener.h"
#include "proto/kafka/api.h"
#include "tests/support/kafka_test_client.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

using namespace std::chrono_literals;

TEST(ListenerLifetime, AResponderKeptPastTheServerIsSafeToCallAndToDestroy) {
  absl::Mutex mu;
  std::optional<ApiResponder> kept;
  auto server = Listener::Start(ListenerOptions{}, [&](const auto&, auto, ApiResponder respond) {
    absl::MutexLock lock(&mu);
    kept = std::move(respond);  // answered never: as a fetch waiting in a purgatory
  });
  ASSERT_TRUE(server.ok()) << server.status();
  testing::KafkaTestClient client((*server)->port());
  ASSERT_TRUE(client.connected());
  client.SendRaw(testing::KafkaTestClient::Frame(static_cast<int16_t>(proto::kafka::ApiKey::kApiVersions), 0, 7, ""));
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        absl::MutexLock lock(&mu);
        return kept.has_value();
      },
      10s));
  server->reset();  // the listener stops: its io_context and strands are gone
  absl::MutexLock lock(&mu);
  (*kept)(std::optional<ApiResponse>(ApiResponse{}));  // dropped: nobody to answer
  kept.reset();                                            // and destroyed safely
}

}  // namespace
}  // namespace strata::broker
