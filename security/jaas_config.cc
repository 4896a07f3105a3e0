#include "security/jaas_config.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace strata::security {
namespace {

bool Space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

absl::StatusOr<JaasConfig> ParseJaasConfig(absl::string_view text) {
  JaasConfig config;
  size_t pos = 0;
  auto skip = [&] {
    while (pos < text.size() && Space(text[pos])) ++pos;
  };
  auto word = [&] {
    size_t start = pos;
    while (pos < text.size() && !Space(text[pos]) && text[pos] != ';' && text[pos] != '=') ++pos;
    return std::string(text.substr(start, pos - start));
  };
  skip();
  config.login_module = word();
  skip();
  config.flag = word();
  if (config.login_module.empty() ||
      (config.flag != "required" && config.flag != "requisite" && config.flag != "sufficient" &&
       config.flag != "optional")) {
    return absl::InvalidArgumentError("sasl.jaas.config: expected '<LoginModule> required key=\"value\" ... ;'");
  }
  while (true) {
    skip();
    if (pos < text.size() && text[pos] == ';') {
      ++pos;
      skip();
      if (pos != text.size()) return absl::InvalidArgumentError("sasl.jaas.config: text after the ';' (one entry only)");
      return config;
    }
    std::string key = word();
    skip();
    if (key.empty() || pos >= text.size() || text[pos] != '=') {
      return absl::InvalidArgumentError(absl::StrCat("sasl.jaas.config: expected key=value ending with ';'",
                                                     key.empty() ? "" : absl::StrCat(" after '", key, "'")));
    }
    ++pos;
    skip();
    std::string value;
    if (pos < text.size() && text[pos] == '"') {
      ++pos;
      bool closed = false;
      while (pos < text.size()) {
        char c = text[pos++];
        if (c == '\\' && pos < text.size()) {
          value.push_back(text[pos++]);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value.push_back(c);
        }
      }
      if (!closed) return absl::InvalidArgumentError(absl::StrCat("sasl.jaas.config: the value of '", key, "' is not closed"));
    } else {
      value = word();
    }
    config.options[key] = value;
  }
}

}  // namespace strata::security
