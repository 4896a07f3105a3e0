#include "objectstore/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/check.h"

namespace strata::objectstore {
namespace {

std::string Hmac(absl::string_view key, absl::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  ABSL_CHECK(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                  reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n) != nullptr);
  return std::string(reinterpret_cast<const char*>(out), n);
}

// A header value as SigV4 canonicalises it: outer spaces trimmed, inner runs of spaces
// made one.
std::string TrimValue(absl::string_view value) {
  value = absl::StripAsciiWhitespace(value);
  std::string out;
  bool space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> SortedHeaders(const CanonicalInput& input) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, value] : input.headers) headers.emplace_back(absl::AsciiStrToLower(name), TrimValue(value));
  std::sort(headers.begin(), headers.end());
  return headers;
}

std::string SignedHeaders(const std::vector<std::pair<std::string, std::string>>& sorted) {
  return absl::StrJoin(sorted, ";", [](std::string* out, const auto& h) { out->append(h.first); });
}

std::string Scope(absl::string_view amz_date, absl::string_view region, absl::string_view service) {
  return absl::StrCat(amz_date.substr(0, 8), "/", region, "/", service, "/aws4_request");
}

}  // namespace

std::string UriEncode(absl::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string Sha256Hex(absl::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  ABSL_CHECK_EQ(EVP_Digest(bytes.data(), bytes.size(), out, &n, EVP_sha256(), nullptr), 1);
  return absl::BytesToHexString(absl::string_view(reinterpret_cast<const char*>(out), n));
}

std::string CanonicalRequest(const CanonicalInput& input) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : input.query) query.emplace_back(UriEncode(name, false), UriEncode(value, false));
  std::sort(query.begin(), query.end());
  auto headers = SortedHeaders(input);
  std::string canonical_headers;
  for (const auto& [name, value] : headers) absl::StrAppend(&canonical_headers, name, ":", value, "\n");
  return absl::StrCat(input.method, "\n", input.canonical_uri.empty() ? "/" : input.canonical_uri, "\n",
                      absl::StrJoin(query, "&",
                                    [](std::string* out, const auto& q) { absl::StrAppend(out, q.first, "=", q.second); }),
                      "\n", canonical_headers, "\n", SignedHeaders(headers), "\n", input.payload_hash);
}

std::string StringToSign(const CanonicalInput& input, absl::string_view region, absl::string_view service,
                         absl::string_view amz_date) {
  return absl::StrCat("AWS4-HMAC-SHA256\n", amz_date, "\n", Scope(amz_date, region, service), "\n",
                      Sha256Hex(CanonicalRequest(input)));
}

std::string Authorization(const CanonicalInput& input, const SigningKeyId& key, absl::string_view region,
                          absl::string_view service, absl::string_view amz_date) {
  ABSL_CHECK_EQ(amz_date.size(), 16u) << amz_date;
  std::string signing_key = Hmac(absl::StrCat("AWS4", key.secret_access_key), amz_date.substr(0, 8));
  signing_key = Hmac(signing_key, region);
  signing_key = Hmac(signing_key, service);
  signing_key = Hmac(signing_key, "aws4_request");
  std::string signature = absl::BytesToHexString(Hmac(signing_key, StringToSign(input, region, service, amz_date)));
  return absl::StrCat("AWS4-HMAC-SHA256 Credential=", key.access_key_id, "/", Scope(amz_date, region, service),
                      ",SignedHeaders=", SignedHeaders(SortedHeaders(input)), ",Signature=", signature);
}

}  // namespace strata::objectstore
