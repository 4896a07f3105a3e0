// The RemoteStorageManager's settings (server_config.h: RemoteStorageSettings,
// CheckRemoteStorageSettings): Kafka hands every rsm.config.* setting to its RSM
// (remote.log.storage.manager.impl.prefix), and the RSM Kafka operators run most is
// Aiven's tiered-storage plugin, so these are its names. Strata's own additions under the
// same prefix: storage.aws.session.token, storage.s3.ca.file, storage.s3.max.connections.
// The fetch.chunk.cache.* settings serve both backends (broker/tiered/remote_chunk_cache.h).

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "server/server_config.h"
#include "server/setting_rows.h"

namespace strata::server {
namespace {

using namespace setting_rows;  // NOLINT: the table's vocabulary

// Aiven's backend classes name the same two stores.
absl::StatusOr<std::string> Backend(const std::string& value) {
  if (value == "filesystem" || value == "io.aiven.kafka.tieredstorage.storage.filesystem.FileSystemStorage") {
    return std::string("filesystem");
  }
  if (value == "s3" || value == "io.aiven.kafka.tieredstorage.storage.s3.S3Storage") return std::string("s3");
  return absl::InvalidArgumentError(absl::StrCat("'", value, "' is not filesystem or s3"));
}

absl::Status EndpointUrl(const std::string& value) {
  if (value.empty()) return absl::OkStatus();
  size_t scheme = value.find("://");
  const bool http = absl::StartsWith(value, "http://") || absl::StartsWith(value, "https://");
  const std::string rest = scheme == std::string::npos ? "" : value.substr(scheme + 3);
  const size_t slash = rest.find('/');
  if (!http || rest.empty() || (slash != std::string::npos && slash != rest.size() - 1)) {
    return Bad(absl::StrCat(" = '", value, "' must be http://host[:port] or https://host[:port]"));
  }
  return absl::OkStatus();
}

absl::Status PathStyle(const std::string& value) {
  if (value.empty() || value == "true" || value == "false") return absl::OkStatus();
  return Bad(absl::StrCat(" = '", value, "' must be true, false or empty (automatic)"));
}

}  // namespace

std::vector<ServerSetting> RemoteStorageSettings() {
  using C = ServerConfig;
  return {
      Custom("rsm.config.storage.backend.class", "string", kBroker, false,
             "filesystem, s3 (or Aiven's class names for them)",
             "the remote tier's store: filesystem (remote.log.storage.path, a directory every broker reaches) or "
             "s3 (an S3-compatible object store, rsm.config.storage.s3.*)",
             [](const ServerConfig& c) { return c.rsm_backend; },
             [](const std::string& v, ServerConfig& c) -> absl::Status {
               auto backend = Backend(v);
               if (!backend.ok()) return Bad(absl::StrCat(": ", backend.status().message()));
               c.rsm_backend = *backend;
               return absl::OkStatus();
             }),
      String("rsm.config.key.prefix", &C::rsm_key_prefix, kBroker, "",
             "what every object key of the remote tier starts with (one bucket may then hold several clusters)"),
      Int("rsm.config.chunk.size", &C::rsm_chunk_size, 1, 1073741823, kBroker,
          "bytes of segment data per checksum in a remote object; a ranged read fetches and verifies whole chunks"),
      String("rsm.config.storage.s3.bucket.name", &C::rsm_s3_bucket, kBroker, "a bucket name",
             "the S3 bucket of the remote tier; required with the s3 backend"),
      String("rsm.config.storage.s3.region", &C::rsm_s3_region, kBroker, "", "the S3 region the requests are signed for"),
      String("rsm.config.storage.s3.endpoint.url", &C::rsm_s3_endpoint_url, kBroker, "http(s)://host[:port]",
             "the S3 endpoint; empty: AWS's, https://s3.<region>.amazonaws.com", EndpointUrl),
      String("rsm.config.storage.s3.path.style.access.enabled", &C::rsm_s3_path_style, kBroker, "true, false, empty",
             "true: http://host/bucket/key; false: http://bucket.host/key (virtual-hosted, AWS's); empty: path style "
             "with an endpoint.url, virtual-hosted without one",
             PathStyle),
      String("rsm.config.storage.aws.access.key.id", &C::rsm_aws_access_key_id, kBroker, "",
             "the S3 access key id; empty: AWS_ACCESS_KEY_ID, then the shared credentials file "
             "(AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, profile AWS_PROFILE or default)"),
      String("rsm.config.storage.aws.secret.access.key", &C::rsm_aws_secret_access_key, kBroker, "",
             "the S3 secret access key (sensitive), with the access key id"),
      String("rsm.config.storage.aws.session.token", &C::rsm_aws_session_token, kBroker, "",
             "a session token for temporary credentials (sensitive); empty: AWS_SESSION_TOKEN with environment "
             "credentials, or aws_session_token in the credentials file"),
      Bool("rsm.config.storage.aws.certificate.check.enabled", &C::rsm_aws_certificate_check_enabled, kBroker,
           "whether an https endpoint's certificate and host name are checked (false only for tests)"),
      String("rsm.config.storage.s3.ca.file", &C::rsm_s3_ca_file, kBroker, "a PEM file",
             "CA certificates for an https endpoint; empty: the system's"),
      Int("rsm.config.storage.s3.multipart.upload.part.size", &C::rsm_s3_multipart_upload_part_size, 5 << 20,
          INT32_MAX, kBroker,
          "bytes per part of a multipart upload (an object larger than one part goes up in parts); each copy "
          "holds one part in memory"),
      Int("rsm.config.storage.s3.api.call.timeout", &C::rsm_s3_api_call_timeout_ms, 1, INT32_MAX, kBroker,
          "milliseconds an S3 call may take with its retries (backoff with jitter on 5xx, SlowDown, resets, "
          "timeouts) before it fails"),
      Int("rsm.config.storage.s3.api.call.attempt.timeout", &C::rsm_s3_api_call_attempt_timeout_ms, 1, INT32_MAX,
          kBroker, "milliseconds one attempt of an S3 call may take"),
      Int("rsm.config.storage.s3.max.connections", &C::rsm_s3_max_connections, 1, 1024, kBroker,
          "connections a broker keeps open to the S3 endpoint at most (calls beyond wait for one)"),
      String("rsm.config.fetch.chunk.cache.path", &C::rsm_fetch_chunk_cache_path, kBroker, "a directory",
             "where the blocks of remote segments read by fetches are kept (emptied at start); empty: "
             "remote-chunk-cache in the first of log.dirs"),
      Int("rsm.config.fetch.chunk.cache.size", &C::rsm_fetch_chunk_cache_size, 1, INT64_MAX, kBroker,
          "bytes of remote segment blocks the chunk cache keeps at most (least recently read out first)"),
      Int("rsm.config.fetch.chunk.cache.prefetch.max.size", &C::rsm_fetch_chunk_cache_prefetch_max_size, 0,
          INT64_MAX, kBroker,
          "bytes of remote segment blocks fetched ahead of a consumer that reads on (0: none)"),
  };
}

absl::Status CheckRemoteStorageSettings(const ServerConfig& config,
                                        const std::function<std::string(const std::string&)>& where) {
  if (!config.broker || !config.remote_log_storage_system_enable) return absl::OkStatus();
  if (!config.s3_backend() && config.remote_log_storage_path.empty()) {
    return Bad(absl::StrCat(where("remote.log.storage.system.enable"),
                            " needs remote.log.storage.path (the directory every broker reaches), or "
                            "rsm.config.storage.backend.class=s3"));
  }
  if (config.s3_backend() && config.rsm_s3_bucket.empty()) {
    return Bad(absl::StrCat(where("rsm.config.storage.backend.class"), " = s3 needs rsm.config.storage.s3.bucket.name"));
  }
  return absl::OkStatus();
}

}  // namespace strata::server
