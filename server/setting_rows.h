#pragma once
// The rows of strata-server's settings table (server_config.cc, and the parts of it kept
// in files of their own such as remote_storage_settings.cc), by kind: each makes a
// ServerSetting that parses, checks and stores one key into a ServerConfig field.
// Thread-safe (stateless).

#include <functional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/server_config.h"

namespace strata::server::setting_rows {

using Apply = std::function<absl::Status(const std::string&, ServerConfig&)>;

inline absl::Status Bad(absl::string_view what) { return absl::InvalidArgumentError(what); }

// Rows of the table, by kind.
template <typename T>
ServerSetting Int(const char* name, T ServerConfig::*field, int64_t min, int64_t max, const char* roles,
                  const char* doc) {
  return ServerSetting{
      name,
      sizeof(T) == 8 ? "long" : "int",
      roles,
      false,
      absl::StrCat(min, "..", max),
      doc,
      [field](const ServerConfig& c) { return absl::StrCat(c.*field); },
      [field, min, max](const std::string& v, ServerConfig& c) -> absl::Status {
        int64_t parsed = 0;
        if (!absl::SimpleAtoi(v, &parsed) || parsed < min || parsed > max) {
          return Bad(absl::StrCat(" = '", v, "' must be ", min, "..", max));
        }
        c.*field = static_cast<T>(parsed);
        return absl::OkStatus();
      }};
}

inline ServerSetting Bool(const char* name, bool ServerConfig::*field, const char* roles, const char* doc) {
  return ServerSetting{name,
                       "boolean",
                       roles,
                       false,
                       "true, false",
                       doc,
                       [field](const ServerConfig& c) { return std::string(c.*field ? "true" : "false"); },
                       [field](const std::string& v, ServerConfig& c) -> absl::Status {
                         if (v != "true" && v != "false") return Bad(absl::StrCat(" = '", v, "' must be true or false"));
                         c.*field = v == "true";
                         return absl::OkStatus();
                       }};
}

// A string setting; check (optional) refuses a value with the message it returns.
inline ServerSetting String(const char* name, std::string ServerConfig::*field, const char* roles, const char* valid,
                     const char* doc, std::function<absl::Status(const std::string&)> check = nullptr) {
  return ServerSetting{name,
                       "string",
                       roles,
                       false,
                       valid,
                       doc,
                       [field](const ServerConfig& c) { return c.*field; },
                       [field, check](const std::string& v, ServerConfig& c) -> absl::Status {
                         if (check) {
                           if (absl::Status s = check(v); !s.ok()) return s;
                         }
                         c.*field = v;
                         return absl::OkStatus();
                       }};
}

// A setting whose only accepted value is `only` (Strata has no other).
inline ServerSetting Only(const char* name, const char* only, const char* roles, const char* doc, const char* why) {
  return ServerSetting{name,
                       "string",
                       roles,
                       false,
                       only,
                       doc,
                       [only](const ServerConfig&) { return std::string(only); },
                       [only, why](const std::string& v, ServerConfig&) -> absl::Status {
                         if (v != only) return Bad(absl::StrCat(" = '", v, "': ", why));
                         return absl::OkStatus();
                       }};
}

// A setting parsed by hand.
inline ServerSetting Custom(const char* name, const char* type, const char* roles, bool required, const char* valid,
                     const char* doc, std::function<std::string(const ServerConfig&)> default_value, Apply apply) {
  return ServerSetting{name, type, roles, required, valid, doc, std::move(default_value), std::move(apply)};
}

inline std::string NoDefault(const ServerConfig&) { return ""; }

// A setting that `parse` turns into field (its errors follow ": "); no default.
template <typename T>
ServerSetting Parsed(const char* name, const char* type, const char* roles, bool required, const char* valid,
                     const char* doc, absl::StatusOr<T> (*parse)(const std::string&), T ServerConfig::*field) {
  return Custom(name, type, roles, required, valid, doc, NoDefault,
                [parse, field](const std::string& v, ServerConfig& c) -> absl::Status {
                  auto parsed = parse(v);
                  if (!parsed.ok()) return Bad(absl::StrCat(": ", parsed.status().message()));
                  c.*field = std::move(*parsed);
                  return absl::OkStatus();
                });
}

inline constexpr char kBroker[] = "broker";
inline constexpr char kController[] = "controller";
inline constexpr char kBoth[] = "broker, controller";

}  // namespace strata::server::setting_rows
