#pragma once
// Comparing secrets (passwords, SCRAM proofs and signatures) in time that does not
// depend on where they first differ, so that a secret cannot be guessed byte by byte
// (OpenSSL's CRYPTO_memcmp). Only the sizes may differ in time.
// Thread-safe (a function).

#include <openssl/crypto.h>

#include "absl/strings/string_view.h"

namespace strata::security {

inline bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace strata::security
