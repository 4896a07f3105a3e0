#include "security/http_get.h"

#include <curl/curl.h>

#include <mutex>

#include "absl/strings/str_cat.h"

namespace strata::security {
namespace {

struct Body {
  std::string text;
  size_t max_bytes;
  bool too_large = false;
};

size_t Append(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  const size_t n = size * count;
  if (body->text.size() + n > body->max_bytes) {
    body->too_large = true;
    return 0;  // ends the transfer
  }
  body->text.append(data, n);
  return n;
}

}  // namespace

absl::StatusOr<std::string> HttpGet(const std::string& url, const HttpGetOptions& options) {
  static std::once_flag initialized;
  std::call_once(initialized, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::InternalError("curl_easy_init failed");
  Body body{.text = {}, .max_bytes = options.max_bytes};
  char error[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // no SIGALRM from another thread
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  CURLcode rc = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(curl);
  if (body.too_large) {
    return absl::ResourceExhaustedError(absl::StrCat(url, " answered more than ", options.max_bytes, " bytes"));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("cannot GET ", url, ": ", error[0] != '\0' ? error : curl_easy_strerror(rc)));
  }
  if (status != 200) return absl::UnavailableError(absl::StrCat(url, " answered HTTP status ", status));
  return std::move(body.text);
}

}  // namespace strata::security
