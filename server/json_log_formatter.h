#pragma once
// JsonLogFormatter: log.format=json. One JSON object per line, for log collectors:
//   {"time":"2026-12-02T03:31:00.123Z","level":"info","node":4,"logger":"strata",
//    "message":"...","fields":{"thread":12345}}
// time in UTC with milliseconds; level as spdlog names it (trace, debug, info, warning,
// error, critical); logger "strata" for the default logger; fields: what the record
// carries besides its message (today the thread id). The message is escaped as JSON
// strings require (quotes, backslashes, control characters); other bytes pass as they are
// (the project logs UTF-8).
// Thread-safe as spdlog uses formatters (one clone per sink).

#include <memory>

#include <spdlog/formatter.h>

namespace strata::server {

class JsonLogFormatter final : public spdlog::formatter {
 public:
  explicit JsonLogFormatter(int32_t node_id) : node_id_(node_id) {}
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override;
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonLogFormatter>(node_id_); }

 private:
  const int32_t node_id_;
};

}  // namespace strata::server
