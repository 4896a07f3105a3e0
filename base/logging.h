#pragma once
// Logging is spdlog; this header adds what Strata's types need to be formatted
// (Debian's Abseil has its own absl::string_view, distinct from std::string_view).
// Thread-safe (spdlog's default logger is).

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "absl/strings/string_view.h"

template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view s, FormatContext& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
