// controller_proposals_bench: proposals/s of three real strata-server controller
// processes (127.0.0.1, free ports, temp dirs; Kafka's default snapshot interval) with
// 1, 16 and 64 clients in flight, ~110-byte metadata entries each one proposal at a time,
// next to the disk's fdatasync rate measured just before. Prints figures only; a plain
// program run by hand (not a ctest test). Every process is killed at the end.
// Usage: controller_proposals_bench [--seconds N]

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>

#include "CLI/CLI.hpp"
#include "tests/support/controller_processes.h"
#include "tests/support/temp_dir.h"

namespace strata::raft {
namespace {

using Clock = std::chrono::steady_clock;

// The baseline for the figures printed, on the same disk in the same run: 128-byte
// appends each followed by fdatasync, per second (a commit needs one on the leader
// and one on a follower).
double FdatasyncPerSecond(const std::string& dir) {
  std::string path = dir + "/fdatasync-baseline";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string block(128, 'b');
  int64_t n = 0;
  auto t0 = Clock::now();
  while (Clock::now() - t0 < 1s) {
    if (write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size()) || fdatasync(fd) != 0) break;
    ++n;
  }
  double rate = static_cast<double>(n) / std::chrono::duration<double>(Clock::now() - t0).count();
  close(fd);
  unlink(path.c_str());
  return rate;
}

int Run(int seconds) {
  testing::TempDir scratch;
  std::cout << "baseline_fdatasync_per_s(128-byte appends, same disk)=" << FdatasyncPerSecond(scratch.path())
            << std::endl;
  Controllers c({}, /*snapshot_bytes=*/20 << 20);
  if (c.WaitForLeader() == 0) {
    std::cerr << "no controller became leader" << std::endl;
    return 1;
  }
  for (int clients : {1, 16, 64}) {
    ClientProposals run = ProposeFromClients(c, clients, std::chrono::seconds(seconds));
    std::cout << "controller_processes_proposals_per_s clients=" << clients << " " << run.per_second
              << " (" << run.acknowledged.size() << " acknowledged in " << seconds << " s)" << std::endl;
  }
  return 0;
}

}  // namespace
}  // namespace strata::raft

int main(int argc, char** argv) {
  CLI::App app{"proposals/s of three strata-server controllers"};
  int seconds = 2;
  app.add_option("--seconds", seconds, "how long each client count proposes")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  return strata::raft::Run(seconds);
}
