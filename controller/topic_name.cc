#include "controller/topic_name.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace strata::controller {
namespace {

bool IsLegalTopicCharacter(char c) { return absl::ascii_isalnum(c) || c == '.' || c == '_' || c == '-'; }

// A character for an error message: printable ASCII as itself, anything else (control
// characters, bytes of multi-byte UTF-8) as its byte value.
std::string Describe(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (absl::ascii_isprint(c)) return absl::StrFormat("'%c' (0x%02x)", c, byte);
  return absl::StrFormat("byte 0x%02x", byte);
}

}  // namespace

absl::Status ValidateTopicName(absl::string_view name) {
  if (name.empty()) return absl::InvalidArgumentError("topic name is empty");
  if (name == "." || name == "..") {
    return absl::InvalidArgumentError(absl::StrCat("topic name cannot be \"", name, "\""));
  }
  if (name.size() > kMaxTopicNameLength) {
    return absl::InvalidArgumentError(absl::StrCat("topic name is ", name.size(), " characters long; at most ",
                                                   kMaxTopicNameLength, " are allowed"));
  }
  auto bad = std::find_if_not(name.begin(), name.end(), IsLegalTopicCharacter);
  if (bad != name.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "topic name \"", absl::CHexEscape(name), "\" contains ", Describe(*bad), " at position ", bad - name.begin(),
        "; only ASCII letters, digits, '.', '_' and '-' are allowed"));
  }
  return absl::OkStatus();
}

std::string TopicCollisionKey(absl::string_view name) {
  std::string key(name);
  std::replace(key.begin(), key.end(), '.', '_');
  return key;
}

bool TopicNamesCollide(absl::string_view a, absl::string_view b) {
  return TopicCollisionKey(a) == TopicCollisionKey(b);
}

bool IsInternalTopicName(absl::string_view name) { return absl::StartsWith(name, "__"); }

}  // namespace strata::controller
