#include "tests/support/s3_test_server.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "objectstore/http_pool.h"
#include "objectstore/s3_client.h"
#include "tests/support/free_port.h"
#include "tests/support/wait.h"

extern char** environ;

namespace strata::testing {
namespace {

using namespace std::chrono_literals;

pid_t Spawn(const std::vector<std::string>& args, const std::vector<std::string>& extra_env, const std::string& log) {
  std::vector<std::string> env_strings(extra_env);
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  std::vector<char*> env;
  for (std::string& s : env_strings) env.push_back(s.data());
  env.push_back(nullptr);
  std::vector<std::string> arg_strings(args);
  std::vector<char*> argv;
  for (std::string& s : arg_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

void Stop(pid_t* pid) {
  if (*pid <= 0) return;
  kill(*pid, SIGKILL);
  waitpid(*pid, nullptr, 0);
  *pid = 0;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

absl::StatusOr<objectstore::HttpResponse> Http(const std::string& method, const std::string& url,
                                               const std::string& body = "") {
  static objectstore::HttpPool pool(objectstore::HttpPoolOptions{});
  objectstore::HttpRequest request;
  request.method = method;
  request.url = url;
  request.body = body;
  request.timeout = 5s;
  return pool.Exchange(request);
}

}  // namespace

absl::StatusOr<std::string> MinioPath() {
  if (const char* path = std::getenv("STRATA_MINIO"); path != nullptr && *path != '\0') return std::string(path);
  std::string dir;
  if (const char* d = std::getenv("STRATA_PEERS_DIR"); d != nullptr && *d != '\0') {
    dir = d;
  } else if (const char* home = std::getenv("HOME"); home != nullptr) {
    dir = absl::StrCat(home, "/.cache/strata-peers");
  }
  std::ifstream env(dir + "/peers.env");
  std::string line;
  while (std::getline(env, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "MINIO=")) continue;
    std::string path(rest);
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return absl::FailedPreconditionError(absl::StrCat("no MinIO in ", dir,
                                                    "/peers.env: run scripts/install-peers.sh (or set STRATA_MINIO)"));
}

absl::StatusOr<std::unique_ptr<S3TestServer>> S3TestServer::Start(bool with_proxy) {
  auto path = MinioPath();
  if (!path.ok()) return path.status();
  std::unique_ptr<S3TestServer> server(new S3TestServer());
  server->minio_path_ = *path;
  server->minio_port_ = FreePort();
  if (auto s = server->StartMinio(); !s.ok()) return s;
  if (with_proxy) {
    if (auto s = server->StartProxy(); !s.ok()) return s;
  }
  objectstore::S3ClientOptions options;
  options.endpoint = server->minio_endpoint();
  options.bucket = kBucket;
  options.path_style = true;
  options.credentials.access_key_id = kAccessKey;
  options.credentials.secret_access_key = kSecretKey;
  options.call_timeout = 20s;
  objectstore::S3Client client(options);
  if (auto s = client.CreateBucket(); !s.ok()) return s;
  return server;
}

S3TestServer::~S3TestServer() {
  Stop(&proxy_pid_);
  Stop(&minio_pid_);
}

std::string S3TestServer::minio_endpoint() const { return absl::StrCat("http://127.0.0.1:", minio_port_); }

std::string S3TestServer::endpoint() const {
  return proxy_port_ != 0 ? absl::StrCat("http://127.0.0.1:", proxy_port_) : minio_endpoint();
}

objectstore::S3ClientOptions S3TestServer::ClientOptions() const {
  objectstore::S3ClientOptions options;
  options.endpoint = endpoint();
  options.bucket = kBucket;
  options.path_style = true;
  options.credentials.access_key_id = kAccessKey;
  options.credentials.secret_access_key = kSecretKey;
  options.retry_backoff = 10ms;
  options.retry_backoff_max = 100ms;
  options.call_timeout = 20s;
  return options;
}

void S3TestServer::StopMinio() { Stop(&minio_pid_); }

absl::Status S3TestServer::StartMinio() {
  const std::string log = tmp_.Sub("minio.log");
  minio_pid_ = Spawn({minio_path_, "server", "--quiet", "--address", absl::StrCat("127.0.0.1:", minio_port_),
                      tmp_.Sub("data")},
                     {absl::StrCat("MINIO_ROOT_USER=", kAccessKey), absl::StrCat("MINIO_ROOT_PASSWORD=", kSecretKey),
                      "MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CI_CD=1", "MINIO_DOMAIN=localhost"},
                     log);
  if (minio_pid_ <= 0) return absl::InternalError(absl::StrCat("cannot start ", minio_path_));
  const std::string health = absl::StrCat(minio_endpoint(), "/minio/health/live");
  bool up = WaitUntil([&] {
    auto r = Http("GET", health);
    return r.ok() && r->status == 200;
  }, 60s);
  if (!up) return absl::DeadlineExceededError(absl::StrCat("MinIO did not answer on ", health, ": ", Slurp(log)));
  return absl::OkStatus();
}

absl::Status S3TestServer::StartProxy() {
  proxy_port_ = FreePort();
  const std::string proxy = absl::StrCat(STRATA_SOURCE_DIR, "/tests/objectstore/s3_fault_proxy.py");
  proxy_pid_ = Spawn({"/usr/bin/python3", proxy, "--listen", absl::StrCat(proxy_port_), "--target",
                      absl::StrCat("127.0.0.1:", minio_port_)},
                     {}, tmp_.Sub("proxy.log"));
  if (proxy_pid_ <= 0) return absl::InternalError("cannot start the fault proxy");
  bool up = WaitUntil([&] {
    auto r = Http("GET", absl::StrCat(endpoint(), "/__stats"));
    return r.ok() && r->status == 200;
  }, 30s);
  if (!up) return absl::DeadlineExceededError(absl::StrCat("the fault proxy did not start: ", Slurp(tmp_.Sub("proxy.log"))));
  return absl::OkStatus();
}

absl::Status S3TestServer::Fault(const std::string& json) {
  auto r = Http("POST", absl::StrCat(endpoint(), "/__fault"), json);
  if (!r.ok()) return r.status();
  if (r->status != 200) return absl::InternalError(absl::StrCat("the fault proxy answered ", r->status));
  return absl::OkStatus();
}

absl::StatusOr<std::string> S3TestServer::ProxyStats() {
  auto r = Http("GET", absl::StrCat(endpoint(), "/__stats"));
  if (!r.ok()) return r.status();
  return r->body;
}

}  // namespace strata::testing
