#include "security/scram.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "security/constant_time.h"

namespace strata::security {
namespace {

const EVP_MD* Digest(ScramMechanism m) { return m == ScramMechanism::kSha256 ? EVP_sha256() : EVP_sha512(); }

std::string Hmac(ScramMechanism m, absl::string_view key, absl::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  ABSL_CHECK(HMAC(Digest(m), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
                  data.size(), out, &n) != nullptr);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Hash(ScramMechanism m, absl::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  ABSL_CHECK_EQ(EVP_Digest(data.data(), data.size(), out, &n, Digest(m), nullptr), 1);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string Xor(absl::string_view a, absl::string_view b) {
  ABSL_CHECK_EQ(a.size(), b.size());
  std::string out(a.size(), '\0');
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<char>(a[i] ^ b[i]);
  return out;
}

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  ABSL_CHECK_EQ(RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)), 1);
  return out;
}

std::string Nonce() {
  std::string nonce = absl::Base64Escape(RandomBytes(24));  // 32 printable characters, no comma
  return nonce;
}

std::string ToSaslName(absl::string_view name) { return absl::StrReplaceAll(name, {{"=", "=3D"}, {",", "=2C"}}); }

std::optional<std::string> FromSaslName(absl::string_view name) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == ',') return std::nullopt;
    if (name[i] != '=') {
      out.push_back(name[i]);
    } else if (name.substr(i, 3) == "=3D") {
      out.push_back('=');
      i += 2;
    } else if (name.substr(i, 3) == "=2C") {
      out.push_back(',');
      i += 2;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// "k=v" attributes of a SCRAM message, in order.
std::vector<std::pair<char, std::string>> Attributes(absl::string_view message) {
  std::vector<std::pair<char, std::string>> out;
  for (absl::string_view part : absl::StrSplit(message, ',')) {
    if (part.size() < 2 || part[1] != '=') return {};
    out.emplace_back(part[0], std::string(part.substr(2)));
  }
  return out;
}

}  // namespace

std::optional<ScramMechanism> ScramMechanismNamed(absl::string_view name) {
  if (name == "SCRAM-SHA-256") return ScramMechanism::kSha256;
  if (name == "SCRAM-SHA-512") return ScramMechanism::kSha512;
  return std::nullopt;
}

absl::string_view ScramMechanismName(ScramMechanism m) {
  return m == ScramMechanism::kSha256 ? "SCRAM-SHA-256" : "SCRAM-SHA-512";
}

std::string SaltedPassword(ScramMechanism m, absl::string_view password, absl::string_view salt, int32_t iterations) {
  std::string out(static_cast<size_t>(EVP_MD_get_size(Digest(m))), '\0');
  ABSL_CHECK_EQ(PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                                  reinterpret_cast<const unsigned char*>(salt.data()), static_cast<int>(salt.size()),
                                  iterations, Digest(m), static_cast<int>(out.size()),
                                  reinterpret_cast<unsigned char*>(out.data())),
                1);
  return out;
}

ScramCredential CredentialFromSaltedPassword(ScramMechanism m, absl::string_view salt, absl::string_view salted,
                                             int32_t iterations) {
  ScramCredential c;
  c.salt = std::string(salt);
  c.stored_key = Hash(m, Hmac(m, salted, "Client Key"));
  c.server_key = Hmac(m, salted, "Server Key");
  c.iterations = iterations;
  return c;
}

std::string RandomSalt(ScramMechanism m) { return RandomBytes(static_cast<size_t>(EVP_MD_get_size(Digest(m)))); }

ScramServer::ScramServer(ScramMechanism mechanism, Lookup lookup, std::function<std::string()> nonce)
    : mechanism_(mechanism), lookup_(std::move(lookup)), make_nonce_(nonce ? std::move(nonce) : Nonce) {}

absl::Status ScramServer::Fail() {
  state_ = State::kFailed;
  return absl::UnauthenticatedError(absl::StrCat("Authentication failed during authentication due to invalid "
                                                 "credentials with SASL mechanism ",
                                                 ScramMechanismName(mechanism_)));
}

absl::StatusOr<std::string> ScramServer::Step(absl::string_view message) {
  switch (state_) {
    case State::kFirst:
      return First(message);
    case State::kFinal:
      return Final(message);
    default:
      return Fail();
  }
}

