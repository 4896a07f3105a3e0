#include "server/remote_storage_factory.h"

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "objectstore/credentials.h"
#include "objectstore/s3_remote_storage.h"
#include "storage/directory_remote_storage.h"

namespace strata::server {
namespace {

using namespace std::chrono_literals;

absl::StatusOr<OpenedRemoteStorage> OpenS3(const ServerConfig& config) {
  objectstore::CredentialSettings settings;
  settings.access_key_id = config.rsm_aws_access_key_id;
  settings.secret_access_key = config.rsm_aws_secret_access_key;
  settings.session_token = config.rsm_aws_session_token;
  auto credentials = objectstore::ResolveCredentials(settings);
  if (!credentials.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("rsm.config.storage.backend.class=s3: ", credentials.status().message()));
  }
  objectstore::S3ClientOptions options;
  options.endpoint = config.rsm_s3_endpoint_url;
  options.region = config.rsm_s3_region;
  options.bucket = config.rsm_s3_bucket;
  options.path_style = config.rsm_s3_path_style.empty() ? !config.rsm_s3_endpoint_url.empty()
                                                        : config.rsm_s3_path_style == "true";
  options.credentials = *credentials;
  options.http.max_connections = config.rsm_s3_max_connections;
  options.http.verify_tls = config.rsm_aws_certificate_check_enabled;
  options.http.ca_file = config.rsm_s3_ca_file;
  options.call_timeout = std::chrono::milliseconds(config.rsm_s3_api_call_timeout_ms);
  options.attempt_timeout = std::chrono::milliseconds(config.rsm_s3_api_call_attempt_timeout_ms);
  OpenedRemoteStorage out;
  out.description = absl::StrCat("s3://", options.bucket, "/", config.rsm_key_prefix, " at ",
                                 options.endpoint.empty() ? "AWS" : options.endpoint, " (credentials from ",
                                 credentials->source, ")");

  // One short look at the bucket: a refusal is a configuration error, worth failing on.
  objectstore::S3ClientOptions probe_options = options;
  probe_options.call_timeout = 5s;
  probe_options.attempt_timeout = 2s;
  objectstore::S3Client probe(probe_options);
  auto page = probe.ListObjectsV2(config.rsm_key_prefix, "", 1);
  if (absl::IsPermissionDenied(page.status()) || absl::IsNotFound(page.status()) ||
      absl::IsFailedPrecondition(page.status())) {
    return absl::FailedPreconditionError(absl::StrCat("the remote tier's bucket refused this broker: ", page.status().message()));
  }
  if (!page.ok()) {
    spdlog::warn("the remote tier's object store does not answer yet ({}): copies and remote reads retry",
                 std::string(page.status().message()));
  }

  objectstore::S3RemoteStorageOptions storage_options;
  storage_options.key_prefix = config.rsm_key_prefix;
  storage_options.chunk_bytes = static_cast<uint32_t>(config.rsm_chunk_size);
  storage_options.part_bytes = static_cast<uint64_t>(config.rsm_s3_multipart_upload_part_size);
  out.store = std::make_unique<objectstore::S3RemoteStorage>(
      *storage::FileOps::Default(), std::make_unique<objectstore::S3Client>(options), storage_options);
  return out;
}

}  // namespace

absl::StatusOr<OpenedRemoteStorage> OpenRemoteStorageManager(const ServerConfig& config) {
  if (config.s3_backend()) return OpenS3(config);
  OpenedRemoteStorage out;
  out.store = std::make_unique<storage::DirectoryRemoteStorage>(*storage::FileOps::Default(),
                                                                config.remote_log_storage_path,
                                                                static_cast<uint32_t>(config.rsm_chunk_size));
  out.description = config.remote_log_storage_path;
  return out;
}

}  // namespace strata::server
