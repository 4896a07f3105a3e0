// Tests of libstrata_fault_preload.so in the process it is preloaded into. Run by
// run_fault_preload_test.sh, which sets LD_PRELOAD, and STRATA_FAULT_RULES and
// STRATA_FAULT_LOG to a fresh directory; every test arms rules by renaming a file onto
// STRATA_FAULT_RULES and waits (with a deadline) until a call it should fault fails.

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/temp_dir.h"
#include "tests/support/wait.h"

extern char** environ;

namespace strata::testing {
namespace {

using std::chrono::seconds;
constexpr auto kDeadline = seconds(10);

// The byte at `offset` of every file the tests create, so a read shows where it read.
char PatternByte(uint64_t offset) { return static_cast<char>(offset % 251); }

std::string Pattern(uint64_t offset, size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i) bytes[i] = PatternByte(offset + i);
  return bytes;
}

// Whether `bytes` are the pattern bytes of [offset, offset + n); says briefly where not.
::testing::AssertionResult IsPattern(const std::string& bytes, uint64_t offset, size_t n) {
  if (bytes.size() != n) return ::testing::AssertionFailure() << "got " << bytes.size() << " bytes, expected " << n;
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] != PatternByte(offset + i)) {
      return ::testing::AssertionFailure() << "byte " << i << " is not the file's byte at " << offset + i;
    }
  }
  return ::testing::AssertionSuccess();
}

// Whether pread returns the file's bytes of [offset, offset + n).
::testing::AssertionResult PreadMatches(int fd, uint64_t offset, size_t n) {
  std::string bytes(n, '\0');
  ssize_t r = pread(fd, bytes.data(), n, static_cast<off_t>(offset));
  if (r < 0) return ::testing::AssertionFailure() << "pread at " << offset << " failed: " << strerror(errno);
  bytes.resize(static_cast<size_t>(r));
  return IsPattern(bytes, offset, n) << " (pread at " << offset << ")";
}

uint64_t FiredCount() {
  using Fn = uint64_t (*)();
  auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "strata_fault_preload_fired_count"));
  return fn == nullptr ? 0 : fn();
}

