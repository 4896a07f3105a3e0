#include "security/jwks_source.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/logging.h"

namespace strata::security {

namespace {

constexpr std::chrono::seconds kMinReadInterval{1};

bool IsHttp(absl::string_view url) { return absl::StartsWith(url, "http://") || absl::StartsWith(url, "https://"); }

}  // namespace

absl::StatusOr<std::shared_ptr<JwksSource>> JwksSource::Open(const std::string& url,
                                                             std::chrono::milliseconds refresh, HttpGetOptions http) {
  if (!IsHttp(url) && !absl::StartsWith(url, "file://") && !absl::StartsWith(url, "/")) {
    return absl::InvalidArgumentError(absl::StrCat("sasl.oauthbearer.jwks.endpoint.url '", url,
                                                   "' is not file:///path, /path, http://... or https://..."));
  }
  std::shared_ptr<JwksSource> source(new JwksSource(url, refresh, std::move(http)));
  auto keys = source->Read();
  if (!keys.ok()) return keys.status();
  {
    absl::MutexLock lock(&source->mu_);
    source->keys_ = *std::move(keys);
    source->read_at_ = std::chrono::steady_clock::now();
  }
  source->thread_ = std::thread([raw = source.get()] { raw->Run(); });
  return source;
}

JwksSource::~JwksSource() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<std::shared_ptr<const JwkSet>> JwksSource::Read() const {
  std::string text;
  if (IsHttp(url_)) {
    auto body = HttpGet(url_, http_);
    if (!body.ok()) return body.status();
    text = *std::move(body);
  } else {
    absl::string_view path = url_;
    absl::ConsumePrefix(&path, "file://");
    std::ifstream in{std::string(path)};
    if (!in) return absl::NotFoundError(absl::StrCat("cannot read the JWKS file ", path));
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  auto keys = JwkSet::Parse(text);
  if (!keys.ok()) return absl::InvalidArgumentError(absl::StrCat("the JWKS at ", url_, ": ", keys.status().message()));
  return std::make_shared<const JwkSet>(*std::move(keys));
}

std::shared_ptr<const JwkSet> JwksSource::Get(const std::string& kid) {
  absl::MutexLock lock(&mu_);
  if (keys_->Find(kid) == nullptr) read_asked_ = true;
  return keys_;
}

int64_t JwksSource::reads() const {
  absl::MutexLock lock(&mu_);
  return reads_;
}

int64_t JwksSource::failed_reads() const {
  absl::MutexLock lock(&mu_);
  return failed_reads_;
}

void JwksSource::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      // Until the refresh is due, or a read was asked for and a second has passed since
      // the last one; the wait wakes every 100 ms to look.
      auto due = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        const auto since = std::chrono::steady_clock::now() - read_at_;
        return stopping_ || since >= refresh_ || (read_asked_ && since >= kMinReadInterval);
      };
      while (!due()) mu_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(100));
      if (stopping_) return;
      read_asked_ = false;
      read_at_ = std::chrono::steady_clock::now();
    }
    auto keys = Read();  // no lock held: Get answers from the current set meanwhile
    absl::MutexLock lock(&mu_);
    if (keys.ok()) {
      keys_ = *std::move(keys);
      ++reads_;
    } else {
      ++failed_reads_;
      spdlog::warn("the JWKS could not be read again (the last good set stays): {}", keys.status().message());
    }
  }
}

}  // namespace strata::security
