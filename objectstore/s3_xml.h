#pragma once
// The little XML the S3 API speaks: its answers (ListObjectsV2, multipart uploads, errors,
// DeleteObjects) are flat elements with text, so a tag finder is enough — no parser
// library. Text is unescaped (the five predefined entities and numeric references);
// text put into a request body is escaped.
// Thread-safe (stateless).

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace strata::objectstore {

// The text of the first <tag>...</tag> in xml (nullopt: none; <tag/> is empty text).
std::optional<std::string> XmlText(absl::string_view xml, absl::string_view tag);
// The inner XML of every <tag>...</tag> in order (not unescaped: to search further).
std::vector<absl::string_view> XmlElements(absl::string_view xml, absl::string_view tag);
// text made safe inside an element.
std::string XmlEscape(absl::string_view text);
std::string XmlUnescape(absl::string_view text);

}  // namespace strata::objectstore
