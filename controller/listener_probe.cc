#include "controller/listener_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace strata::controller {

const char* ProbeResultName(ProbeResult r) {
  switch (r) {
    case ProbeResult::kAccepted:
      return "accepted";
    case ProbeResult::kRefused:
      return "refused";
    case ProbeResult::kNoAnswer:
      return "no answer";
  }
  return "?";
}

std::vector<ProbeTarget> ResolveProbeTargets(const std::string& host, int32_t port) {
  std::vector<ProbeTarget> out;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  if (getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0) return out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_addrlen > sizeof(sockaddr_storage)) continue;
    ProbeTarget t;
    t.endpoint = absl::StrCat(host, ":", port);
    std::memcpy(&t.address, a->ai_addr, a->ai_addrlen);
    t.length = a->ai_addrlen;
    out.push_back(t);
  }
  freeaddrinfo(found);
  return out;
}

ProbeResult Probe(const ProbeTarget& target, std::chrono::milliseconds timeout) {
  int fd = socket(target.address.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return ProbeResult::kNoAnswer;
  auto classify = [](int error) {
    if (error == 0) return ProbeResult::kAccepted;
    return error == ECONNREFUSED ? ProbeResult::kRefused : ProbeResult::kNoAnswer;
  };
  ProbeResult result;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&target.address), target.length) == 0) {
    result = ProbeResult::kAccepted;
  } else if (errno != EINPROGRESS) {
    result = classify(errno);
  } else {
    pollfd p{fd, POLLOUT, 0};
    int n;
    do {
      n = poll(&p, 1, static_cast<int>(timeout.count()));
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      result = ProbeResult::kNoAnswer;  // not answered in time
    } else {
      int error = 0;
      socklen_t len = sizeof(error);
      result = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 ? classify(error) : ProbeResult::kNoAnswer;
    }
  }
  close(fd);
  return result;
}

}  // namespace strata::controller
