#include "tests/support/free_port.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <string>

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

// tools/strata-cluster's reservations: a file per port, made with O_EXCL, so that no two
// processes (tests, clusters) running at once pick the same port; an hour old, it lapses.
constexpr char kReservations[] = "/tmp/strata-ports";
constexpr time_t kReservationLapsesAfterS = 3600;

bool Reserve(int port) {
  const std::string path = std::string(kReservations) + "/" + std::to_string(port);
  int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
  if (fd >= 0) {
    close(fd);
    return true;
  }
  struct stat st {};
  if (errno == EEXIST && stat(path.c_str(), &st) == 0 && time(nullptr) - st.st_mtime > kReservationLapsesAfterS) {
    unlink(path.c_str());  // lapsed: free for a later pick
  }
  return false;
}

}  // namespace

int FreePort() {
  static absl::Mutex mu;
  static std::set<int> taken;
  static std::mt19937 random(std::random_device{}());
  absl::MutexLock lock(&mu);
  mkdir(kReservations, 0777);  // EEXIST is fine
  chmod(kReservations, 0777);
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  auto [lo, hi] = ephemeral_low > 12000 ? std::pair{10000, ephemeral_low - 1} : std::pair{ephemeral_low, 65535};
  std::uniform_int_distribution<int> pick(lo, hi);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int port = pick(random);
    if (taken.contains(port) || !Reserve(port) || !CanBind(port)) continue;
    taken.insert(port);
    return port;
  }
  ABSL_CHECK(false) << "no free port in [" << lo << ", " << hi << "]";
  return 0;
}

}  // namespace strata::testing
