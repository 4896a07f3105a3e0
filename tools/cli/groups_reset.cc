// strata groups reset-offsets: moves a group's committed offsets, as
// kafka-consumer-groups.sh --reset-offsets does. The new offset of each partition comes
// from its leader (ListOffsets: earliest, latest, or the first record at a time) or from
// the committed one (--shift-by), always inside [earliest, latest]; it is printed, and
// committed only with --execute, from outside the group (OffsetCommit generation -1),
// which the coordinator takes only while the group has no members.

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "proto/kafka/error_code.h"
#include "proto/kafka/list_offsets.h"
#include "tools/cli/groups.h"
#include "tools/cli/leader_offsets.h"

namespace strata::cli {
namespace {

namespace kafka = proto::kafka;

enum class ResetKind { kEarliest, kLatest, kDatetime, kOffset, kShiftBy };

struct ResetSpec {
  ResetKind kind = ResetKind::kEarliest;
  int64_t value = 0;  // the timestamp (ms), the offset or the shift
};

// What a partition's new offset is computed from.
struct PartitionOffsets {
  int64_t earliest = 0;
  int64_t latest = 0;
  std::optional<int64_t> committed;
  int64_t at_timestamp = -1;  // --to-datetime: the first offset at or after it; -1: none
};

// The new offset of one partition, clamped into [earliest, latest] (*requested is what
// was asked before clamping); an error for --shift-by without a committed offset.
absl::StatusOr<int64_t> NewOffset(const ResetSpec& spec, const PartitionOffsets& p, int64_t* requested) {
  switch (spec.kind) {
    case ResetKind::kEarliest: *requested = p.earliest; break;
    case ResetKind::kLatest: *requested = p.latest; break;
    case ResetKind::kDatetime: *requested = p.at_timestamp < 0 ? p.latest : p.at_timestamp; break;
    case ResetKind::kOffset: *requested = spec.value; break;
    case ResetKind::kShiftBy:
      if (!p.committed) return absl::FailedPreconditionError("no committed offset to shift");
      *requested = *p.committed + spec.value;
      break;
  }
  return std::clamp(*requested, p.earliest, p.latest);
}

// --to-datetime: epoch milliseconds, or ISO-8601 (2026-12-01T10:00:00.000, local time;
// with Z or an offset such as +01:00 or +0100).
absl::StatusOr<int64_t> ParseDatetime(const std::string& text) {
  int64_t ms;
  if (absl::SimpleAtoi(text, &ms)) return ms;
  absl::Time t;
  std::string error;
  for (const char* format : {"%Y-%m-%dT%H:%M:%E*S%Ez", "%Y-%m-%dT%H:%M:%E*S%z"}) {
    if (absl::ParseTime(format, text, &t, &error)) return absl::ToUnixMillis(t);
  }
  if (absl::ParseTime("%Y-%m-%dT%H:%M:%E*S", text, absl::LocalTimeZone(), &t, &error)) return absl::ToUnixMillis(t);
  return absl::InvalidArgumentError(absl::StrCat(
      "--to-datetime '", text, "' is neither epoch milliseconds nor like 2026-12-01T10:00:00.000[Z|+01:00]"));
}

struct ResetOptions {
  std::string group;
  std::vector<std::string> topics;  // T or T:P,P...
  bool all_topics = false;
  bool to_earliest = false;
  bool to_latest = false;
  std::string to_datetime;
  int64_t to_offset = 0;
  int64_t shift_by = 0;
  bool execute = false;
  CLI::Option* to_datetime_option = nullptr;
  CLI::Option* to_offset_option = nullptr;
  CLI::Option* shift_by_option = nullptr;
};

absl::StatusOr<ResetSpec> SpecOf(const ResetOptions& o) {
  std::vector<ResetSpec> given;
  if (o.to_earliest) given.push_back({ResetKind::kEarliest});
  if (o.to_latest) given.push_back({ResetKind::kLatest});
  if (o.to_datetime_option->count() > 0) {
    auto ms = ParseDatetime(o.to_datetime);
    if (!ms.ok()) return ms.status();
    given.push_back({ResetKind::kDatetime, *ms});
  }
  if (o.to_offset_option->count() > 0) given.push_back({ResetKind::kOffset, o.to_offset});
  if (o.shift_by_option->count() > 0) given.push_back({ResetKind::kShiftBy, o.shift_by});
  if (given.size() != 1) {
    return absl::InvalidArgumentError(
        "give exactly one of --to-earliest, --to-latest, --to-datetime, --to-offset, --shift-by");
  }
  if (o.all_topics == !o.topics.empty()) return absl::InvalidArgumentError("give --topic (repeatable) or --all-topics");
  return given[0];
}

// --topic values: topic -> the partitions asked for (empty: all of them).
absl::StatusOr<std::map<std::string, std::set<int32_t>>> ParseTopics(const std::vector<std::string>& specs) {
  std::map<std::string, std::set<int32_t>> out;
  for (const std::string& spec : specs) {
    std::vector<std::string> parts = absl::StrSplit(spec, absl::MaxSplits(':', 1));
    std::set<int32_t>& partitions = out[parts[0]];
    if (parts[0].empty()) return absl::InvalidArgumentError(absl::StrCat("--topic '", spec, "' names no topic"));
    if (parts.size() == 1) continue;
    for (absl::string_view p : absl::StrSplit(parts[1], ',')) {
      int32_t partition;
      if (!absl::SimpleAtoi(p, &partition) || partition < 0) {
        return absl::InvalidArgumentError(absl::StrCat("--topic '", spec, "' is not like TOPIC or TOPIC:0,1,2"));
      }
      partitions.insert(partition);
    }
  }
  return out;
}

// The partitions to reset and their leaders: each asked for, or every partition of the
// topics asked for.
absl::StatusOr<std::map<TopicPartition, int32_t>> PartitionsToReset(
    const Context& ctx, const std::map<std::string, std::set<int32_t>>& wanted) {
  std::set<std::string> topics;
  for (const auto& [topic, partitions] : wanted) topics.insert(topic);
  auto described = DescribeTopicLeaders(ctx, topics);
  if (!described.ok()) return described.status();
  if (!described->errors.empty()) {
    const auto& [topic, error] = *described->errors.begin();
    return absl::NotFoundError(absl::StrCat("topic ", topic, ": ", error));
  }
  std::map<TopicPartition, int32_t> out;
  for (const auto& [tp, leader] : described->leaders) {
    const std::set<int32_t>& partitions = wanted.at(tp.topic);
    if (partitions.empty() || partitions.count(tp.partition)) out[tp] = leader;
  }
  for (const auto& [topic, partitions] : wanted) {
    for (int32_t p : partitions) {
      if (!out.count({topic, p})) return absl::NotFoundError(absl::StrCat("topic ", topic, " has no partition ", p));
    }
  }
  return out;
}

// ListOffsets of `timestamp` at the leaders; the first partition that failed is an error.
absl::StatusOr<std::map<TopicPartition, int64_t>> OffsetsAt(const std::map<TopicPartition, int32_t>& leaders,
                                                            const std::map<int32_t, Endpoint>& brokers,
                                                            int64_t timestamp) {
  std::map<TopicPartition, int64_t> out;
  for (auto& [tp, offset] : ListOffsetsAtLeaders(leaders, brokers, timestamp)) {
    if (!offset.ok()) {
      return absl::UnavailableError(absl::StrCat(tp.topic, "-", tp.partition, ": ", offset.status().message()));
    }
    out[tp] = *offset;
  }
  return out;
}

// The partitions' new offsets, with a note on stderr for each one clamped.
absl::StatusOr<std::vector<OffsetToCommit>> PlanOffsets(const ResetOptions& o, const ResetSpec& spec,
                                                        const std::map<TopicPartition, int32_t>& leaders,
                                                        const std::map<TopicPartition, int64_t>& committed,
                                                        const std::map<int32_t, Endpoint>& brokers) {
  auto earliest = OffsetsAt(leaders, brokers, kafka::kListOffsetsEarliestTimestamp);
  if (!earliest.ok()) return earliest.status();
  auto latest = OffsetsAt(leaders, brokers, kafka::kListOffsetsLatestTimestamp);
  if (!latest.ok()) return latest.status();
  std::map<TopicPartition, int64_t> at_timestamp;
  if (spec.kind == ResetKind::kDatetime) {
    auto found = OffsetsAt(leaders, brokers, spec.value);
    if (!found.ok()) return found.status();
    at_timestamp = std::move(*found);
  }
  std::vector<OffsetToCommit> out;
  for (const auto& [tp, leader] : leaders) {
    PartitionOffsets p{earliest->at(tp), latest->at(tp), std::nullopt, -1};
    if (auto c = committed.find(tp); c != committed.end()) p.committed = c->second;
    if (auto t = at_timestamp.find(tp); t != at_timestamp.end()) p.at_timestamp = t->second;
    int64_t requested = 0;
    auto offset = NewOffset(spec, p, &requested);
    if (!offset.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(tp.topic, "-", tp.partition, ": ", offset.status().message()));
    }
    if (*offset != requested) {
      std::cerr << "strata: groups reset-offsets " << o.group << ": " << tp.topic << "-" << tp.partition
                << ": offset " << requested << " is " << (requested < p.earliest ? "below the earliest " : "past the latest ")
                << *offset << "; using " << *offset << std::endl;
    }
    out.push_back({tp, *offset});
  }
  return out;
}

// Commits the offsets; the coordinator's refusal of a group with members is said so.
int Commit(const std::string& group, const std::vector<OffsetToCommit>& offsets, GroupClient& client) {
  const std::string what = absl::StrCat("groups reset-offsets ", group);
  auto results = client.CommitOffsets(group, offsets);
  if (!results.ok()) return Fail(what, std::string(results.status().message()));
  int code = kExitOk;
  std::set<TopicPartition> answered;
  for (const auto& [tp, error_code] : *results) {
    answered.insert(tp);
    if (error_code == 0) continue;
    switch (static_cast<kafka::ErrorCode>(error_code)) {
      case kafka::ErrorCode::kUnknownMemberId:
      case kafka::ErrorCode::kRebalanceInProgress:
      case kafka::ErrorCode::kIllegalGeneration:
        return Fail(what, absl::StrCat("the group must be inactive (no members) to reset offsets (the coordinator "
                                       "answered ",
                                       KafkaErrorStatus(error_code).message(), "); nothing was committed"));
      default:
        code = Fail(absl::StrCat(what, ": ", tp.topic, "-", tp.partition), std::string(KafkaErrorStatus(error_code).message()));
    }
  }
  for (const OffsetToCommit& o : offsets) {
    if (!answered.count(o.partition)) {
      code = Fail(absl::StrCat(what, ": ", o.partition.topic, "-", o.partition.partition), "OffsetCommit answered nothing");
    }
  }
  return code;
}

int ResetOffsets(const ResetOptions& o, const Context& ctx) {
  const std::string what = absl::StrCat("groups reset-offsets ", o.group);
  auto spec = SpecOf(o);
  auto wanted = ParseTopics(o.topics);
  for (const absl::Status& s : {spec.status(), wanted.status()}) {
    if (!s.ok()) {
      std::cerr << "strata: groups reset-offsets: " << s.message() << std::endl;
      return kExitUsage;
    }
  }
  auto session = OpenGroupsSession(ctx);
  if (!session.ok()) return Fail(what, std::string(session.status().message()));
  auto fetched = session->client.FetchOffsets(o.group);
  if (!fetched.ok()) return Fail(what, std::string(fetched.status().message()));
  std::map<TopicPartition, int64_t> committed;
  for (const CommittedOffset& c : *fetched) {
    if (c.error_code == 0 && c.offset >= 0) committed[c.partition] = c.offset;
  }
  if (o.all_topics) {
    // As Kafka's tool: the partitions the group has offsets for.
    for (const auto& [tp, offset] : committed) (*wanted)[tp.topic].insert(tp.partition);
    if (wanted->empty()) return Fail(what, "the group has no committed offsets (--all-topics)");
  }
  auto leaders = PartitionsToReset(ctx, *wanted);
  if (!leaders.ok()) return Fail(what, std::string(leaders.status().message()));
  auto offsets = PlanOffsets(o, *spec, *leaders, committed, session->brokers);
  if (!offsets.ok()) return Fail(what, std::string(offsets.status().message()));
  if (o.execute) {
    if (int code = Commit(o.group, *offsets, session->client); code != kExitOk) return code;
  }
  json partitions = json::array();
  Table table({"GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"});
  for (const OffsetToCommit& c : *offsets) {
    partitions.push_back({{"topic", c.partition.topic}, {"partition", c.partition.partition}, {"new_offset", c.offset}});
    table.Add({o.group, c.partition.topic, std::to_string(c.partition.partition), std::to_string(c.offset)});
  }
  Print(table, json{{"group", o.group}, {"dry_run", !o.execute}, {"partitions", partitions}}, ctx.as_json);
  if (!o.execute && !ctx.as_json) std::cout << "Dry run: nothing was committed (add --execute to commit)." << std::endl;
  return kExitOk;
}

}  // namespace

