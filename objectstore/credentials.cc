#include "objectstore/credentials.h"

#include <cstdlib>
#include <fstream>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace strata::objectstore {
namespace {

std::optional<std::string> SystemEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

absl::StatusOr<std::optional<Credentials>> Pair(const std::string& id, const std::string& secret,
                                                const std::string& token, const std::string& source) {
  if (id.empty() && secret.empty()) return std::optional<Credentials>();
  if (id.empty() || secret.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, " has ", id.empty() ? "a secret access key without an access key id"
                                                 : "an access key id without a secret access key"));
  }
  Credentials out;
  out.access_key_id = id;
  out.secret_access_key = secret;
  out.session_token = token;
  out.source = source;
  return std::optional<Credentials>(std::move(out));
}

// The [profile] section of an INI-style credentials file: key = value lines.
absl::StatusOr<std::map<std::string, std::string>> ReadProfile(const std::string& path, const std::string& profile,
                                                                bool* found_file) {
  std::ifstream in(path);
  *found_file = in.good();
  std::map<std::string, std::string> out;
  if (!*found_file) return out;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      inside = absl::StripAsciiWhitespace(text.substr(1, text.size() - 2)) == profile;
      continue;
    }
    if (!inside) continue;
    size_t eq = text.find('=');
    if (eq == absl::string_view::npos) continue;
    out[std::string(absl::StripAsciiWhitespace(text.substr(0, eq)))] =
        std::string(absl::StripAsciiWhitespace(text.substr(eq + 1)));
  }
  return out;
}

}  // namespace

absl::StatusOr<Credentials> ResolveCredentials(const CredentialSettings& settings,
                                               const std::function<std::optional<std::string>(const char*)>& getenv) {
  auto env = [&](const char* name) -> std::string {
    std::optional<std::string> v = getenv ? getenv(name) : SystemEnv(name);
    return v.value_or("");
  };
  auto from_settings = Pair(settings.access_key_id, settings.secret_access_key, settings.session_token,
                            "the settings (rsm.config.storage.aws.*)");
  if (!from_settings.ok()) return from_settings.status();
  if (*from_settings) return **from_settings;

  auto from_env = Pair(env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"), env("AWS_SESSION_TOKEN"),
                       "the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
  if (!from_env.ok()) return from_env.status();
  if (*from_env) return **from_env;

  std::string path = env("AWS_SHARED_CREDENTIALS_FILE");
  if (path.empty() && !env("HOME").empty()) path = env("HOME") + "/.aws/credentials";
  std::string profile = env("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  if (!path.empty()) {
    bool found_file = false;
    auto values = ReadProfile(path, profile, &found_file);
    if (!values.ok()) return values.status();
    if (found_file) {
      auto from_file = Pair((*values)["aws_access_key_id"], (*values)["aws_secret_access_key"],
                            (*values)["aws_session_token"], absl::StrCat(path, " [", profile, "]"));
      if (!from_file.ok()) return from_file.status();
      if (*from_file) return **from_file;
    }
  }
  return absl::NotFoundError(absl::StrCat(
      "no S3 credentials: none in the settings (rsm.config.storage.aws.access.key.id and .secret.access.key), "
      "none in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, and no profile [",
      profile, "] in ", path.empty() ? "~/.aws/credentials (HOME unset)" : path));
}

}  // namespace strata::objectstore