// Reads a whole file with read(2) (so through the library; its own files are exempt).
std::string ReadWhole(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
  close(fd);
  return text;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

size_t CountOccurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

// Writes `bytes` to `path` without going through the library's rules (no rule is armed
// for the test's own set-up files, and a write here that failed would fail the test).
void WriteFile(const std::string& path, const std::string& bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(pwrite(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size())) << path;
  close(fd);
}

class FaultPreloadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(dlsym(RTLD_DEFAULT, "strata_fault_preload_fired_count"), nullptr)
        << "libstrata_fault_preload.so is not loaded: run this through run_fault_preload_test.sh";
    const char* rules = std::getenv("STRATA_FAULT_RULES");
    const char* log = std::getenv("STRATA_FAULT_LOG");
    ASSERT_TRUE(rules != nullptr && log != nullptr) << "STRATA_FAULT_RULES and STRATA_FAULT_LOG must be set";
    rules_path_ = rules;
    log_path_ = log;
  }

  void TearDown() override {
    for (int fd : fds_) close(fd);
    Disarm();
  }

  // Arms `rules` the way a process test does: write a temporary file, rename it over.
  void Arm(const std::string& rules) {
    std::string tmp = rules_path_ + ".tmp";
    WriteFile(tmp, rules);
    ASSERT_EQ(rename(tmp.c_str(), rules_path_.c_str()), 0);
  }

  // Removes the rules and waits until the library has seen it (its last load line).
  void Disarm() {
    unlink(rules_path_.c_str());
    EXPECT_TRUE(WaitUntil([&] { return LastLoadLine().find(" loaded 0 rules ") != std::string::npos; }, kDeadline))
        << "last load line: " << LastLoadLine();
  }

  std::string LastLoadLine() {
    std::string last;
    for (const std::string& line : Lines(ReadWhole(log_path_))) {
      if (line.find(" loaded ") != std::string::npos) last = line;
    }
    return last;
  }

  // The log's fault lines that name `path`.
  std::vector<std::string> FaultLines(const std::string& path) {
    std::vector<std::string> found;
    for (const std::string& line : Lines(ReadWhole(log_path_))) {
      if (line.find(" fault ") != std::string::npos && line.find(path) != std::string::npos) found.push_back(line);
    }
    return found;
  }

  // A file of `size` pattern bytes, and an fd open on it for reading and writing.
  int CreateFile(const std::string& path, size_t size, int extra_flags = 0) {
    WriteFile(path, Pattern(0, size));
    return Open(path, O_RDWR | extra_flags);
  }

  int Open(const std::string& path, int flags) {
    int fd = open(path.c_str(), flags | O_CLOEXEC);
    EXPECT_GE(fd, 0) << path;
    fds_.push_back(fd);
    return fd;
  }

  // Both ends of a Unix socket pair (closed at the end of the test).
  std::pair<int, int> SocketPair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    fds_.push_back(sv[0]);
    fds_.push_back(sv[1]);
    return {sv[0], sv[1]};
  }

  std::pair<int, int> Pipe() {
    int p[2];
    EXPECT_EQ(pipe(p), 0);
    fds_.push_back(p[0]);
    fds_.push_back(p[1]);
    return {p[0], p[1]};
  }

  // Reads n bytes from a socket or pipe; fewer if they do not come within the deadline.
  static std::string Receive(int fd, size_t n) {
    std::string bytes(n, '\0');
    size_t done = 0;
    auto end = std::chrono::steady_clock::now() + kDeadline;
    while (done < n) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
      pollfd ready = {fd, POLLIN, 0};
      if (left.count() <= 0 || poll(&ready, 1, static_cast<int>(left.count())) != 1) break;
      ssize_t r = read(fd, bytes.data() + done, n - done);
      if (r <= 0) break;
      done += static_cast<size_t>(r);
    }
    bytes.resize(done);
    return bytes;
  }

  static std::string PreadOrEmpty(int fd, uint64_t offset, size_t n) {
    std::string bytes(n, '\0');
    ssize_t r = pread(fd, bytes.data(), n, static_cast<off_t>(offset));
    return r < 0 ? std::string() : bytes.substr(0, static_cast<size_t>(r));
  }

  // -1 with errno, as the call returned.
  static ssize_t PreadResult(int fd, uint64_t offset, size_t n) {
    std::string bytes(n, '\0');
    return pread(fd, bytes.data(), n, static_cast<off_t>(offset));
  }

  static bool FailsWith(ssize_t result, int error) { return result == -1 && errno == error; }

  TempDir dir_;
  std::string rules_path_;
  std::string log_path_;
  std::vector<int> fds_;
};

TEST_F(FaultPreloadTest, WithoutRulesEveryCallGoesThrough) {
  uint64_t fired = FiredCount();
  std::string path = dir_.Sub("plain.log");
  int fd = CreateFile(path, 8192);
  EXPECT_TRUE(PreadMatches(fd, 100, 50));
  ASSERT_EQ(lseek(fd, 200, SEEK_SET), 200);
  char buf[64];
  ASSERT_EQ(read(fd, buf, sizeof(buf)), 64);
  EXPECT_TRUE(IsPattern(std::string(buf, 64), 200, 64));
  std::string more = Pattern(8192, 100);
  ASSERT_EQ(lseek(fd, 8192, SEEK_SET), 8192);
  EXPECT_EQ(write(fd, more.data(), more.size()), 100);
  EXPECT_EQ(pwrite(fd, more.data(), 10, 8192), 10);
  iovec iov[2] = {{buf, 10}, {buf + 10, 20}};
  EXPECT_EQ(preadv(fd, iov, 2, 300), 30);
  EXPECT_TRUE(IsPattern(std::string(buf, 30), 300, 30));
  EXPECT_EQ(pwritev(fd, iov, 2, 300), 30);
  EXPECT_EQ(fsync(fd), 0);
  EXPECT_EQ(fdatasync(fd), 0);
  auto [out, in] = SocketPair();
  off_t offset = 1000;
  EXPECT_EQ(sendfile(out, fd, &offset, 100), 100);
  EXPECT_TRUE(IsPattern(Receive(in, 100), 1000, 100));
  EXPECT_EQ(FiredCount(), fired);
}