absl::StatusOr<std::string> ScramServer::First(absl::string_view message) {
  // gs2-header: "n,," or "n,a=<authzid>," (no channel binding: Kafka has none).
  if (!absl::ConsumePrefix(&message, "n,") && !absl::ConsumePrefix(&message, "y,")) return Fail();
  size_t comma = message.find(',');
  if (comma == absl::string_view::npos) return Fail();
  absl::string_view authzid = message.substr(0, comma);
  client_first_bare_ = std::string(message.substr(comma + 1));
  auto attributes = Attributes(client_first_bare_);
  if (attributes.size() < 2 || attributes[0].first != 'n' || attributes[1].first != 'r') return Fail();
  std::optional<std::string> user = FromSaslName(attributes[0].second);
  if (!user.has_value() || user->empty() || attributes[1].second.empty()) return Fail();
  if (!authzid.empty() && authzid != absl::StrCat("a=", ToSaslName(*user))) return Fail();
  // Extensions (Kafka's tokenauth=true, for delegation tokens, which Strata has not) do
  // not parse as attributes: such a message fails above.
  std::optional<ScramCredential> credential = lookup_(*user);
  if (!credential.has_value()) return Fail();
  username_ = *user;
  credential_ = *std::move(credential);
  nonce_ = attributes[1].second + make_nonce_();
  server_first_ = absl::StrCat("r=", nonce_, ",s=", absl::Base64Escape(credential_.salt), ",i=", credential_.iterations);
  state_ = State::kFinal;
  return server_first_;
}

absl::StatusOr<std::string> ScramServer::Final(absl::string_view message) {
  size_t proof_at = message.rfind(",p=");
  if (proof_at == absl::string_view::npos) return Fail();
  absl::string_view without_proof = message.substr(0, proof_at);
  std::string proof;
  if (!absl::Base64Unescape(message.substr(proof_at + 3), &proof)) return Fail();
  auto attributes = Attributes(without_proof);
  if (attributes.size() < 2 || attributes[0].first != 'c' || attributes[1].first != 'r') return Fail();
  std::string gs2;
  if (!absl::Base64Unescape(attributes[0].second, &gs2) || (gs2 != "n,," && !absl::StartsWith(gs2, "n,a=") &&
                                                           !absl::StartsWith(gs2, "y,"))) {
    return Fail();
  }
  // Kafka checks that the nonce ends with the server's (librdkafka before 2.x repeats
  // its own nonce in front of it); the proof, over the message as sent, decides.
  if (!absl::EndsWith(attributes[1].second, nonce_)) return Fail();
  std::string auth_message = absl::StrCat(client_first_bare_, ",", server_first_, ",", without_proof);
  std::string signature = Hmac(mechanism_, credential_.stored_key, auth_message);
  if (proof.size() != signature.size()) return Fail();
  std::string client_key = Xor(proof, signature);
  if (!ConstantTimeEquals(Hash(mechanism_, client_key), credential_.stored_key)) return Fail();
  state_ = State::kComplete;
  return absl::StrCat("v=", absl::Base64Escape(Hmac(mechanism_, credential_.server_key, auth_message)));
}

ScramClient::ScramClient(ScramMechanism mechanism, std::string username, std::string password, std::string nonce)
    : mechanism_(mechanism), username_(std::move(username)), password_(std::move(password)), nonce_(std::move(nonce)) {}

std::string ScramClient::FirstMessage() {
  if (nonce_.empty()) nonce_ = Nonce();
  client_first_bare_ = absl::StrCat("n=", ToSaslName(username_), ",r=", nonce_);
  return absl::StrCat("n,,", client_first_bare_);
}

absl::StatusOr<std::string> ScramClient::FinalMessage(absl::string_view server_first) {
  auto attributes = Attributes(server_first);
  if (attributes.size() < 3 || attributes[0].first != 'r' || attributes[1].first != 's' || attributes[2].first != 'i' ||
      !absl::StartsWith(attributes[0].second, nonce_)) {
    return absl::InvalidArgumentError(absl::StrCat("an unexpected server-first message: ", server_first));
  }
  std::string salt;
  int32_t iterations = 0;
  if (!absl::Base64Unescape(attributes[1].second, &salt) || !absl::SimpleAtoi(attributes[2].second, &iterations) ||
      iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat("an unexpected server-first message: ", server_first));
  }
  salted_password_ = SaltedPassword(mechanism_, password_, salt, iterations);
  std::string without_proof = absl::StrCat("c=biws,r=", attributes[0].second);
  auth_message_ = absl::StrCat(client_first_bare_, ",", server_first, ",", without_proof);
  std::string client_key = Hmac(mechanism_, salted_password_, "Client Key");
  std::string signature = Hmac(mechanism_, Hash(mechanism_, client_key), auth_message_);
  return absl::StrCat(without_proof, ",p=", absl::Base64Escape(Xor(client_key, signature)));
}

absl::Status ScramClient::Verify(absl::string_view server_final) {
  std::string expected = absl::StrCat(
      "v=", absl::Base64Escape(Hmac(mechanism_, Hmac(mechanism_, salted_password_, "Server Key"), auth_message_)));
  if (!ConstantTimeEquals(server_final, expected)) {
    return absl::UnauthenticatedError("the server's SCRAM signature is not valid");
  }
  return absl::OkStatus();
}

}  // namespace strata::security
