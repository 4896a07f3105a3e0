#include "objectstore/s3_xml.h"

#include <cstdint>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace strata::objectstore {
namespace {

// The next element named tag at or after from: [inner begin, inner end) and the end of
// its closing tag. <tag> and <tag attr="..."> open it; <tag/> is empty.
struct Found {
  size_t inner_begin = 0;
  size_t inner_end = 0;
  size_t after = 0;
};

std::optional<Found> Next(absl::string_view xml, absl::string_view tag, size_t from) {
  const std::string open = absl::StrCat("<", tag);
  const std::string close = absl::StrCat("</", tag, ">");
  while (true) {
    size_t at = xml.find(open, from);
    if (at == absl::string_view::npos) return std::nullopt;
    size_t name_end = at + open.size();
    if (name_end >= xml.size()) return std::nullopt;
    char c = xml[name_end];
    if (c != '>' && c != ' ' && c != '/' && c != '\t' && c != '\n' && c != '\r') {  // <tagLonger>
      from = name_end;
      continue;
    }
    size_t gt = xml.find('>', name_end);
    if (gt == absl::string_view::npos) return std::nullopt;
    if (xml[gt - 1] == '/') return Found{gt + 1, gt + 1, gt + 1};
    size_t end = xml.find(close, gt + 1);
    if (end == absl::string_view::npos) return std::nullopt;
    return Found{gt + 1, end, end + close.size()};
  }
}

}  // namespace

std::optional<std::string> XmlText(absl::string_view xml, absl::string_view tag) {
  auto found = Next(xml, tag, 0);
  if (!found) return std::nullopt;
  return XmlUnescape(xml.substr(found->inner_begin, found->inner_end - found->inner_begin));
}

std::vector<absl::string_view> XmlElements(absl::string_view xml, absl::string_view tag) {
  std::vector<absl::string_view> out;
  size_t from = 0;
  while (auto found = Next(xml, tag, from)) {
    out.push_back(xml.substr(found->inner_begin, found->inner_end - found->inner_begin));
    from = found->after;
  }
  return out;
}

std::string XmlEscape(absl::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string XmlUnescape(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    size_t semi = text.find(';', i);
    if (semi == absl::string_view::npos) {
      out.push_back('&');
      continue;
    }
    absl::string_view entity = text.substr(i + 1, semi - i - 1);
    uint32_t code = 0;
    if (entity == "amp") {
      out.push_back('&');
    } else if (entity == "lt") {
      out.push_back('<');
    } else if (entity == "gt") {
      out.push_back('>');
    } else if (entity == "quot") {
      out.push_back('"');
    } else if (entity == "apos") {
      out.push_back('\'');
    } else if (entity.size() > 1 && entity[0] == '#' &&
               (entity[1] == 'x' ? absl::SimpleHexAtoi(entity.substr(2), &code) : absl::SimpleAtoi(entity.substr(1), &code)) &&
               code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else {
      out.append(text.data() + i, semi - i + 1);  // not ours to decode: kept as it is
    }
    i = semi;
  }
  return out;
}

}  // namespace strata::objectstore
