#include "tests/support/free_port.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <set>

#include "absl/synchronization/mutex.h"
#include "base/check.h"

namespace strata::testing {
namespace {

bool CanBind(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ABSL_CHECK_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool bound = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return bound;
}

}  // namespace

int FreePort() {
  static absl::Mutex mu;
  static std::set<int> taken;
  static std::mt19937 random(std::random_device{}());
  absl::MutexLock lock(&mu);
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  auto [lo, hi] = ephemeral_low > 12000 ? std::pair{10000, ephemeral_low - 1} : std::pair{ephemeral_low, 65535};
  std::uniform_int_distribution<int> pick(lo, hi);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int port = pick(random);
    if (taken.contains(port) || !CanBind(port)) continue;
    taken.insert(port);
    return port;
  }
  ABSL_CHECK(false) << "no free port in [" << lo << ", " << hi << "]";
  return 0;
}

}  // namespace strata::testing
