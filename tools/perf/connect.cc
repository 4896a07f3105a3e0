// strata-perf connect: the time to open a connection ready for requests, as a client
// opens one: TCP, TLS and SASL when the client config says so, then ApiVersions.
// Comparing the same run's protocols gives the cost of each layer (a SCRAM handshake is
// SASL_SSL with SCRAM against SSL).

#include <chrono>
#include <vector>

#include "absl/strings/str_split.h"
#include "tools/perf/kafka_cluster.h"
#include "tools/perf/latency.h"
#include "tools/perf/perf_tool.h"

namespace strata::tools::perf {

int RunConnect(const ConnectOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<std::string> servers = absl::StrSplit(options.bootstrap_servers, ',', absl::SkipWhitespace());
  if (servers.empty()) {
    err << "strata-perf: --bootstrap-server names no broker\n";
    return kExitUsage;
  }
  std::string host;
  int port = 0;
  if (absl::Status s = ParseHostPort(servers.front(), &host, &port); !s.ok()) {
    err << "strata-perf: " << s.message() << "\n";
    return kExitUsage;
  }
  const std::chrono::milliseconds timeout(options.timeout_ms);
  std::vector<int64_t> nanos;
  nanos.reserve(static_cast<size_t>(options.num_connections));
  const auto began = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < options.num_connections; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto broker = ConnectBroker(host, port, timeout, options.security);
    const auto t1 = std::chrono::steady_clock::now();
    if (!broker.ok()) {
      err << "strata-perf: connection " << i << " to " << servers.front() << ": " << broker.status().message() << "\n";
      return kExitFailed;
    }
    nanos.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  LatencySummary latency = Summarize(nanos);
  if (options.json) {
    nlohmann::json j = {{"connections", options.num_connections},
                        {"security_protocol", options.security.protocol},
                        {"sasl_mechanism", options.security.sasl() ? options.security.sasl_mechanism : ""},
                        {"elapsed_s", seconds},
                        {"connect_latency", LatencyJson(latency)}};
    out << j.dump() << "\n";
  } else {
    out << options.num_connections << " connections (" << options.security.protocol
        << (options.security.sasl() ? " " + options.security.sasl_mechanism : "") << ") in " << seconds << " s; "
        << FormatLatency(latency, "connections") << "\n";
  }
  return kExitOk;
}

}  // namespace strata::tools::perf
