#include "server/json_log_formatter.h"

#include <chrono>
#include <ctime>

#include <fmt/format.h>

namespace strata::server {

namespace {

void AppendEscaped(spdlog::memory_buf_t& dest, spdlog::string_view_t s) {
  for (char c : s) {
    switch (c) {
      case '"': dest.append(std::string_view("\\\"")); break;
      case '\\': dest.append(std::string_view("\\\\")); break;
      case '\n': dest.append(std::string_view("\\n")); break;
      case '\r': dest.append(std::string_view("\\r")); break;
      case '\t': dest.append(std::string_view("\\t")); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          fmt::format_to(std::back_inserter(dest), "\\u{:04x}", static_cast<unsigned>(c));
        } else {
          dest.push_back(c);
        }
    }
  }
}

}  // namespace

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  using namespace std::chrono;
  const auto since_epoch = msg.time.time_since_epoch();
  const std::time_t seconds = duration_cast<std::chrono::seconds>(since_epoch).count();
  const int64_t millis = duration_cast<milliseconds>(since_epoch).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  fmt::format_to(std::back_inserter(dest), "{{\"time\":\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\",\"level\":\"",
                 utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  const auto level = spdlog::level::to_string_view(msg.level);
  dest.append(level.data(), level.data() + level.size());
  fmt::format_to(std::back_inserter(dest), "\",\"node\":{},\"logger\":\"", node_id_);
  AppendEscaped(dest, msg.logger_name.size() ? msg.logger_name : spdlog::string_view_t("strata"));
  dest.append(std::string_view("\",\"message\":\""));
  AppendEscaped(dest, msg.payload);
  fmt::format_to(std::back_inserter(dest), "\",\"fields\":{{\"thread\":{}}}}}\n", msg.thread_id);
}

}  // namespace strata::server
