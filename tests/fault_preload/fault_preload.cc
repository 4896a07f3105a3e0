// libstrata_fault_preload.so: an LD_PRELOAD library that makes chosen byte ranges of
// chosen files fail with a chosen errno (EIO, ENOSPC, ...) while a process runs. The
// rules come from the file named by STRATA_FAULT_RULES and are re-read when it changes;
// the rule format, what is intercepted and the limits are in README.md beside this file.
//
// Thread-safety: every interposed call may run on any thread at once. The rules are a
// table published through an atomic pointer and never freed, so readers take no lock;
// one thread at a time re-reads the file (an atomic flag: the others, and a signal
// handler that interrupts the re-read, keep the table they have); `count` is an atomic
// decrement. An interposed call uses only async-signal-safe calls (clock_gettime, stat,
// fstat, readlink, lseek, fcntl, open, read, write, close; mmap when re-reading). Nothing
// here calls malloc (dlsym may, once, at start-up) or throws.

// The interposed functions must be real functions, not the fortified inline wrappers.
#undef _FORTIFY_SOURCE

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

namespace {

// ---- Limits -------------------------------------------------------------------------

constexpr int kMaxRules = 64;
constexpr size_t kMaxPathSubstring = 256;
constexpr size_t kMaxRulesFileBytes = 64 * 1024;
// How often an interposed call looks at the rules file's stat (CLOCK_MONOTONIC_COARSE
// ticks every 1-4 ms, so this is 5-9 ms in practice).
constexpr int64_t kRecheckNanos = 5'000'000;
constexpr int64_t kForever = -1;

// ---- Rules --------------------------------------------------------------------------

// One bit per rule op; a call checks the bit of its own kind.
enum Op : unsigned { kRead = 1, kWrite = 2, kSync = 4, kSendfile = 8, kAnyOp = 15 };

struct OpName {
  const char* name;
  unsigned ops;
};
constexpr OpName kOpNames[] = {
    {"read", kRead}, {"write", kWrite}, {"sync", kSync}, {"sendfile", kSendfile}, {"any", kAnyOp}};

struct ErrnoName {
  const char* name;
  int value;
};
constexpr ErrnoName kErrnoNames[] = {
    {"EIO", EIO},       {"ENOSPC", ENOSPC}, {"EDQUOT", EDQUOT}, {"EROFS", EROFS}, {"EFBIG", EFBIG},
    {"EINTR", EINTR},   {"EAGAIN", EAGAIN}, {"ENOMEM", ENOMEM}, {"EBADF", EBADF}, {"EINVAL", EINVAL},
    {"EPERM", EPERM},   {"EACCES", EACCES}, {"ENXIO", ENXIO},   {"ENODEV", ENODEV}};

const char* NameOfErrno(int value) {
  for (const ErrnoName& e : kErrnoNames) {
    if (e.value == value) return e.name;
  }
  return "errno";
}

struct Rule {
  unsigned ops = 0;
  char path[kMaxPathSubstring] = {};  // empty: every file (`*`)
  uint64_t begin = 0;                 // [begin, end) of the file; sync ignores it
  uint64_t end = 0;
  int error = 0;
  int line = 0;  // in the rules file, for the fault log
  // Firings left, or kForever: the one part of a published table that changes.
  mutable std::atomic<int64_t> remaining{kForever};
};

struct RuleSet {
  int size = 0;
  unsigned ops = 0;  // union of the rules' ops: a call of another kind skips everything
  Rule rules[kMaxRules];
};

// ---- The next definitions (libc's) ---------------------------------------------------

struct RealCalls {
  decltype(&::read) read;
  decltype(&::pread) pread;
  decltype(&::pread64) pread64;
  decltype(&::readv) readv;
  decltype(&::preadv) preadv;
  decltype(&::preadv64) preadv64;
  decltype(&::write) write;
  decltype(&::pwrite) pwrite;
  decltype(&::pwrite64) pwrite64;
  decltype(&::writev) writev;
  decltype(&::pwritev) pwritev;
  decltype(&::pwritev64) pwritev64;
  decltype(&::fsync) fsync;
  decltype(&::fdatasync) fdatasync;
  decltype(&::sync_file_range) sync_file_range;
  decltype(&::sendfile) sendfile;
  decltype(&::sendfile64) sendfile64;
  decltype(&::splice) splice;
  decltype(&::copy_file_range) copy_file_range;
};

// ---- State ----------------------------------------------------------------------------

// Start-up (a static init guard without locks): 0 not started, 1 running, 2 done.
std::atomic<int> g_init_state{0};
std::atomic<long> g_init_thread{0};  // the thread running it (a re-entry from dlsym)
RealCalls g_real{};                  // written once, before g_init_state becomes 2
const RealCalls kNoRealCalls{};      // during a re-entry: every wrapper calls syscall()

// STRATA_FAULT_RULES and STRATA_FAULT_LOG, made absolute at start-up; empty when unset.
char g_rules_path[PATH_MAX];
char g_log_path[PATH_MAX];

std::atomic<const RuleSet*> g_rules{nullptr};  // null: no rules
std::atomic<int64_t> g_next_check_nanos{0};
std::atomic<bool> g_reloading{false};  // held by the one thread re-reading the rules
std::atomic<uint64_t> g_fired{0};

// What the rules file looked like when last read. Guarded by g_reloading.
struct FileVersion {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  timespec ctime{};
  bool operator==(const FileVersion& o) const {
    return exists == o.exists && dev == o.dev && ino == o.ino && size == o.size &&
           mtime.tv_sec == o.mtime.tv_sec && mtime.tv_nsec == o.mtime.tv_nsec &&
           ctime.tv_sec == o.ctime.tv_sec && ctime.tv_nsec == o.ctime.tv_nsec;
  }
};
bool g_version_known = false;  // guarded by g_reloading
FileVersion g_version;         // guarded by g_reloading
char g_file_text[kMaxRulesFileBytes + 1];  // guarded by g_reloading

// ---- Small helpers without malloc ----------------------------------------------------

// Writes n in decimal at out (room for 21 bytes), terminated; returns the digit count.
size_t FormatNumber(uint64_t n, char* out) {
  char digits[21];
  size_t count = 0;
  do {
    digits[count++] = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  for (size_t i = 0; i < count; ++i) out[i] = digits[count - 1 - i];
  out[count] = '\0';
  return count;
}

// A line of text built on the stack (truncated when too long).
class LineBuffer {
 public:
  LineBuffer& Add(const char* s) {
    while (*s != '\0' && size_ < sizeof(text_) - 1) text_[size_++] = *s++;
    return *this;
  }
  LineBuffer& Add(const char* s, size_t n) {
    for (size_t i = 0; i < n && size_ < sizeof(text_) - 1; ++i) text_[size_++] = s[i];
    return *this;
  }
  LineBuffer& Number(uint64_t n) {
    char digits[21];
    return Add(digits, FormatNumber(n, digits));
  }
  const char* c_str() {
    text_[size_] = '\0';
    return text_;
  }
  size_t size() const { return size_; }

 private:
  char text_[PATH_MAX + 512];
  size_t size_ = 0;
};

// Writes straight to the kernel, so our own output is never intercepted or faulted.
void WriteAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    long n = syscall(SYS_write, fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

// One line appended to STRATA_FAULT_LOG (one write on an O_APPEND file, so lines of
// several threads or processes do not interleave).
void AppendToLog(LineBuffer& line) {
  if (g_log_path[0] == '\0') return;
  int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, g_log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (fd < 0) return;
  line.Add("\n");
  WriteAll(fd, line.c_str(), line.size());
  syscall(SYS_close, fd);
}

int64_t MonotonicCoarseNanos() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// `value` made absolute against the working directory, into `out` (empty when unset).
void AbsolutePath(const char* value, char* out) {
  out[0] = '\0';
  if (value == nullptr || value[0] == '\0') return;
  size_t used = 0;
  if (value[0] != '/') {
    if (getcwd(out, PATH_MAX) == nullptr) return;
    used = strlen(out);
    if (used + 1 < PATH_MAX && (used == 0 || out[used - 1] != '/')) out[used++] = '/';
  }
  size_t n = strlen(value);
  if (used + n >= PATH_MAX) {
    out[0] = '\0';
    return;
  }
  memcpy(out + used, value, n + 1);
}

// ---- Parsing the rules file ------------------------------------------------------------

bool ParseUnsigned(const char* token, uint64_t* out) {
  if (*token == '\0') return false;
  uint64_t value = 0;
  for (const char* p = token; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    uint64_t digit = static_cast<uint64_t>(*p - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *out = value;
  return true;
}

bool ParseErrno(const char* token, int* out) {
  for (const ErrnoName& e : kErrnoNames) {
    if (strcmp(token, e.name) == 0) {
      *out = e.value;
      return true;
    }
  }
  uint64_t number;
  if (!ParseUnsigned(token, &number) || number == 0 || number > 4095) return false;
  *out = static_cast<int>(number);
  return true;
}

void ReportBadLine(int line_number, const char* reason, const char* text) {
  LineBuffer report;
  report.Add("strata_fault_preload: ").Add(g_rules_path).Add(":").Number(static_cast<uint64_t>(line_number));
  report.Add(": ").Add(reason).Add(", line ignored: ").Add(text, strnlen(text, 200)).Add("\n");
  WriteAll(STDERR_FILENO, report.c_str(), report.size());
}

// Parses one line (modified in place) into `rule`. Returns null on success, else why not.
const char* ParseRule(char* line, Rule* rule) {
  char* fields[7];
  int count = 0;
  for (char* p = line; *p != '\0';) {
    while (*p == ' ' || *p == '\t') *p++ = '\0';
    if (*p == '\0') break;
    if (count == 7) return "too many fields";
    fields[count++] = p;
    while (*p != '\0' && *p != ' ' && *p != '\t') ++p;
  }
  if (count < 5 || count > 6) return "expected <op> <path-substring> <begin> <end> <errno-name> [count]";
  rule->ops = 0;
  for (const OpName& op : kOpNames) {
    if (strcmp(fields[0], op.name) == 0) rule->ops = op.ops;
  }
  if (rule->ops == 0) return "unknown op (read, write, sync, sendfile or any)";
  if (strlen(fields[1]) >= kMaxPathSubstring) return "path substring too long";
  if (strcmp(fields[1], "*") != 0) strcpy(rule->path, fields[1]);
  if (!ParseUnsigned(fields[2], &rule->begin)) return "begin is not a number";
  if (strcmp(fields[3], "max") == 0) {
    rule->end = UINT64_MAX;
  } else if (!ParseUnsigned(fields[3], &rule->end)) {
    return "end is neither a number nor max";
  }
  if (rule->ops != kSync && rule->begin >= rule->end) return "empty range (begin >= end)";
  if (!ParseErrno(fields[4], &rule->error)) return "unknown errno name";
  int64_t remaining = kForever;
  if (count == 6) {
    uint64_t n;
    if (!ParseUnsigned(fields[5], &n) || n == 0 || n > INT64_MAX) return "count is not a positive number";
    remaining = static_cast<int64_t>(n);
  }
  rule->remaining.store(remaining, std::memory_order_relaxed);
  return nullptr;
}

// Parses g_file_text into a new table (mapped memory, never freed: a thread may still be
// reading the previous one). Returns null when it holds no valid rule.
const RuleSet* ParseRules(size_t size) {
  void* memory = mmap(nullptr, sizeof(RuleSet), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return nullptr;
  RuleSet* set = new (memory) RuleSet();
  g_file_text[size] = '\0';
  int line_number = 0;
  for (char* line = g_file_text; line != nullptr && *line != '\0';) {
    char* newline = strchr(line, '\n');
    if (newline != nullptr) *newline = '\0';
    ++line_number;
    size_t length = strlen(line);
    if (length > 0 && line[length - 1] == '\r') line[--length] = '\0';
    const char* start = line + strspn(line, " \t");
    if (*start != '\0' && *start != '#') {
      char original[256];
      strncpy(original, line, sizeof(original) - 1);
      original[sizeof(original) - 1] = '\0';
      Rule* rule = &set->rules[set->size];
      const char* problem = set->size == kMaxRules ? "more than 64 rules" : ParseRule(line, rule);
      if (problem == nullptr) {
        rule->line = line_number;
        set->ops |= rule->ops;
        ++set->size;
      } else {
        if (set->size < kMaxRules) new (rule) Rule();  // undo a half-parsed rule
        ReportBadLine(line_number, problem, original);
      }
    }
    line = newline == nullptr ? nullptr : newline + 1;
  }
  if (set->size > 0) return set;
  munmap(memory, sizeof(RuleSet));
  return nullptr;
}

// Reads the rules file into g_file_text; returns its size (0 when missing or empty).
size_t ReadRulesFile() {
  int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, g_rules_path, O_RDONLY | O_CLOEXEC));
  if (fd < 0) return 0;
  size_t size = 0;
  while (size < kMaxRulesFileBytes) {
    long n = syscall(SYS_read, fd, g_file_text + size, kMaxRulesFileBytes - size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    size += static_cast<size_t>(n);
  }
  syscall(SYS_close, fd);
  return size;
}

// REQUIRES: g_reloading held. Re-reads the rules when the file's stat changed since the
// last read (a rename onto it changes its inode; removing it changes `exists`).
void ReloadIfChanged() {
  FileVersion version;
  struct stat st;
  if (stat(g_rules_path, &st) == 0) {
    version.exists = true;
    version.dev = st.st_dev;
    version.ino = st.st_ino;
    version.size = st.st_size;
    version.mtime = st.st_mtim;
    version.ctime = st.st_ctim;
  }
  if (g_version_known && version == g_version) return;
  g_version_known = true;
  g_version = version;
  size_t size = version.exists ? ReadRulesFile() : 0;
  const RuleSet* rules = size > 0 ? ParseRules(size) : nullptr;
  g_rules.store(rules, std::memory_order_release);
  LineBuffer line;
  line.Add("pid=").Number(static_cast<uint64_t>(getpid())).Add(" loaded ");
  line.Number(rules == nullptr ? 0 : static_cast<uint64_t>(rules->size)).Add(" rules from ").Add(g_rules_path);
  if (!version.exists) line.Add(" (missing)");
  AppendToLog(line);
}

// ---- Start-up ------------------------------------------------------------------------

template <typename Fn>
void Resolve(Fn* slot, const char* name) {
  *slot = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

void ResolveAll() {
  Resolve(&g_real.read, "read");
  Resolve(&g_real.pread, "pread");
  Resolve(&g_real.pread64, "pread64");
  Resolve(&g_real.readv, "readv");
  Resolve(&g_real.preadv, "preadv");
  Resolve(&g_real.preadv64, "preadv64");
  Resolve(&g_real.write, "write");
  Resolve(&g_real.pwrite, "pwrite");
  Resolve(&g_real.pwrite64, "pwrite64");
  Resolve(&g_real.writev, "writev");
  Resolve(&g_real.pwritev, "pwritev");
  Resolve(&g_real.pwritev64, "pwritev64");
  Resolve(&g_real.fsync, "fsync");
  Resolve(&g_real.fdatasync, "fdatasync");
  Resolve(&g_real.sync_file_range, "sync_file_range");
  Resolve(&g_real.sendfile, "sendfile");
  Resolve(&g_real.sendfile64, "sendfile64");
  Resolve(&g_real.splice, "splice");
  Resolve(&g_real.copy_file_range, "copy_file_range");
}

void MaybeReload(int64_t now);

// The next definitions, resolved on first use. A call made from inside dlsym by the
// thread resolving them gets kNoRealCalls (the wrappers then make the system call
// themselves); another thread waits until they are resolved.
const RealCalls& Real() {
  if (g_init_state.load(std::memory_order_acquire) == 2) return g_real;
  long self = syscall(SYS_gettid);
  int expected = 0;
  if (g_init_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    g_init_thread.store(self, std::memory_order_relaxed);
    int saved_errno = errno;
    ResolveAll();
    AbsolutePath(getenv("STRATA_FAULT_RULES"), g_rules_path);
    AbsolutePath(getenv("STRATA_FAULT_LOG"), g_log_path);
    g_init_state.store(2, std::memory_order_release);
    if (g_rules_path[0] != '\0') MaybeReload(MonotonicCoarseNanos());
    errno = saved_errno;
    return g_real;
  }
  if (expected == 1 && g_init_thread.load(std::memory_order_relaxed) == self) return kNoRealCalls;
  while (g_init_state.load(std::memory_order_acquire) != 2) sched_yield();
  return g_real;
}

__attribute__((constructor)) void InitAtLoad() { Real(); }

// ---- Deciding whether a call fails ----------------------------------------------------

// Re-reads the rules if no other thread is doing it; the others keep the current table.
void MaybeReload(int64_t now) {
  if (g_reloading.exchange(true, std::memory_order_acquire)) return;
  g_next_check_nanos.store(now + kRecheckNanos, std::memory_order_relaxed);
  int saved_errno = errno;
  ReloadIfChanged();
  errno = saved_errno;
  g_reloading.store(false, std::memory_order_release);
}

// The current rules (null when none). Without STRATA_FAULT_RULES this is one load; with
// it, a coarse clock read and, every kRecheckNanos, one stat of the rules file.
const RuleSet* CurrentRules() {
  Real();
  if (g_rules_path[0] == '\0') return nullptr;
  int64_t now = MonotonicCoarseNanos();
  if (now >= g_next_check_nanos.load(std::memory_order_relaxed)) MaybeReload(now);
  return g_rules.load(std::memory_order_acquire);
}

bool Overlaps(uint64_t offset, uint64_t count, const Rule& rule) {
  if (count == 0) return false;
  uint64_t last = offset > UINT64_MAX - count ? UINT64_MAX : offset + count;
  return offset < rule.end && rule.begin < last;
}

// Takes one firing from the rule; false when it has none left.
bool TakeFiring(const Rule& rule) {
  int64_t left = rule.remaining.load(std::memory_order_relaxed);
  while (true) {
    if (left == kForever) return true;
    if (left <= 0) return false;
    if (rule.remaining.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) return true;
  }
}

void LogFault(const Rule& rule, const char* call, const char* path, int64_t offset, uint64_t count) {
  LineBuffer line;
  line.Add("pid=").Number(static_cast<uint64_t>(getpid())).Add(" fault ").Add(NameOfErrno(rule.error));
  line.Add(" ").Add(call).Add(" ").Add(path);
  if (offset >= 0) line.Add(" offset=").Number(static_cast<uint64_t>(offset)).Add(" count=").Number(count);
  line.Add(" rule=").Number(static_cast<uint64_t>(rule.line));
  AppendToLog(line);
}

constexpr int64_t kCurrentPosition = -1;

// The errno `call` on `fd` fails with, or 0 to let it through. `op` is the call's kind;
// [offset, offset + count) the bytes it touches (offset kCurrentPosition: the fd's).
int Check(const RuleSet& rules, Op op, const char* call, int fd, int64_t offset, uint64_t count) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  // Sockets, pipes, devices are never faulted; a directory only by sync (its fsync).
  if (!S_ISREG(st.st_mode) && !(op == kSync && S_ISDIR(st.st_mode))) return 0;
  char link[32] = "/proc/self/fd/";
  FormatNumber(static_cast<uint64_t>(fd), link + strlen(link));
  char path[PATH_MAX];
  ssize_t length = readlink(link, path, sizeof(path) - 1);
  if (length < 0) return 0;
  path[length] = '\0';
  // The library's own files stay readable whatever the rules say.
  if (strcmp(path, g_rules_path) == 0 || strcmp(path, g_log_path) == 0) return 0;
  for (int i = 0; i < rules.size; ++i) {
    const Rule& rule = rules.rules[i];
    if ((rule.ops & op) == 0) continue;
    if (rule.path[0] != '\0' && strstr(path, rule.path) == nullptr) continue;
    if (op != kSync) {
      if (offset == kCurrentPosition) {
        // An O_APPEND write lands at the end, whatever the position says.
        bool appends = op == kWrite && (fcntl(fd, F_GETFL) & O_APPEND) != 0;
        offset = appends ? st.st_size : lseek(fd, 0, SEEK_CUR);
        if (offset < 0) return 0;
      }
      if (!Overlaps(static_cast<uint64_t>(offset), count, rule)) continue;
    }
    if (!TakeFiring(rule)) continue;
    g_fired.fetch_add(1, std::memory_order_relaxed);
    LogFault(rule, call, path, op == kSync ? -1 : offset, count);
    return rule.error;
  }
  return 0;
}

// The errno to fail with, or 0. Keeps errno as it was when the call goes through.
int InjectedError(Op op, const char* call, int fd, int64_t offset, uint64_t count) {
  const RuleSet* rules = CurrentRules();
  if (rules == nullptr || (rules->ops & op) == 0) return 0;
  int saved_errno = errno;
  int error = Check(*rules, op, call, fd, offset, count);
  errno = saved_errno;
  return error;
}

uint64_t TotalLength(const iovec* iov, int iovcnt) {
  uint64_t total = 0;
  for (int i = 0; i < iovcnt; ++i) total += iov[i].iov_len;
  return total;
}

int64_t OffsetOrCurrent(const off64_t* offset) { return offset == nullptr ? kCurrentPosition : *offset; }

template <typename T>
T Fail(int error) {
  errno = error;
  return static_cast<T>(-1);
}

}  // namespace

// ---- The interposed calls ----------------------------------------------------------------

extern "C" {

// How many faults this process has injected (a test checks the library is loaded).
__attribute__((visibility("default"))) uint64_t strata_fault_preload_fired_count(void) {
  return g_fired.load(std::memory_order_relaxed);
}

ssize_t read(int fd, void* buf, size_t n) {
  if (int e = InjectedError(kRead, "read", fd, kCurrentPosition, n)) return Fail<ssize_t>(e);
  if (auto real = Real().read) return real(fd, buf, n);
  return syscall(SYS_read, fd, buf, n);
}

ssize_t pread(int fd, void* buf, size_t n, off_t offset) {
  if (int e = InjectedError(kRead, "pread", fd, offset, n)) return Fail<ssize_t>(e);
  if (auto real = Real().pread) return real(fd, buf, n, offset);
  return syscall(SYS_pread64, fd, buf, n, offset);
}

ssize_t pread64(int fd, void* buf, size_t n, off64_t offset) {
  if (int e = InjectedError(kRead, "pread64", fd, offset, n)) return Fail<ssize_t>(e);
  if (auto real = Real().pread64) return real(fd, buf, n, offset);
  return syscall(SYS_pread64, fd, buf, n, offset);
}

ssize_t readv(int fd, const struct iovec* iov, int iovcnt) {
  if (int e = InjectedError(kRead, "readv", fd, kCurrentPosition, TotalLength(iov, iovcnt))) return Fail<ssize_t>(e);
  if (auto real = Real().readv) return real(fd, iov, iovcnt);
  return syscall(SYS_readv, fd, iov, iovcnt);
}

ssize_t preadv(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  if (int e = InjectedError(kRead, "preadv", fd, offset, TotalLength(iov, iovcnt))) return Fail<ssize_t>(e);
  if (auto real = Real().preadv) return real(fd, iov, iovcnt, offset);
  return syscall(SYS_preadv, fd, iov, iovcnt, offset, 0);
}

ssize_t preadv64(int fd, const struct iovec* iov, int iovcnt, off64_t offset) {
  if (int e = InjectedError(kRead, "preadv64", fd, offset, TotalLength(iov, iovcnt))) return Fail<ssize_t>(e);
  if (auto real = Real().preadv64) return real(fd, iov, iovcnt, offset);
  return syscall(SYS_preadv, fd, iov, iovcnt, offset, 0);
}

ssize_t write(int fd, const void* buf, size_t n) {
  if (int e = InjectedError(kWrite, "write", fd, kCurrentPosition, n)) return Fail<ssize_t>(e);
  if (auto real = Real().write) return real(fd, buf, n);
  return syscall(SYS_write, fd, buf, n);
}

ssize_t pwrite(int fd, const void* buf, size_t n, off_t offset) {
  if (int e = InjectedError(kWrite, "pwrite", fd, offset, n)) return Fail<ssize_t>(e);
  if (auto real = Real().pwrite) return real(fd, buf, n, offset);
  return syscall(SYS_pwrite64, fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t offset) {
  if (int e = InjectedError(kWrite, "pwrite64", fd, offset, n)) return Fail<ssize_t>(e);
  if (auto real = Real().pwrite64) return real(fd, buf, n, offset);
  return syscall(SYS_pwrite64, fd, buf, n, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  if (int e = InjectedError(kWrite, "writev", fd, kCurrentPosition, TotalLength(iov, iovcnt))) return Fail<ssize_t>(e);
  if (auto real = Real().writev) return real(fd, iov, iovcnt);
  return syscall(SYS_writev, fd, iov, iovcnt);
}

ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
  if (int e = InjectedError(kWrite, "pwritev", fd, offset, TotalLength(iov, iovcnt))) return Fail<ssize_t>(e);
  if (auto real = Real().pwritev) return real(fd, iov, iovcnt, offset);
  return syscall(SYS_pwritev, fd, iov, iovcnt, offset, 0);
}

ssize_t pwritev64(int fd, const struct iovec* iov, int iovcnt, off64_t offset) {
  if (int e = InjectedError(kWrite, "pwritev64", fd, offset, TotalLength(iov, iovcnt))) return Fail<ssize_t>(e);
  if (auto real = Real().pwritev64) return real(fd, iov, iovcnt, offset);
  return syscall(SYS_pwritev, fd, iov, iovcnt, offset, 0);
}

int fsync(int fd) {
  if (int e = InjectedError(kSync, "fsync", fd, 0, 0)) return Fail<int>(e);
  if (auto real = Real().fsync) return real(fd);
  return static_cast<int>(syscall(SYS_fsync, fd));
}

int fdatasync(int fd) {
  if (int e = InjectedError(kSync, "fdatasync", fd, 0, 0)) return Fail<int>(e);
  if (auto real = Real().fdatasync) return real(fd);
  return static_cast<int>(syscall(SYS_fdatasync, fd));
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) {
  if (int e = InjectedError(kSync, "sync_file_range", fd, 0, 0)) return Fail<int>(e);
  if (auto real = Real().sync_file_range) return real(fd, offset, nbytes, flags);
  return static_cast<int>(syscall(SYS_sync_file_range, fd, offset, nbytes, flags));
}

// sendfile, splice and copy_file_range: the file read from is checked against `sendfile`
// rules; a regular file written to (not a socket or a pipe) against `write` rules.
ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t count) {
  if (int e = InjectedError(kSendfile, "sendfile", in_fd, OffsetOrCurrent(offset), count)) return Fail<ssize_t>(e);
  if (int e = InjectedError(kWrite, "sendfile", out_fd, kCurrentPosition, count)) return Fail<ssize_t>(e);
  if (auto real = Real().sendfile) return real(out_fd, in_fd, offset, count);
  return syscall(SYS_sendfile, out_fd, in_fd, offset, count);
}

ssize_t sendfile64(int out_fd, int in_fd, off64_t* offset, size_t count) {
  if (int e = InjectedError(kSendfile, "sendfile64", in_fd, OffsetOrCurrent(offset), count)) return Fail<ssize_t>(e);
  if (int e = InjectedError(kWrite, "sendfile64", out_fd, kCurrentPosition, count)) return Fail<ssize_t>(e);
  if (auto real = Real().sendfile64) return real(out_fd, in_fd, offset, count);
  return syscall(SYS_sendfile, out_fd, in_fd, offset, count);
}

ssize_t splice(int fd_in, loff_t* off_in, int fd_out, loff_t* off_out, size_t len, unsigned int flags) {
  if (int e = InjectedError(kSendfile, "splice", fd_in, OffsetOrCurrent(off_in), len)) return Fail<ssize_t>(e);
  if (int e = InjectedError(kWrite, "splice", fd_out, OffsetOrCurrent(off_out), len)) return Fail<ssize_t>(e);
  if (auto real = Real().splice) return real(fd_in, off_in, fd_out, off_out, len, flags);
  return syscall(SYS_splice, fd_in, off_in, fd_out, off_out, len, flags);
}

ssize_t copy_file_range(int fd_in, loff_t* off_in, int fd_out, loff_t* off_out, size_t len, unsigned int flags) {
  if (int e = InjectedError(kSendfile, "copy_file_range", fd_in, OffsetOrCurrent(off_in), len)) {
    return Fail<ssize_t>(e);
  }
  if (int e = InjectedError(kWrite, "copy_file_range", fd_out, OffsetOrCurrent(off_out), len)) {
    return Fail<ssize_t>(e);
  }
  if (auto real = Real().copy_file_range) return real(fd_in, off_in, fd_out, off_out, len, flags);
  return syscall(SYS_copy_file_range, fd_in, off_in, fd_out, off_out, len, flags);
}

}  // extern "C"
