// The Kafka listener over real sockets on 127.0.0.1: ApiVersions v0-v3 answered (and
// v9 per KIP-511), pipelined requests answered in order, and bad input — oversized or
// negative sizes, a truncated header, an unknown api key, an API not served — closes
// only that connection while the server keeps serving others; idle connections close.

#include "broker/network/listener.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "absl/synchronization/mutex.h"
#include "broker/handlers/kafka_apis.h"
#include "client/kafka_connection.h"
#include "proto/kafka/api_versions.h"
#include "proto/kafka/error_code.h"
#include "tests/support/broker_services.h"
#include "tests/support/kafka_test_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

namespace strata::broker {
namespace {

namespace kafka = strata::proto::kafka;
using namespace std::chrono_literals;

using testing::KafkaTestClient;
using Client = KafkaTestClient;

std::unique_ptr<Listener> StartServer(std::chrono::milliseconds idle = 60s) {
  ListenerOptions options;
  options.max_request_bytes = 1 << 20;
  options.idle_timeout = idle;
  // One broker with real, idle services for every server of this test program.
  static testing::TempDir* tmp = new testing::TempDir();
  static testing::BrokerServices* services = new testing::BrokerServices(tmp->path());
  static KafkaApis apis(services->Context());
  auto server = Listener::Start(options, [](const auto& header, auto body, auto respond) {
    apis.Handle(header, body, std::move(respond));
  });
  EXPECT_TRUE(server.ok()) << server.status();
  return std::move(*server);
}

std::string ApiVersionsBody(int16_t version) {
  std::string body;
  kafka::Writer w(&body);
  kafka::WriteApiVersionsRequest({"strata-test", "1.0"}, version, w);
  return body;
}

TEST(Listener, ApiVersionsIsAnsweredInEveryVersionWithItsCorrelationId) {
  auto server = StartServer();
  Client c(server->port());
  ASSERT_TRUE(c.connected());
  constexpr int16_t kMaxVersion = 4;  // v4: v3 with supported feature ranges from 0 (KIP-584)
  for (int16_t version = 0; version <= kMaxVersion; ++version) {
    c.SendRaw(Client::Frame(18, version, 100 + version, ApiVersionsBody(version)));
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value()) << version;
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), 100 + version);  // response header v0, even for v3
    auto response = kafka::ReadApiVersionsResponse(r, version);
    ASSERT_TRUE(response.ok()) << response.status();
    EXPECT_EQ(response->error_code, 0);
    bool found = false;
    for (const auto& k : response->api_keys) found = found || (k.api_key == 18 && k.max_version == kMaxVersion);
    EXPECT_TRUE(found);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(Listener, ATooNewApiVersionsIsAnsweredWithV0AndUnsupportedVersion) {
  auto server = StartServer();
  Client c(server->port());
  c.SendRaw(Client::Frame(18, 9, 7, "whatever a future version carries"));
  auto frame = c.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  kafka::Reader r(*frame);
  EXPECT_EQ(r.Int32("correlation_id"), 7);
  auto response = kafka::ReadApiVersionsResponse(r, 0);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->error_code, static_cast<int16_t>(kafka::ErrorCode::kUnsupportedVersion));
  EXPECT_FALSE(response->api_keys.empty());
}

TEST(Listener, PipelinedRequestsAreAnsweredInOrder) {
  auto server = StartServer();
  Client c(server->port());
  std::string both;
  for (int32_t id = 1; id <= 20; ++id) both += Client::Frame(18, 2, id, ApiVersionsBody(2));
  c.SendRaw(both);
  for (int32_t id = 1; id <= 20; ++id) {
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value());
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), id);
  }
}

