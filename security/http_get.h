#pragma once
// One HTTP(S) GET with libcurl, for what the broker fetches from elsewhere (an OAuth
// provider's JSON Web Key Set): the body of a 200 answer, or an error naming the URL and
// what went wrong (the connection, the TLS handshake, the status). HTTPS checks the
// server's chain and host name against the CA file given, else the system's CAs.
// Redirects are not followed.
// Thread-safe (a function).

#include <chrono>
#include <string>

#include "absl/status/statusor.h"

namespace strata::security {

struct HttpGetOptions {
  std::string ca_file;  // PEM CA certificates for https (empty: the system's)
  std::chrono::milliseconds timeout{10'000};  // the whole exchange, connection included
  size_t max_bytes = 1 << 20;                 // a larger body is an error
};

absl::StatusOr<std::string> HttpGet(const std::string& url, const HttpGetOptions& options);

}  // namespace strata::security
