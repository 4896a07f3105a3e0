#pragma once
// AWS Signature Version 4 (the S3 API's request signing), as the AWS documentation
// defines it: a canonical request (method, URI, query, signed headers, payload hash), the
// string to sign over its SHA-256, and an HMAC-SHA256 chain from the secret key through
// the date, region, service and "aws4_request" to the signature. Pure functions over
// OpenSSL's digests; tested against the documentation's own examples.
// Thread-safe (stateless).

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace strata::objectstore {

// What SigV4 needs of a credential.
struct SigningKeyId {
  std::string access_key_id;
  std::string secret_access_key;
};

// One request as it is signed. Query parameters and header values are the raw ones (not
// encoded); canonical_uri is the path as sent, already URI-encoded (S3 does not encode it
// twice). Headers are every header to sign, host included, each name once.
struct CanonicalInput {
  std::string method;
  std::string canonical_uri;
  std::vector<std::pair<std::string, std::string>> query;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_hash;  // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
};

// The value of the Authorization header for input signed at amz_date ("YYYYMMDDTHHMMSSZ",
// which input's x-amz-date header also carries) in region for service ("s3").
std::string Authorization(const CanonicalInput& input, const SigningKeyId& key, absl::string_view region,
                          absl::string_view service, absl::string_view amz_date);

// The canonical request and the string to sign (tests, and a signature mismatch's log).
std::string CanonicalRequest(const CanonicalInput& input);
std::string StringToSign(const CanonicalInput& input, absl::string_view region, absl::string_view service,
                         absl::string_view amz_date);

// RFC 3986 encoding as SigV4 wants it: unreserved characters (A-Z a-z 0-9 - _ . ~) kept,
// every other byte %XX in upper case; '/' kept when keep_slash (paths).
std::string UriEncode(absl::string_view text, bool keep_slash);

// Lower-case hex of the SHA-256 of bytes.
std::string Sha256Hex(absl::string_view bytes);

}  // namespace strata::objectstore