TEST(Listener, BadInputClosesOnlyThatConnection) {
  auto server = StartServer();
  struct Case {
    const char* what;
    std::string bytes;
  };
  std::string oversized, negative, truncated;
  kafka::Writer(&oversized).Int32(0x7fffffff);
  kafka::Writer(&negative).Int32(-1);
  kafka::Writer w(&truncated);
  w.Int32(3);
  truncated += "abc";  // a header needs at least 8 bytes
  std::vector<Case> cases = {
      {"oversized size", oversized},
      {"negative size", negative},
      {"truncated header", truncated},
      {"unknown api key", Client::Frame(999, 0, 1, "")},
      {"an API not served yet", Client::Frame(0, 7, 1, "")},
      {"a Metadata version not advertised", Client::Frame(3, 13, 1, "")},
      {"ApiVersions v3 with a truncated body", Client::Frame(18, 3, 1, "\x05")},
  };
  for (const Case& bad : cases) {
    Client c(server->port());
    ASSERT_TRUE(c.connected());
    c.SendRaw(bad.bytes);
    EXPECT_TRUE(c.Closed()) << bad.what;
  }
  EXPECT_EQ(server->connections_closed_on_error(), static_cast<int64_t>(cases.size()));
  // Others are still served.
  Client good(server->port());
  good.SendRaw(Client::Frame(18, 0, 42, ""));
  auto frame = good.ReadFrame();
  ASSERT_TRUE(frame.has_value());
  kafka::Reader r(*frame);
  EXPECT_EQ(r.Int32("correlation_id"), 42);
}

TEST(Listener, AnIdleConnectionIsClosed) {
  auto server = StartServer(/*idle=*/200ms);
  Client c(server->port());
  ASSERT_TRUE(c.connected());
  EXPECT_TRUE(c.Closed());  // read blocks until the server closes it (or 5 s)
}

