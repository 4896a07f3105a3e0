#pragma once
// Where the S3 client's credentials come from, the AWS SDKs' order, first found wins:
//   1. the settings (rsm.config.storage.aws.access.key.id / .secret.access.key, and
//      Strata's .aws.session.token);
//   2. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN;
//   3. the shared credentials file: AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials,
//      the profile AWS_PROFILE names, else [default] (aws_access_key_id,
//      aws_secret_access_key, aws_session_token).
// A source that names only half a key pair is an error naming it, not a fall-through.
// Thread-safe (stateless; reads the environment and the file when called).

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"

namespace strata::objectstore {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty: none (long-term keys)
  std::string source;         // where they came from, for the log (never the secret)
};

struct CredentialSettings {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
};

// getenv: the environment (tests pass their own).
absl::StatusOr<Credentials> ResolveCredentials(
    const CredentialSettings& settings,
    const std::function<std::optional<std::string>(const char*)>& getenv = nullptr);

}  // namespace strata::objectstore
