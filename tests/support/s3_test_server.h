#pragma once
// A real S3 server for tests: MinIO (installed by scripts/install-peers.sh, pinned and
// cached; its path in $STRATA_MINIO or the MINIO= line of
// ${STRATA_PEERS_DIR:-~/.cache/strata-peers}/peers.env) started on 127.0.0.1 with a free
// port and a data directory of the test's, and optionally the fault proxy
// (tests/objectstore/s3_fault_proxy.py) in front of it. Every process is stopped when
// the object goes. A missing MinIO fails the test that asks for one, naming the script
// that installs it (never a skip).
// Not thread-safe.

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "objectstore/s3_client.h"
#include "tests/support/temp_dir.h"

namespace strata::testing {

class S3TestServer {
 public:
  static constexpr char kAccessKey[] = "strata-test";
  static constexpr char kSecretKey[] = "strata-test-secret";
  static constexpr char kBucket[] = "strata-tiered";

  // Starts MinIO and creates kBucket (with_proxy: and the fault proxy).
  static absl::StatusOr<std::unique_ptr<S3TestServer>> Start(bool with_proxy = false);
  ~S3TestServer();

  // What clients use: the proxy's address when there is one, else MinIO's.
  std::string endpoint() const;
  // A client's options for kBucket at endpoint(), with short retry backoffs.
  objectstore::S3ClientOptions ClientOptions() const;
  std::string minio_endpoint() const;

  // The store down and up again (same port, same data).
  void StopMinio();
  absl::Status StartMinio();

  // Arms a fault in the proxy (its JSON, s3_fault_proxy.py); "{\"mode\":\"clear\"}" clears.
  absl::Status Fault(const std::string& json);
  // The proxy's counters (JSON).
  absl::StatusOr<std::string> ProxyStats();

 private:
  S3TestServer() = default;
  absl::Status StartProxy();

  TempDir tmp_;
  std::string minio_path_;
  int minio_port_ = 0;
  int proxy_port_ = 0;
  pid_t minio_pid_ = 0;
  pid_t proxy_pid_ = 0;
};

// The MinIO binary's path, or an error naming how to install it.
absl::StatusOr<std::string> MinioPath();

}  // namespace strata::testing