// network.thread.apis: the APIs named run their handlers on the network thread that read
// the request; the others go to the io pool. With one thread of each, every handler of
// the first kind runs on the one network thread, every other on the one io thread.
TEST(Listener, APIsNamedRunOnTheNetworkThreadAndTheOthersOnTheIoPool) {
  ListenerOptions options;
  options.network_threads = 1;
  options.io_threads = 1;
  options.on_network_thread = [](int16_t api_key) { return api_key == 0; };  // Produce
  absl::Mutex mu;
  std::multimap<int16_t, std::thread::id> ran;  // api key -> the handler's thread
  auto server = Listener::Start(options, [&](const auto& header, auto, auto respond) {
    {
      absl::MutexLock lock(&mu);
      ran.emplace(header.api_key, std::this_thread::get_id());
    }
    ApiResponse response;
    response.body = "answer";
    respond(std::optional<ApiResponse>(std::move(response)));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  Client a((*server)->port()), b((*server)->port());
  int32_t correlation = 1;
  for (Client* c : {&a, &b}) {
    for (int16_t api : {0, 3, 0, 3}) {  // Produce, Metadata
      c->SendRaw(Client::Frame(api, 0, correlation++, ""));
      ASSERT_TRUE(c->ReadFrame().has_value()) << api;  // answered, on either kind of thread
    }
  }
  absl::MutexLock lock(&mu);
  ASSERT_EQ(ran.size(), 8u);
  std::thread::id network = ran.find(0)->second, io = ran.find(3)->second;
  EXPECT_NE(network, io);
  for (const auto& [api, thread] : ran) EXPECT_EQ(thread, api == 0 ? network : io) << api;
}

// A connection that read ahead while a request was in flight is idle once that request
// is answered: its idle timeout still closes it.
TEST(Listener, AConnectionIdleAfterPipelinedRequestsIsClosed) {
  ListenerOptions options;
  options.idle_timeout = 200ms;
  options.on_network_thread = [](int16_t) { return true; };
  auto server = Listener::Start(options, [](const auto&, auto, auto respond) {
    ApiResponse response;
    response.body = "answer";
    respond(std::optional<ApiResponse>(std::move(response)));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  Client c((*server)->port());
  c.SendRaw(Client::Frame(0, 0, 1, ""));
  ASSERT_TRUE(c.ReadFrame().has_value());
  EXPECT_TRUE(c.Closed());  // read blocks until the server closes it (or 5 s)
}

// max.in.flight.requests.per.connection: requests handled on the network thread let the
// connection read and handle the next ones before they are answered (up to the limit),
// and the answers, given in any order, go back in request order. A request handed to
// the io pool stops the reading until it is answered.
TEST(Listener, NetworkThreadRequestsArePipelinedAndAnsweredInRequestOrder) {
  ListenerOptions options;
  options.on_network_thread = [](int16_t api_key) { return api_key == 0; };  // Produce
  options.max_in_flight_requests = 3;
  absl::Mutex mu;
  std::vector<std::pair<int32_t, ApiResponder>> parked;  // correlation id, responder
  std::vector<int16_t> handled;                              // api keys, in the order handled
  auto server = Listener::Start(options, [&](const auto& header, auto, auto respond) {
    absl::MutexLock lock(&mu);
    handled.push_back(header.api_key);
    parked.emplace_back(header.correlation_id, std::move(respond));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  Client c((*server)->port());
  std::string frames;
  for (int32_t id = 1; id <= 5; ++id) frames += Client::Frame(0, 0, id, "");
  c.SendRaw(frames);
  // Three are handled while none is answered; the fourth waits for a slot.
  auto parked_count = [&] {
    absl::MutexLock lock(&mu);
    return parked.size();
  };
  ASSERT_TRUE(testing::WaitUntil([&] { return parked_count() == 3; }, 5s)) << parked_count();
  auto answer = [&](size_t index) {
    absl::MutexLock lock(&mu);
    ApiResponse response;
    response.body = "answer " + std::to_string(parked[index].first);
    parked[index].second(std::optional<ApiResponse>(std::move(response)));
  };
  // Answered last first: nothing goes out until the first is answered.
  answer(2);
  answer(1);
  EXPECT_EQ(parked_count(), 3u);
  answer(0);
  for (int32_t id = 1; id <= 3; ++id) {
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value()) << id;
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), id);
  }
  // Slots freed: the last two are read and handled.
  ASSERT_TRUE(testing::WaitUntil([&] { return parked_count() == 5; }, 5s)) << parked_count();
  answer(4);
  answer(3);
  for (int32_t id = 4; id <= 5; ++id) {
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value()) << id;
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), id);
  }
  // A Metadata request (io pool) stops the reading: the Produce after it is not handled
  // until Metadata is answered.
  c.SendRaw(Client::Frame(3, 0, 6, "") + Client::Frame(0, 0, 7, ""));
  ASSERT_TRUE(testing::WaitUntil([&] { return parked_count() == 6; }, 5s));
  std::this_thread::yield();
  EXPECT_EQ(parked_count(), 6u);
  answer(5);
  ASSERT_TRUE(testing::WaitUntil([&] { return parked_count() == 7; }, 5s));
  answer(6);
  for (int32_t id = 6; id <= 7; ++id) {
    auto frame = c.ReadFrame();
    ASSERT_TRUE(frame.has_value()) << id;
    kafka::Reader r(*frame);
    EXPECT_EQ(r.Int32("correlation_id"), id);
  }
  absl::MutexLock lock(&mu);
  EXPECT_EQ(handled, (std::vector<int16_t>{0, 0, 0, 0, 0, 3, 0}));
}

