#include "proto/kafka/common_fields.h"

#include <utility>

namespace strata::proto::kafka {

ConfigType ConfigTypeNamed(std::string_view name) {
  static constexpr std::pair<std::string_view, ConfigType> kTypes[] = {
      {"boolean", ConfigType::kBoolean}, {"string", ConfigType::kString}, {"int", ConfigType::kInt},
      {"short", ConfigType::kShort},     {"long", ConfigType::kLong},     {"double", ConfigType::kDouble},
      {"list", ConfigType::kList},       {"class", ConfigType::kClass},   {"password", ConfigType::kPassword}};
  for (const auto& [type_name, type] : kTypes) {
    if (type_name == name) return type;
  }
  return ConfigType::kUnknown;
}

void WriteInt32Array(const std::vector<int32_t>& values, bool flexible, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(values.size()), flexible);
  for (int32_t v : values) w.Int32(v);
}

std::vector<int32_t> ReadInt32Array(Reader& r, bool flexible, const char* field) {
  std::vector<int32_t> values;
  int32_t n = r.ArrayLength(flexible, field);
  for (int32_t i = 0; i < n && r.ok(); ++i) values.push_back(r.Int32(field));
  return values;
}

void WriteNullableInt32Array(const std::optional<std::vector<int32_t>>& values, bool flexible, Writer& w) {
  if (!values) {
    w.ArrayLength(-1, flexible);
    return;
  }
  WriteInt32Array(*values, flexible, w);
}

std::optional<std::vector<int32_t>> ReadNullableInt32Array(Reader& r, bool flexible, const char* field) {
  int32_t n = r.ArrayLength(flexible, field);
  if (n < 0) return std::nullopt;
  std::vector<int32_t> values;
  for (int32_t i = 0; i < n && r.ok(); ++i) values.push_back(r.Int32(field));
  return values;
}

void WriteStringArray(const std::vector<std::string>& values, bool flexible, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(values.size()), flexible);
  for (const std::string& v : values) w.String(v, flexible);
}

std::vector<std::string> ReadStringArray(Reader& r, bool flexible, const char* field) {
  std::vector<std::string> values;
  int32_t n = r.ArrayLength(flexible, field);
  for (int32_t i = 0; i < n && r.ok(); ++i) values.push_back(r.String(flexible, field));
  return values;
}

void WriteNullableStringArray(const std::optional<std::vector<std::string>>& values, bool flexible, Writer& w) {
  if (!values) {
    w.ArrayLength(-1, flexible);
    return;
  }
  WriteStringArray(*values, flexible, w);
}

std::optional<std::vector<std::string>> ReadNullableStringArray(Reader& r, bool flexible, const char* field) {
  int32_t n = r.ArrayLength(flexible, field);
  if (n < 0) return std::nullopt;
  std::vector<std::string> values;
  for (int32_t i = 0; i < n && r.ok(); ++i) values.push_back(r.String(flexible, field));
  return values;
}

void WriteListeners(const std::vector<Listener>& listeners, Writer& w) {
  w.ArrayLength(static_cast<int32_t>(listeners.size()), /*flexible=*/true);
  for (const Listener& l : listeners) {
    w.String(l.name, true);
    w.String(l.host, true);
    w.Int16(static_cast<int16_t>(l.port));  // uint16 on the wire
    w.EmptyTaggedFields();
  }
}

std::vector<Listener> ReadListeners(Reader& r) {
  std::vector<Listener> out;
  int32_t n = r.ArrayLength(/*flexible=*/true, "Listeners");
  for (int32_t i = 0; i < n && r.ok(); ++i) {
    Listener& l = out.emplace_back();
    l.name = r.String(true, "Listener.Name");
    l.host = r.String(true, "Listener.Host");
    l.port = static_cast<uint16_t>(r.Int16("Listener.Port"));
    r.SkipTaggedFields("Listener");
  }
  return out;
}

}  // namespace strata::proto::kafka
