#pragma once
// The broker's RemoteStorageManager, as rsm.config.storage.backend.class chooses it: the
// directory store over remote.log.storage.path, or the S3 store over
// rsm.config.storage.s3.* with credentials from the settings, the environment or the
// shared credentials file (objectstore/credentials.h). An S3 store is asked once at start
// for one key of its bucket and prefix: a refusal (bad credentials, no such bucket) fails
// the start with S3's reason; an unreachable store only warns — the broker serves its
// local data and the remote log manager retries.
// Thread-safe (a function).

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/server_config.h"
#include "storage/remote_storage_manager.h"

namespace strata::server {

struct OpenedRemoteStorage {
  std::unique_ptr<storage::RemoteStorageManager> store;
  std::string description;  // where the objects go, for the log
};

absl::StatusOr<OpenedRemoteStorage> OpenRemoteStorageManager(const ServerConfig& config);

}  // namespace strata::server