void AddGroupsResetOffsetsCommand(CLI::App& groups, Commands& commands) {
  auto o = std::make_shared<ResetOptions>();
  auto* cmd = groups.add_subcommand(
      "reset-offsets", "Compute new committed offsets for a group without members; commit them with --execute");
  cmd->add_option("group", o->group, "Group")->required();
  cmd->add_option("--topic", o->topics, "TOPIC (every partition) or TOPIC:0,1,2 (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--all-topics", o->all_topics, "Every partition the group has an offset for");
  cmd->add_flag("--to-earliest", o->to_earliest, "The log start offset");
  cmd->add_flag("--to-latest", o->to_latest, "The log end offset");
  o->to_datetime_option = cmd->add_option(
      "--to-datetime", o->to_datetime,
      "The first offset at or after a time: epoch ms, or 2026-12-01T10:00:00.000 (local time), ...Z or ...+01:00");
  o->to_offset_option = cmd->add_option("--to-offset", o->to_offset, "This offset (kept inside [earliest, latest])");
  o->shift_by_option = cmd->add_option("--shift-by", o->shift_by,
                                       "The committed offset plus N (N < 0 goes back; kept inside [earliest, latest])");
  cmd->add_flag("--execute", o->execute, "Commit the new offsets (without it: a dry run that only prints them)");
  commands.push_back({cmd, [o](const Context& ctx) { return ResetOffsets(*o, ctx); }});
}

}  // namespace strata::cli
