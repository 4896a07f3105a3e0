#pragma once
// Field shapes several Kafka APIs share, over wire.h: arrays of int32 (broker ids) and of
// strings (topic names, config keys), classic or compact, nullable where the schema says
// so; and where a config's value comes from.
// Not thread-safe (functions over one Reader or Writer).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

// Where a config's value comes from (DescribeConfigs v1+, CreateTopics v5+ responses).
enum class ConfigSource : int8_t {
  kUnknown = 0,
  kTopicConfig = 1,
  kDynamicBrokerConfig = 2,
  kDynamicDefaultBrokerConfig = 3,
  kStaticBrokerConfig = 4,
  kDefaultConfig = 5,
  kDynamicBrokerLoggerConfig = 6,
};

// A config's type (DescribeConfigs v3+).
enum class ConfigType : int8_t {
  kUnknown = 0,
  kBoolean = 1,
  kString = 2,
  kInt = 3,
  kShort = 4,
  kLong = 5,
  kDouble = 6,
  kList = 7,
  kClass = 8,
  kPassword = 9,
};
// By Kafka's type name (boolean, string, int, short, long, double, list, class,
// password); kUnknown for any other.
ConfigType ConfigTypeNamed(std::string_view name);

void WriteInt32Array(const std::vector<int32_t>& values, bool flexible, Writer& writer);
// A null array reads as empty; the caller checks nullability where the schema forbids it.
std::vector<int32_t> ReadInt32Array(Reader& reader, bool flexible, const char* field);
void WriteNullableInt32Array(const std::optional<std::vector<int32_t>>& values, bool flexible, Writer& writer);
std::optional<std::vector<int32_t>> ReadNullableInt32Array(Reader& reader, bool flexible, const char* field);

void WriteStringArray(const std::vector<std::string>& values, bool flexible, Writer& writer);
std::vector<std::string> ReadStringArray(Reader& reader, bool flexible, const char* field);
void WriteNullableStringArray(const std::optional<std::vector<std::string>>& values, bool flexible, Writer& writer);
std::optional<std::vector<std::string>> ReadNullableStringArray(Reader& reader, bool flexible, const char* field);


// A node's listener as KRaft's APIs carry it (DescribeQuorum's nodes, AddRaftVoter's and
// UpdateRaftVoter's listeners): flexible, the port an unsigned 16-bit field.
struct Listener {
  std::string name;
  std::string host;
  uint16_t port = 0;
  bool operator==(const Listener&) const = default;
};
void WriteListeners(const std::vector<Listener>& listeners, Writer& writer);
std::vector<Listener> ReadListeners(Reader& reader);

}  // namespace strata::proto::kafka