TEST_F(FaultPreloadTest, ReadsOverlappingTheRangeFailAndTheOthersReturnTheirBytes) {
  std::string path = dir_.Sub("00000000000000000000.log");
  int fd = CreateFile(path, 1 << 20);
  Arm("read " + path + " 524288 max EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return PreadResult(fd, 600000, 4096) < 0; }, kDeadline)) << "the rule never fired";
  EXPECT_TRUE(FailsWith(PreadResult(fd, 600000, 4096), EIO));
  EXPECT_TRUE(FailsWith(PreadResult(fd, 524288 - 10, 20), EIO)) << "straddles the beginning of the range";
  EXPECT_TRUE(PreadMatches(fd, 0, 4096));
  EXPECT_TRUE(PreadMatches(fd, 524288 - 4096, 4096)) << "ends where the range begins";

  // read and readv at the fd's position.
  char buf[200];
  ASSERT_EQ(lseek(fd, 1000, SEEK_SET), 1000);
  ASSERT_EQ(read(fd, buf, 100), 100);
  EXPECT_TRUE(IsPattern(std::string(buf, 100), 1000, 100));
  ASSERT_EQ(lseek(fd, 524288, SEEK_SET), 524288);
  EXPECT_TRUE(FailsWith(read(fd, buf, 100), EIO));
  ASSERT_EQ(lseek(fd, 524200, SEEK_SET), 524200);
  iovec iov[2] = {{buf, 50}, {buf + 50, 150}};
  EXPECT_TRUE(FailsWith(readv(fd, iov, 2), EIO));
  EXPECT_TRUE(FailsWith(preadv(fd, iov, 2, 700000), EIO));
  EXPECT_EQ(preadv(fd, iov, 2, 10), 200);
  EXPECT_TRUE(IsPattern(std::string(buf, 200), 10, 200));

  // Only reads: writing the range and sending it with sendfile still work.
  EXPECT_EQ(pwrite(fd, buf, 10, 600000), 10);
  auto [out, in] = SocketPair();
  off_t offset = 600000;
  EXPECT_EQ(sendfile(out, fd, &offset, 100), 100);

  std::vector<std::string> faults = FaultLines(path);
  ASSERT_FALSE(faults.empty());
  EXPECT_NE(faults.front().find("fault EIO pread " + path + " offset=600000 count=4096 rule=1"), std::string::npos)
      << faults.front();
}

TEST_F(FaultPreloadTest, OtherFilesAreUnaffected) {
  std::string faulty = dir_.Sub("orders-0.log");
  std::string other = dir_.Sub("orders-1.log");
  int faulty_fd = CreateFile(faulty, 65536);
  int other_fd = CreateFile(other, 65536);
  Arm("any " + faulty + " 0 max EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return PreadResult(faulty_fd, 0, 100) < 0; }, kDeadline));
  EXPECT_TRUE(PreadMatches(other_fd, 0, 100));
  EXPECT_EQ(pwrite(other_fd, "x", 1, 10), 1);
  EXPECT_EQ(fsync(other_fd), 0);
  EXPECT_TRUE(FailsWith(fsync(faulty_fd), EIO));
  EXPECT_TRUE(FaultLines(other).empty());
}

TEST_F(FaultPreloadTest, CountLimitsHowOftenARuleFires) {
  std::string path = dir_.Sub("full.log");
  int fd = CreateFile(path, 4096);
  uint64_t fired = FiredCount();
  Arm("write " + path + " 0 max ENOSPC 3\n");
  // The first firing ends the wait; two more follow, then writes go through again.
  ASSERT_TRUE(WaitUntil([&] { return pwrite(fd, "a", 1, 0) < 0; }, kDeadline));
  EXPECT_EQ(errno, ENOSPC);
  ASSERT_EQ(lseek(fd, 0, SEEK_SET), 0);
  EXPECT_TRUE(FailsWith(write(fd, "b", 1), ENOSPC));
  char byte = 'c';
  iovec iov = {&byte, 1};
  EXPECT_TRUE(FailsWith(writev(fd, &iov, 1), ENOSPC));
  EXPECT_EQ(pwritev(fd, &iov, 1, 0), 1);
  EXPECT_EQ(pwrite(fd, "d", 1, 1), 1);
  EXPECT_EQ(FiredCount() - fired, 3u);
  EXPECT_EQ(FaultLines(path).size(), 3u);
}

TEST_F(FaultPreloadTest, SyncIgnoresTheRange) {
  std::string path = dir_.Sub("sync.log");
  std::string other = dir_.Sub("other.log");
  int fd = CreateFile(path, 100);
  int other_fd = CreateFile(other, 100);
  Arm("sync " + path + " 0 1 EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return fsync(fd) < 0; }, kDeadline));
  EXPECT_EQ(errno, EIO);
  EXPECT_TRUE(FailsWith(fdatasync(fd), EIO));
  EXPECT_TRUE(FailsWith(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE), EIO));
  EXPECT_EQ(pwrite(fd, "x", 1, 0), 1) << "a sync rule does not fault writes";
  EXPECT_EQ(fdatasync(other_fd), 0);
}

TEST_F(FaultPreloadTest, AnAppendingWriteIsAtTheEndOfTheFile) {
  std::string path = dir_.Sub("append.log");
  WriteFile(path, Pattern(0, 2000));
  int append_fd = Open(path, O_WRONLY | O_APPEND);
  int plain_fd = Open(path, O_WRONLY);
  Arm("write " + path + " 1500 max ENOSPC\n");
  // Both fds are at position 0; only the appending one writes at 2000.
  ASSERT_TRUE(WaitUntil([&] { return write(append_fd, "x", 1) < 0; }, kDeadline));
  EXPECT_EQ(errno, ENOSPC);
  EXPECT_EQ(write(plain_fd, "y", 1), 1);
}

TEST_F(FaultPreloadTest, DisarmingRestoresNormalCalls) {
  std::string path = dir_.Sub("flaky.log");
  int fd = CreateFile(path, 4096);
  Arm("read " + path + " 0 max EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return PreadResult(fd, 0, 10) < 0; }, kDeadline));
  Arm("");  // an empty file: no rules
  ASSERT_TRUE(WaitUntil([&] { return bool(PreadMatches(fd, 0, 10)); }, kDeadline));
  Arm("read " + path + " 0 max EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return PreadResult(fd, 0, 10) < 0; }, kDeadline));
  Arm("# only a comment\n\n");
  ASSERT_TRUE(WaitUntil([&] { return bool(PreadMatches(fd, 0, 10)); }, kDeadline));
  Arm("read " + path + " 0 max EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return PreadResult(fd, 0, 10) < 0; }, kDeadline));
  ASSERT_EQ(unlink(rules_path_.c_str()), 0);  // a missing file: no rules
  ASSERT_TRUE(WaitUntil([&] { return bool(PreadMatches(fd, 0, 10)); }, kDeadline));
}

TEST_F(FaultPreloadTest, SocketsAndPipesAreNeverFaulted) {
  std::string path = dir_.Sub("any.log");
  int fd = CreateFile(path, 4096);
  // `*` matches every path, and a socket's or a pipe's name would match these.
  Arm("any * 0 max EIO\nany socket 0 max EIO\nany pipe 0 max EIO\n");
  ASSERT_TRUE(WaitUntil([&] { return PreadResult(fd, 0, 10) < 0; }, kDeadline));
  auto [a, b] = SocketPair();
  EXPECT_EQ(write(a, "hello", 5), 5);
  EXPECT_EQ(Receive(b, 5), "hello");
  char buf[8] = {};
  iovec iov = {buf, 3};
  EXPECT_EQ(writev(b, &iov, 1), 3);
  EXPECT_EQ(readv(a, &iov, 1), 3);
  EXPECT_EQ(fsync(a), -1) << "fsync of a socket fails by itself (EINVAL), not by a rule";
  EXPECT_EQ(errno, EINVAL);
  auto [pipe_read, pipe_write] = Pipe();
  EXPECT_EQ(write(pipe_write, "abc", 3), 3);
  EXPECT_EQ(Receive(pipe_read, 3), "abc");
  // splice between a socket and a pipe: neither end is a file.
  EXPECT_EQ(write(a, "xyz", 3), 3);
  EXPECT_EQ(splice(b, nullptr, pipe_write, nullptr, 3, 0), 3);
  EXPECT_EQ(Receive(pipe_read, 3), "xyz");
  // The file the sendfile reads from is.
  off_t offset = 0;
  EXPECT_TRUE(FailsWith(sendfile(a, fd, &offset, 10), EIO));
}

TEST_F(FaultPreloadTest, SendfileSpliceAndCopyFileRangeFromAFileFailInTheRange) {
  std::string path = dir_.Sub("served.log");
  std::string copy = dir_.Sub("copy.log");
  int fd = CreateFile(path, 16384);
  int copy_fd = CreateFile(copy, 0);
  Arm("sendfile " + path + " 4096 8192 EIO\n");
  // Waiting sends to /dev/null: the sends before the rule is loaded would fill a socket.
  int dev_null = Open("/dev/null", O_WRONLY);
  ASSERT_TRUE(WaitUntil([&] { off_t at = 4096; return sendfile(dev_null, fd, &at, 100) < 0; }, kDeadline));
  EXPECT_EQ(errno, EIO);
  auto [out, in] = SocketPair();
  off_t at = 4096;
  EXPECT_TRUE(FailsWith(sendfile(out, fd, &at, 100), EIO));
  off_t offset = 0;
  EXPECT_EQ(sendfile(out, fd, &offset, 4096), 4096) << "ends where the range begins";
  EXPECT_TRUE(IsPattern(Receive(in, 4096), 0, 4096));
  offset = 8192;
  EXPECT_EQ(sendfile(out, fd, &offset, 100), 100) << "begins where the range ends";
  EXPECT_TRUE(IsPattern(Receive(in, 100), 8192, 100));
  ASSERT_EQ(lseek(fd, 5000, SEEK_SET), 5000);
  EXPECT_TRUE(FailsWith(sendfile(out, fd, nullptr, 100), EIO)) << "at the fd's position";

  auto [pipe_read, pipe_write] = Pipe();
  loff_t from = 4000;
  EXPECT_TRUE(FailsWith(splice(fd, &from, pipe_write, nullptr, 200, 0), EIO));
  from = 0;
  EXPECT_EQ(splice(fd, &from, pipe_write, nullptr, 200, 0), 200);
  EXPECT_TRUE(IsPattern(Receive(pipe_read, 200), 0, 200));

  loff_t source = 6000, target = 0;
  EXPECT_TRUE(FailsWith(copy_file_range(fd, &source, copy_fd, &target, 100, 0), EIO));
  source = 100;
  EXPECT_EQ(copy_file_range(fd, &source, copy_fd, &target, 100, 0), 100);
  EXPECT_TRUE(IsPattern(PreadOrEmpty(copy_fd, 0, 100), 100, 100));
  EXPECT_TRUE(PreadMatches(fd, 5000, 100)) << "a sendfile rule does not fault reads";
}

TEST_F(FaultPreloadTest, WritingIntoAFileBySpliceOrCopyFileRangeFollowsWriteRules) {
  std::string source_path = dir_.Sub("source.log");
  std::string target_path = dir_.Sub("target.log");
  int source_fd = CreateFile(source_path, 4096);
  int target_fd = CreateFile(target_path, 0);
  Arm("write " + target_path + " 0 max ENOSPC\n");
  ASSERT_TRUE(WaitUntil([&] { return pwrite(target_fd, "x", 1, 0) < 0; }, kDeadline));
  loff_t source = 0, target = 0;
  EXPECT_TRUE(FailsWith(copy_file_range(source_fd, &source, target_fd, &target, 100, 0), ENOSPC));
  auto [pipe_read, pipe_write] = Pipe();
  ASSERT_EQ(write(pipe_write, "abc", 3), 3);
  EXPECT_TRUE(FailsWith(splice(pipe_read, nullptr, target_fd, &target, 3, 0), ENOSPC));
}

TEST_F(FaultPreloadTest, AMalformedLineIsReportedOnceAndIgnored) {
  std::string path = dir_.Sub("malformed.log");
  int fd = CreateFile(path, 4096);
  std::string stderr_path = dir_.Sub("stderr");
  int saved_stderr = dup(STDERR_FILENO);
  int capture = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(capture, 0);
  ASSERT_EQ(dup2(capture, STDERR_FILENO), STDERR_FILENO);
  close(capture);
  Arm("# malformed lines between good ones\n"
      "read " + path + "\n"
      "write " + path + " 10 5 EIO\n"
      "read " + path + " 0 max EWHAT\n"
      "sendfile " + path + " zero max EIO\n"
      "read " + path + " 0 100 EIO\n");
  bool fired = WaitUntil([&] { return PreadResult(fd, 0, 10) < 0; }, kDeadline);
  int read_errno = errno;
  // Calls over several re-check periods (5-10 ms each) report nothing more: the file is
  // parsed when it changes, not when it is looked at.
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  while (std::chrono::steady_clock::now() < until) PreadResult(fd, 200, 10);
  dup2(saved_stderr, STDERR_FILENO);
  close(saved_stderr);
  ASSERT_TRUE(fired) << "the valid line never took effect";
  EXPECT_EQ(read_errno, EIO);
  EXPECT_EQ(pwrite(fd, "x", 1, 10), 1) << "the malformed write rule must not be armed";
  EXPECT_TRUE(PreadMatches(fd, 200, 10));
  std::string reports = ReadWhole(stderr_path);
  for (int line : {2, 3, 4, 5}) {
    EXPECT_EQ(CountOccurrences(reports, rules_path_ + ":" + std::to_string(line) + ": "), 1u)
        << "line " << line << " in: " << reports;
  }
  EXPECT_EQ(CountOccurrences(reports, "strata_fault_preload: "), 4u) << reports;
  EXPECT_NE(LastLoadLine().find(" loaded 1 rules from " + rules_path_), std::string::npos) << LastLoadLine();
}

TEST_F(FaultPreloadTest, CountHoldsExactlyUnderConcurrentCallsWhileRulesChange) {
  std::string path = dir_.Sub("busy.log");
  int fd = CreateFile(path, 65536);
  constexpr int kRounds = 5;
  constexpr uint64_t kPerRound = 40;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      while (!stop.load()) {
        if (PreadResult(fd, static_cast<uint64_t>(t) * 1000, 100) < 0) failures.fetch_add(1);
      }
    });
  }
  uint64_t fired = FiredCount();
  for (int round = 1; round <= kRounds; ++round) {
    // A fresh table each round (the comment differs), so its count starts afresh.
    Arm("# round " + std::to_string(round) + "\nread " + path + " 0 max EIO " + std::to_string(kPerRound) + "\n");
    ASSERT_TRUE(WaitUntil([&] { return failures.load() == round * kPerRound; }, kDeadline))
        << "round " << round << ": " << failures.load() << " failures";
  }
  stop.store(true);
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(failures.load(), kRounds * kPerRound);
  EXPECT_EQ(FiredCount() - fired, kRounds * kPerRound);
  EXPECT_EQ(FaultLines(path).size(), kRounds * kPerRound);
}

// A real strata-server runs normally with the library preloaded and no rules: it exits 0
// from --help-config, and the library announced itself in that process.
TEST(StrataServerWithFaultPreload, StartsAndExitsNormallyWithoutRules) {
  const char* server = std::getenv("STRATA_SERVER_BINARY");
  const char* log = std::getenv("STRATA_FAULT_LOG");
  ASSERT_NE(server, nullptr) << "STRATA_SERVER_BINARY must name strata-server";
  ASSERT_NE(log, nullptr);
  ASSERT_NE(std::getenv("LD_PRELOAD"), nullptr);
  TempDir dir;
  std::string output = dir.Sub("help-config.md");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  char* argv[] = {const_cast<char*>(server), const_cast<char*>("--help-config"), nullptr};
  pid_t pid;
  ASSERT_EQ(posix_spawn(&pid, server, &actions, nullptr, argv, environ), 0);  // LD_PRELOAD inherited
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_NE(ReadWhole(output).find("# strata-server settings"), std::string::npos);
  EXPECT_NE(ReadWhole(log).find("pid=" + std::to_string(pid) + " loaded 0 rules"), std::string::npos)
      << "the library was not loaded in strata-server: " << ReadWhole(log);
}

}  // namespace
}  // namespace strata::testing
