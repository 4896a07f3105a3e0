// JwksSource (security/jwks_source.h) with real files and a real HTTP(S) server (Python's
// http.server on 127.0.0.1, over TLS with a certificate made by tools/strata-certs):
// a key added to the set is picked up in the background soon after a token names it,
// without Get ever waiting for a read; a set fetched over https is checked against the
// CA given, and a server of another CA, a missing document, an unreachable endpoint and
// a malformed set are each refused at Open with the reason; a failed read later keeps the
// last good set.

#include "security/jwks_source.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <fstream>

#include "tests/support/free_port.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_certs.h"
#include "tests/support/test_jwt.h"
#include "tests/support/wait.h"

extern char** environ;

namespace strata::security {
namespace {

using namespace std::chrono_literals;
using testing::Rsa;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

std::string SetOf(std::initializer_list<const testing::TestKey*> keys) {
  nlohmann::json set = {{"keys", nlohmann::json::array()}};
  for (const testing::TestKey* k : keys) set["keys"].push_back(k->Jwk());
  return set.dump();
}

// python3's http.server serving `dir` on 127.0.0.1:port, over TLS with `keystore` (a PEM
// key and certificate) unless it is empty; stopped (SIGKILL) when destroyed.
class HttpServer {
 public:
  HttpServer(const std::string& dir, const std::string& keystore) : port_(testing::FreePort()) {
    static const char* kScript =
        "import functools, http.server, ssl, sys\n"
        "class Quiet(http.server.SimpleHTTPRequestHandler):\n"
        "    def log_message(self, *args): pass\n"
        "server = http.server.ThreadingHTTPServer(('127.0.0.1', int(sys.argv[2])),\n"
        "                                         functools.partial(Quiet, directory=sys.argv[1]))\n"
        "if sys.argv[3]:\n"
        "    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
        "    context.load_cert_chain(sys.argv[3])\n"
        "    server.socket = context.wrap_socket(server.socket, server_side=True)\n"
        "server.serve_forever()\n";
    std::string port = std::to_string(port_);
    const char* argv[] = {"/usr/bin/python3", "-c", kScript, dir.c_str(), port.c_str(), keystore.c_str(), nullptr};
    EXPECT_EQ(posix_spawn(&pid_, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ), 0);
    EXPECT_TRUE(testing::WaitUntil([&] { return Accepts(); }, 20s)) << "the server did not listen on " << port_;
  }
  ~HttpServer() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  int port() const { return port_; }

 private:
  bool Accepts() const {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port_));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    close(fd);
    return ok;
  }
  int port_;
  pid_t pid_ = -1;
};

class JwksSourceTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
  std::unique_ptr<testing::TestKey> first_ = Rsa("first");
  std::unique_ptr<testing::TestKey> second_ = Rsa("second");
};

TEST_F(JwksSourceTest, AKeyAddedToTheFileIsPickedUpSoonAfterATokenNamesIt) {
  const std::string path = dir_.Sub("jwks.json");
  WriteFile(path, SetOf({first_.get()}));
  auto source = JwksSource::Open("file://" + path, std::chrono::hours(1));
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_NE((*source)->Get("first")->Find("first"), nullptr);
  WriteFile(path, SetOf({first_.get(), second_.get()}));
  // A token naming the new key asks for a read; Get answers at once from the set it has.
  EXPECT_EQ((*source)->Get("second")->Find("second"), nullptr);
  EXPECT_TRUE(testing::WaitUntil([&] { return (*source)->Get("second")->Find("second") != nullptr; }, 10s));
  EXPECT_GE((*source)->reads(), 1);
}

TEST_F(JwksSourceTest, AFailedReadKeepsTheLastGoodSet) {
  const std::string path = dir_.Sub("jwks.json");
  WriteFile(path, SetOf({first_.get()}));
  auto source = JwksSource::Open(path, 1000ms);
  ASSERT_TRUE(source.ok()) << source.status();
  WriteFile(path, "{not json");
  ASSERT_TRUE(testing::WaitUntil([&] { return (*source)->failed_reads() >= 1; }, 10s));
  EXPECT_NE((*source)->Get("first")->Find("first"), nullptr);
  EXPECT_EQ((*source)->reads(), 0);
}

TEST_F(JwksSourceTest, AnHttpsEndpointIsCheckedAgainstTheCaGiven) {
  testing::TestCerts certs;
  const std::string keystore = certs.Make("jwks-server", "--broker 1");  // names 127.0.0.1
  certs.Make("stranger", "--broker 1 --ca other");
  WriteFile(dir_.Sub("jwks.json"), SetOf({first_.get()}));
  HttpServer server(dir_.path(), keystore);
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/jwks.json";

  auto source = JwksSource::Open(url, std::chrono::hours(1), HttpGetOptions{.ca_file = certs.Ca()});
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_NE((*source)->Get("first")->Find("first"), nullptr);

  auto other_ca = JwksSource::Open(url, std::chrono::hours(1), HttpGetOptions{.ca_file = certs.Ca("other")});
  ASSERT_FALSE(other_ca.ok());
  EXPECT_EQ(other_ca.status().code(), absl::StatusCode::kUnavailable) << other_ca.status();
  EXPECT_NE(other_ca.status().message().find(url), std::string::npos) << other_ca.status();

  auto missing = JwksSource::Open("https://127.0.0.1:" + std::to_string(server.port()) + "/none.json",
                                  std::chrono::hours(1), HttpGetOptions{.ca_file = certs.Ca()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("HTTP status 404"), std::string::npos) << missing.status();
}

TEST_F(JwksSourceTest, AnHttpEndpointRotatesAndBadOnesAreRefusedAtOpen) {
  WriteFile(dir_.Sub("jwks.json"), SetOf({first_.get()}));
  WriteFile(dir_.Sub("bad.json"), "{\"keys\": 7}");
  HttpServer server(dir_.path(), "");
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  auto source = JwksSource::Open(base + "/jwks.json", std::chrono::hours(1));
  ASSERT_TRUE(source.ok()) << source.status();
  WriteFile(dir_.Sub("jwks.json"), SetOf({second_.get()}));
  EXPECT_TRUE(testing::WaitUntil([&] { return (*source)->Get("second")->Find("second") != nullptr; }, 10s));

  auto malformed = JwksSource::Open(base + "/bad.json", std::chrono::hours(1));
  EXPECT_EQ(malformed.status().code(), absl::StatusCode::kInvalidArgument) << malformed.status();
  auto unreachable = JwksSource::Open("http://127.0.0.1:" + std::to_string(testing::FreePort()) + "/jwks.json",
                                      std::chrono::hours(1));
  EXPECT_EQ(unreachable.status().code(), absl::StatusCode::kUnavailable) << unreachable.status();
  auto ftp = JwksSource::Open("ftp://127.0.0.1/jwks.json", std::chrono::hours(1));
  EXPECT_EQ(ftp.status().code(), absl::StatusCode::kInvalidArgument) << ftp.status();
}

}  // namespace
}  // namespace strata::security
