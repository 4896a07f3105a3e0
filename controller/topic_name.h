#pragma once
// Kafka's rules for topic names, checked when a topic is created: 1 to 249 characters
// from [a-zA-Z0-9._-], and neither "." nor "..". Also the two questions asked about a
// valid name: whether it collides with another once '.' and '_' are treated alike (both
// become '_' in metric names), and whether it names an internal topic.
// Thread-safe (pure functions).

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace strata::controller {

// Longest legal topic name: it leaves room for "-<partition>" in a partition directory's
// name within the usual 255-byte limit on file names.
inline constexpr size_t kMaxTopicNameLength = 249;

// OK, or INVALID_ARGUMENT saying what is wrong: empty, "." or "..", too long (with the
// length), or the first illegal character with its position (Kafka's
// INVALID_TOPIC_EXCEPTION at the protocol edge).
absl::Status ValidateTopicName(absl::string_view name);

// The name with every '.' replaced by '_': two topics whose keys are equal collide.
std::string TopicCollisionKey(absl::string_view name);

// Whether the names are equal once '.' and '_' are treated alike ("a.b" and "a_b");
// identical names collide too.
bool TopicNamesCollide(absl::string_view a, absl::string_view b);

// Whether the name is reserved for internal topics (it starts with "__", as
// __consumer_offsets and __transaction_state do).
bool IsInternalTopicName(absl::string_view name);

}  // namespace strata::controller