// A request for the io pool read while earlier ones are unanswered is handled once they
// are answered, when Kafka (one request at a time) would have read it: handled at once,
// its answer would tell what was true then but go out only after theirs (a Metadata
// answer held behind a fetch that waits max.wait.ms names leaders that moved meanwhile).
// A pool request of another connection, read later, is handled before it.
TEST(Listener, APoolRequestReadBehindUnansweredOnesIsHandledOnceTheyAreAnswered) {
  ListenerOptions options;
  options.network_threads = 1;  // A's requests are dispatched before B's is read
  options.io_threads = 1;       // the pool runs handlers in the order they were handed to it
  options.on_network_thread = [](int16_t api_key) { return api_key == 1; };  // Fetch
  RequestMetrics metrics;
  options.metrics = &metrics;
  absl::Mutex mu;
  std::vector<int32_t> handled;  // correlation ids, in the order handled
  ApiResponder parked_fetch;
  auto server = Listener::Start(options, [&](const auto& header, auto, auto respond) {
    absl::MutexLock lock(&mu);
    handled.push_back(header.correlation_id);
    if (header.api_key == 1) {
      parked_fetch = std::move(respond);  // as a fetch waiting for data
      return;
    }
    ApiResponse response;
    response.body = "answer";
    respond(std::optional<ApiResponse>(std::move(response)));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  auto handled_now = [&] {
    absl::MutexLock lock(&mu);
    return handled;
  };
  auto correlation_of = [](const std::optional<std::string>& frame) {
    kafka::Reader r(*frame);
    return r.Int32("correlation_id");
  };
  Client a((*server)->port()), b((*server)->port());
  a.SendRaw(Client::Frame(1, 0, 1, "") + Client::Frame(3, 0, 2, ""));  // Fetch, then Metadata
  // A's Metadata is read (counted as it is dispatched, on the one network thread that
  // reads B's request only after that dispatch).
  ASSERT_TRUE(testing::WaitUntil([&] { return metrics.requests(3, 0) == 1; }, 5s));
  b.SendRaw(Client::Frame(3, 0, 3, ""));
  auto b_answer = b.ReadFrame();
  ASSERT_TRUE(b_answer.has_value());
  EXPECT_EQ(correlation_of(b_answer), 3);
  EXPECT_EQ(handled_now(), (std::vector<int32_t>{1, 3}));  // A's Metadata still waits
  {
    absl::MutexLock lock(&mu);
    ApiResponse response;
    response.body = "records";
    parked_fetch(std::optional<ApiResponse>(std::move(response)));
  }
  for (int32_t id = 1; id <= 2; ++id) {
    auto frame = a.ReadFrame();
    ASSERT_TRUE(frame.has_value()) << id;
    EXPECT_EQ(correlation_of(frame), id);
  }
  EXPECT_EQ(handled_now(), (std::vector<int32_t>{1, 3, 2}));
}

// Each network thread runs its own event loop: a connection's requests are all handled
// on the one thread its loop runs on, and connections are spread over the threads.
TEST(Listener, AConnectionIsServedByOneNetworkThreadAndConnectionsAreSpreadOverThem) {
  ListenerOptions options;
  options.network_threads = 2;
  options.on_network_thread = [](int16_t) { return true; };
  absl::Mutex mu;
  std::map<uint64_t, std::set<std::thread::id>> threads;  // connection id -> handler threads
  auto server = Listener::Start(options, [&](const auto& header, auto, auto respond) {
    {
      absl::MutexLock lock(&mu);
      threads[header.connection_id].insert(std::this_thread::get_id());
    }
    ApiResponse response;
    response.body = "answer";
    respond(std::optional<ApiResponse>(std::move(response)));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(std::make_unique<Client>((*server)->port()));
  int32_t correlation = 1;
  for (int round = 0; round < 5; ++round) {
    for (auto& c : clients) {
      c->SendRaw(Client::Frame(0, 0, correlation++, ""));
      ASSERT_TRUE(c->ReadFrame().has_value());
    }
  }
  absl::MutexLock lock(&mu);
  ASSERT_EQ(threads.size(), 4u);
  std::set<std::thread::id> all;
  for (const auto& [connection, used] : threads) {
    EXPECT_EQ(used.size(), 1u) << "connection " << connection;
    all.insert(used.begin(), used.end());
  }
  EXPECT_EQ(all.size(), 2u);
}

// network.idle.poll.us: threads that poll before they sleep serve requests handled on
// them and answers given from other threads alike, and stop when the server does.
TEST(Listener, PollingNetworkThreadsServeEveryAnswerAndStop) {
  ListenerOptions options;
  options.network_threads = 2;
  options.io_threads = 1;
  options.idle_poll = 50ms;  // far longer than a request takes: the answers come while they poll
  options.on_network_thread = [](int16_t api_key) { return api_key == 0; };  // Produce; others on the pool
  auto server = Listener::Start(options, [](const auto&, auto, auto respond) {
    ApiResponse response;
    response.body = "answer";
    respond(std::optional<ApiResponse>(std::move(response)));
  });
  ASSERT_TRUE(server.ok()) << server.status();
  {
    Client a((*server)->port()), b((*server)->port()), c((*server)->port());
    int32_t correlation = 1;
    for (int round = 0; round < 10; ++round) {
      for (Client* client : {&a, &b, &c}) {
        const int16_t api = round % 2 == 0 ? 0 : 3;  // Produce, Metadata
        client->SendRaw(Client::Frame(api, 0, correlation, ""));
        auto frame = client->ReadFrame();
        ASSERT_TRUE(frame.has_value()) << api;
        kafka::Reader r(*frame);
        EXPECT_EQ(r.Int32("correlation_id"), correlation++);
      }
    }
  }
  // Destroyed while its threads poll: it returns (a loop that missed the stop would spin
  // on and the join would hang).
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    server->reset();
    stopped = true;
  });
  const bool done = testing::WaitUntil([&] { return stopped.load(); }, 10s);
  if (!done) stopper.detach();  // reported below; the process cannot join it
  ASSERT_TRUE(done);
  stopper.join();
}

// A client connection that polls before it blocks (the replica fetcher's, with
// network.idle.poll.us) reads an answer that comes while it polls and one that comes
// after, and a peer that closes ends the polling with the error at once.
TEST(Listener, AClientThatPollsForItsAnswerReadsItOrSeesTheClose) {
  ListenerOptions options;
  options.on_network_thread = [](int16_t) { return true; };
  absl::Mutex mu;
  std::vector<ApiResponder> parked;
  auto server = Listener::Start(options, [&](const auto& header, auto, auto respond) {
    if (header.api_key == 3) {  // Metadata: answered at once
      ApiResponse response;
      response.body = "quick answer";
      respond(std::optional<ApiResponse>(std::move(response)));
      return;
    }
    absl::MutexLock lock(&mu);
    parked.push_back(std::move(respond));  // answered by the test
  });
  ASSERT_TRUE(server.ok()) << server.status();
  auto connection = client::KafkaConnection::Connect("127.0.0.1", (*server)->port(), 30s);
  ASSERT_TRUE(connection.ok()) << connection.status();
  (*connection)->set_receive_poll(std::chrono::microseconds(std::chrono::seconds(30)));
  // Answered while the client polls.
  auto quick = (*connection)->Call(3, 0, "");
  ASSERT_TRUE(quick.ok()) << quick.status();
  EXPECT_EQ(quick->body(), "quick answer");
  // Answered by the test once the request is parked: the client is still polling then
  // (its poll outlasts the test), and reads it when it comes.
  absl::StatusOr<client::KafkaResponse> later = absl::UnknownError("not yet");
  std::atomic<bool> returned{false};
  std::thread caller([&] {
    later = (*connection)->Call(0, 0, "");
    returned = true;
  });
  auto parked_count = [&] {
    absl::MutexLock lock(&mu);
    return parked.size();
  };
  ASSERT_TRUE(testing::WaitUntil([&] { return parked_count() == 1; }, 10s));
  {
    absl::MutexLock lock(&mu);
    ApiResponse response;
    response.body = "late answer";
    parked[0](std::optional<ApiResponse>(std::move(response)));
  }
  ASSERT_TRUE(testing::WaitUntil([&] { return returned.load(); }, 10s));
  caller.join();
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_EQ(later->body(), "late answer");
  // The server goes while the client polls for an answer that never comes: the close ends
  // the poll (well before its 30 s) with an error.
  returned = false;
  std::thread orphan([&] {
    later = (*connection)->Call(0, 0, "");
    returned = true;
  });
  ASSERT_TRUE(testing::WaitUntil([&] { return parked_count() == 2; }, 10s));
  server->reset();
  const bool done = testing::WaitUntil([&] { return returned.load(); }, 10s);
  if (!done) orphan.detach();
  ASSERT_TRUE(done);
  orphan.join();
  EXPECT_FALSE(later.ok());
}

}  // namespace
}  // namespace strata::broker
