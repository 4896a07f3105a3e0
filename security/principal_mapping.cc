#include "security/principal_mapping.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace strata::security {
namespace {

// Reads up to the next unescaped '/', starting at *pos (which ends past the slash).
// Escapes are kept (`\x` stays two characters); false when no slash ends the part.
bool ReadPart(absl::string_view text, size_t* pos, std::string* out) {
  for (size_t i = *pos; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out->append(text.data() + i, 2);
      ++i;
    } else if (text[i] == '/') {
      *pos = i + 1;
      return true;
    } else {
      out->push_back(text[i]);
    }
  }
  return false;
}

// A Java pattern as ECMAScript: `\/` is a plain slash there.
std::string PatternText(const std::string& java) {
  std::string out;
  for (size_t i = 0; i < java.size(); ++i) {
    if (java[i] == '\\' && i + 1 < java.size() && java[i + 1] == '/') {
      out.push_back('/');
      ++i;
    } else {
      out.push_back(java[i]);
    }
  }
  return out;
}

// Java's replacement syntax (`$n`, `\x` a literal x) in std::regex_replace's format
// (`$n`, `$$` a literal dollar).
std::string ReplacementFormat(const std::string& java) {
  std::string out;
  for (size_t i = 0; i < java.size(); ++i) {
    if (java[i] == '\\' && i + 1 < java.size()) {
      ++i;
      if (java[i] == '$') {
        out += "$$";
      } else {
        out.push_back(java[i]);
      }
    } else {
      out.push_back(java[i]);
    }
  }
  return out;
}

}  // namespace

PrincipalMapper::PrincipalMapper() { rules_.push_back(Rule{.is_default = true}); }

absl::StatusOr<PrincipalMapper> PrincipalMapper::Parse(absl::string_view rules) {
  PrincipalMapper mapper;
  mapper.rules_.clear();
  size_t pos = 0;
  auto skip_space = [&] {
    while (pos < rules.size() && std::isspace(static_cast<unsigned char>(rules[pos]))) ++pos;
  };
  skip_space();
  while (pos < rules.size()) {
    size_t start = pos;
    auto invalid = [&](absl::string_view why) {
      size_t end = rules.find_first_of(",\n", start);
      return absl::InvalidArgumentError(absl::StrCat("ssl.principal.mapping.rules: invalid rule '",
                                                     rules.substr(start, end == absl::string_view::npos ? end : end - start),
                                                     "': ", why));
    };
    Rule rule;
    if (rules.substr(pos, 7) == "DEFAULT") {
      rule.is_default = true;
      pos += 7;
    } else if (rules.substr(pos, 5) == "RULE:") {
      pos += 5;
      std::string pattern;
      std::string replacement;
      if (!ReadPart(rules, &pos, &pattern) || !ReadPart(rules, &pos, &replacement)) {
        return invalid("expected RULE:pattern/replacement/[LU]");
      }
      try {
        rule.pattern = std::regex(PatternText(pattern), std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        return invalid(absl::StrCat("the pattern does not compile (", e.what(), ")"));
      }
      rule.replacement = ReplacementFormat(replacement);
      if (pos < rules.size() && (rules[pos] == 'L' || rules[pos] == 'U')) rule.case_change = rules[pos++];
    } else {
      return invalid("expected DEFAULT or RULE:pattern/replacement/[LU]");
    }
    while (pos < rules.size() && (rules[pos] == ' ' || rules[pos] == '\t' || rules[pos] == '\r')) ++pos;
    if (pos < rules.size()) {
      if (rules[pos] != ',' && rules[pos] != '\n') return invalid("expected a comma or a new line after the rule");
      ++pos;
      skip_space();
    }
    mapper.rules_.push_back(std::move(rule));
  }
  if (mapper.rules_.empty()) return absl::InvalidArgumentError("ssl.principal.mapping.rules: no rule");
  return mapper;
}

std::optional<std::string> PrincipalMapper::Map(const std::string& distinguished_name) const {
  for (const Rule& rule : rules_) {
    if (rule.is_default) return distinguished_name;
    if (!std::regex_match(distinguished_name, rule.pattern)) continue;
    std::string out = std::regex_replace(distinguished_name, rule.pattern, rule.replacement,
                                         std::regex_constants::format_first_only);
    if (rule.case_change == 'L') absl::AsciiStrToLower(&out);
    if (rule.case_change == 'U') absl::AsciiStrToUpper(&out);
    return out;
  }
  return std::nullopt;
}

}  // namespace strata::security
