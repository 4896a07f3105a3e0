#include "server/metrics_listener.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace strata::server {
namespace {

// The host part of "host:port", "[v6]:port" or "port"; loopback for a wildcard.
std::string ConnectHost(const std::string& address) {
  size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? "" : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "0.0.0.0") return "127.0.0.1";
  if (host == "::") return "::1";
  return host;
}

// One connection to host:port, closed at once (errors ignored: the listener may be gone).
void Knock(const addrinfo* address) {
  int fd = socket(address->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return;
  (void)connect(fd, address->ai_addr, address->ai_addrlen);
  close(fd);
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsListener>> MetricsListener::Start(const std::string& address) {
  try {
    auto exposer = std::make_unique<prometheus::Exposer>(address);
    return std::unique_ptr<MetricsListener>(new MetricsListener(ConnectHost(address), std::move(exposer)));
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("cannot serve metrics on ", address, ": ", e.what()));
  }
}

MetricsListener::MetricsListener(std::string host, std::unique_ptr<prometheus::Exposer> exposer)
    : host_(std::move(host)), exposer_(std::move(exposer)) {}

MetricsListener::~MetricsListener() { Stop(); }

void MetricsListener::Register(const std::shared_ptr<prometheus::Collectable>& collectable) {
  exposer_->RegisterCollectable(collectable);
}

std::vector<int> MetricsListener::ports() const { return exposer_ ? exposer_->GetListeningPorts() : std::vector<int>{}; }

void MetricsListener::Stop() {
  if (exposer_ == nullptr) return;
  std::vector<addrinfo*> targets;
  for (int port : exposer_->GetListeningPorts()) {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (getaddrinfo(host_.c_str(), std::to_string(port).c_str(), &hints, &found) == 0) targets.push_back(found);
  }
  std::atomic<bool> stopped{false};
  std::thread knocker([&] {
    while (!stopped.load()) {
      for (const addrinfo* t : targets) Knock(t);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // pacing, until the stop returns
    }
  });
  exposer_.reset();  // mg_stop: sets the stop flag, then waits for civetweb's threads
  stopped = true;
  knocker.join();
  for (addrinfo* t : targets) freeaddrinfo(t);
}

}  // namespace strata::server
