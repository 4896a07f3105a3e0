#pragma once
// SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka uses them (KIP-84):
// the credential a cluster keeps for a user (salt, stored key, server key, iterations;
// never the password), made from a password or from a salted password (what
// AlterUserScramCredentials carries), and both sides of the exchange. The server checks
// the client's proof against the stored key and proves itself with the server key.
// Usernames travel as RFC 5802 saslnames ("=" as "=3D", "," as "=2C"). Kafka's
// iteration bounds: 4096..16384.
// Not thread-safe: one ScramServer or ScramClient per exchange; the functions are.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace strata::security {

enum class ScramMechanism : int8_t { kSha256 = 1, kSha512 = 2 };  // Kafka's mechanism numbers

inline constexpr int32_t kScramMinIterations = 4096;
inline constexpr int32_t kScramMaxIterations = 16384;

std::optional<ScramMechanism> ScramMechanismNamed(absl::string_view name);  // "SCRAM-SHA-256", ...
absl::string_view ScramMechanismName(ScramMechanism mechanism);

struct ScramCredential {
  std::string salt;
  std::string stored_key;  // H(ClientKey)
  std::string server_key;  // HMAC(SaltedPassword, "Server Key")
  int32_t iterations = 0;
  bool operator==(const ScramCredential&) const = default;
};

// Hi(password, salt, iterations): PBKDF2 with the mechanism's HMAC.
std::string SaltedPassword(ScramMechanism mechanism, absl::string_view password, absl::string_view salt,
                           int32_t iterations);
ScramCredential CredentialFromSaltedPassword(ScramMechanism mechanism, absl::string_view salt,
                                             absl::string_view salted_password, int32_t iterations);
// A fresh random salt of the mechanism's digest size.
std::string RandomSalt(ScramMechanism mechanism);

class ScramServer {
 public:
  // The user's credential for this mechanism, or nullopt for an unknown user.
  using Lookup = std::function<std::optional<ScramCredential>(const std::string& username)>;
  // nonce: the server's part of the nonce (tests give RFC 7677's; default: 24 random
  // bytes in base64).
  ScramServer(ScramMechanism mechanism, Lookup lookup, std::function<std::string()> nonce = nullptr);

  // The next server message for a client message (client-first, then client-final), or
  // an error when authentication fails; its message names nothing of the user.
  absl::StatusOr<std::string> Step(absl::string_view client_message);
  bool complete() const { return state_ == State::kComplete; }
  // The authenticated user, once complete.
  const std::string& username() const { return username_; }

 private:
  enum class State { kFirst, kFinal, kComplete, kFailed };
  absl::StatusOr<std::string> First(absl::string_view message);
  absl::StatusOr<std::string> Final(absl::string_view message);
  absl::Status Fail();

  const ScramMechanism mechanism_;
  const Lookup lookup_;
  const std::function<std::string()> make_nonce_;
  State state_ = State::kFirst;
  std::string username_;
  std::string client_first_bare_;
  std::string server_first_;
  std::string nonce_;
  ScramCredential credential_;
};

// The client's side (the brokers' own connections, the tests).
class ScramClient {
 public:
  // nonce: the client's nonce (tests give RFC 7677's; default: random).
  ScramClient(ScramMechanism mechanism, std::string username, std::string password, std::string nonce = {});
  std::string FirstMessage();
  // The client-final message for the server-first message.
  absl::StatusOr<std::string> FinalMessage(absl::string_view server_first);
  // Checks the server's signature in the server-final message.
  absl::Status Verify(absl::string_view server_final);

 private:
  const ScramMechanism mechanism_;
  const std::string username_;
  const std::string password_;
  std::string nonce_;
  std::string client_first_bare_;
  std::string auth_message_;
  std::string salted_password_;
};

}  // namespace strata::security
