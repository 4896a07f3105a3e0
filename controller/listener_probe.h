#pragma once
// ListenerProbe: is a broker's process still there? Asked by opening a TCP connection to
// one of its listeners and closing it at once (nothing is sent). Only a refusal
// (ECONNREFUSED: the host answered, and nothing listens on the port) says the process
// is gone; a connection that is not answered in time, or any other error (a host or
// route that is unreachable, a blackhole route), says nothing, since a network partition
// looks like that too.

#include <sys/socket.h>

#include <chrono>
#include <string>
#include <vector>

#include "metadata.pb.h"

namespace strata::controller {

enum class ProbeResult {
  kAccepted,  // something listens there
  kRefused,   // the host says nothing listens on the port
  kNoAnswer,  // no answer in time, or an error that says nothing of the process
};

const char* ProbeResultName(ProbeResult r);

// One resolved address of a listener.
struct ProbeTarget {
  std::string endpoint;  // host:port, for the logs
  sockaddr_storage address{};
  socklen_t length = 0;
};

// The addresses of host:port (every one the resolver gives; none when it fails).
std::vector<ProbeTarget> ResolveProbeTargets(const std::string& host, int32_t port);

ProbeResult Probe(const ProbeTarget& target, std::chrono::milliseconds timeout);

}  // namespace strata::controller
