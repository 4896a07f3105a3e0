// server/json_log_formatter.h: log.format=json lines are one JSON object each, with the
// time in UTC, the level, the node, the logger, the escaped message and the fields.

#include "server/json_log_formatter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <spdlog/details/log_msg.h>

namespace strata::server {
namespace {

std::string Format(spdlog::level::level_enum level, std::string_view logger, std::string_view message) {
  spdlog::details::log_msg msg(spdlog::string_view_t(logger.data(), logger.size()), level,
                               spdlog::string_view_t(message.data(), message.size()));
  // 2026-12-02T03:31:00.123Z
  msg.time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1796182260123));
  msg.thread_id = 42;
  spdlog::memory_buf_t out;
  JsonLogFormatter(7).format(msg, out);
  return std::string(out.data(), out.size());
}

TEST(JsonLogFormatter, WritesOneObjectPerLineWithTheRecordsParts) {
  EXPECT_EQ(Format(spdlog::level::info, "", "broker 7 serving"),
            "{\"time\":\"2026-12-02T03:31:00.123Z\",\"level\":\"info\",\"node\":7,\"logger\":\"strata\","
            "\"message\":\"broker 7 serving\",\"fields\":{\"thread\":42}}\n");
  EXPECT_EQ(Format(spdlog::level::warn, "raft", "x"),
            "{\"time\":\"2026-12-02T03:31:00.123Z\",\"level\":\"warning\",\"node\":7,\"logger\":\"raft\","
            "\"message\":\"x\",\"fields\":{\"thread\":42}}\n");
}

TEST(JsonLogFormatter, EscapesWhatJsonStringsCannotHold) {
  std::string line = Format(spdlog::level::err, "", std::string("a \"quoted\" \\path\\\nnext\tcol\x01\xc3\xa9"));
  EXPECT_NE(line.find("\"message\":\"a \\\"quoted\\\" \\\\path\\\\\\nnext\\tcol\\u0001\xc3\xa9\""), std::string::npos)
      << line;
  EXPECT_EQ(line.find('\n'), line.size() - 1);  // one line, whatever the message held
}

}  // namespace
}  // namespace strata::server
