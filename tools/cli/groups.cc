// strata groups list | describe | delete (and reset-offsets, groups_reset.cc): consumer
// groups, as Kafka's kafka-consumer-groups.sh shows them. The controllers name the
// brokers and the topics' leaders; the groups themselves are asked of their
// coordinators over the Kafka protocol (group_client.h), the log end offsets of the
// partitions' leaders (leader_offsets.h).

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/kafka/consumer_protocol.h"
#include "proto/kafka/list_offsets.h"
#include "tools/cli/groups.h"
#include "tools/cli/leader_offsets.h"

namespace strata::cli {

namespace kafka = proto::kafka;

absl::StatusOr<GroupsSession> OpenGroupsSession(const Context& ctx) {
  auto brokers = ListBrokers(ctx);
  if (!brokers.ok()) return brokers.status();
  return GroupsSession{*brokers, GroupClient(*brokers, kCoordinatorWait)};
}

absl::StatusOr<std::map<int32_t, Endpoint>> ListBrokers(const Context& ctx) {
  av1::DescribeClusterResponse cluster;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeCluster, av1::DescribeClusterRequest(), &cluster, &error)) {
    return absl::UnavailableError(error);
  }
  std::map<int32_t, Endpoint> brokers = BrokerEndpoints(cluster, ctx.listener);
  if (brokers.empty() && !ctx.listener.empty()) {
    return absl::UnavailableError(absl::StrCat("no broker has a ", BrokerSecurity().protocol, " listener named ",
                                               ctx.listener, " (--listener, STRATA_LISTENER; --command-config's "
                                               "security.protocol)"));
  }
  return brokers;
}

absl::StatusOr<TopicLeaders> DescribeTopicLeaders(const Context& ctx, const std::set<std::string>& topics) {
  TopicLeaders out;
  if (topics.empty()) return out;  // an empty request would describe every topic
  av1::DescribeTopicsRequest request;
  for (const std::string& t : topics) request.add_names(t);
  av1::DescribeTopicsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeTopics, request, &r, &error)) {
    return absl::UnavailableError(error);
  }
  for (const auto& t : r.topics()) {
    if (t.error_code() != 0) {
      out.errors[t.name()] = ErrorText(t.error_code(), t.error_message());
      continue;
    }
    for (const auto& p : t.partitions()) out.leaders[{t.name(), p.partition_id()}] = p.leader();
  }
  return out;
}

namespace {

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }
json OrNull(const std::optional<int64_t>& v) { return v ? json(*v) : json(nullptr); }

// --- list ------------------------------------------------------------------------------

// ListGroups at every broker: each answers the groups it coordinates.
int List(const Context& ctx) {
  auto session = OpenGroupsSession(ctx);
  if (!session.ok()) return Fail("groups list", std::string(session.status().message()));
  int code = kExitOk;
  std::vector<std::pair<ListedGroup, int32_t>> groups;
  for (const auto& [id, endpoint] : session->brokers) {
    auto listed = session->client.ListGroups(id);
    if (!listed.ok()) {
      code = Fail(absl::StrCat("groups list: broker ", id, " (", HostPort(endpoint), ")"),
                  std::string(listed.status().message()));
      continue;
    }
    for (ListedGroup& g : *listed) groups.push_back({std::move(g), id});
  }
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.first.group_id < b.first.group_id; });
  json out = json::array();
  Table table({"GROUP", "TYPE", "STATE", "PROTOCOL_TYPE", "COORDINATOR"});
  for (const auto& [g, coordinator] : groups) {
    out.push_back({{"group", g.group_id}, {"type", g.type}, {"state", g.state}, {"protocol_type", g.protocol_type},
                   {"coordinator", coordinator}});
    table.Add({g.group_id, OrDash(g.type), OrDash(g.state), OrDash(g.protocol_type), std::to_string(coordinator)});
  }
  Print(table, out, ctx.as_json);
  return code;
}

// --- describe --------------------------------------------------------------------------

// A member and the partitions assigned to it (a classic group's decoded when the
// protocol type is "consumer" and the group is Stable: only then does the coordinator
// give assignments); a KIP-848 consumer group's member also has its epoch and its part
// of the target assignment.
struct MemberView {
  kafka::DescribeGroupsResponse::Member member;
  std::vector<kafka::ConsumerTopicPartitions> assignment;
  std::optional<int32_t> member_epoch;
  std::vector<kafka::ConsumerTopicPartitions> target;
  int32_t partition_count() const {
    int32_t n = 0;
    for (const auto& t : assignment) n += static_cast<int32_t>(t.partitions.size());
    return n;
  }
};

struct GroupView {
  std::string group;
  int32_t coordinator = -1;
  // A classic group's description; a consumer group's in its terms (protocol type
  // "consumer", its assignor as the protocol).
  kafka::DescribeGroupsResponse::Group description;
  std::optional<kafka::ConsumerGroupDescribeResponse::Group> consumer;  // a KIP-848 group
  std::vector<MemberView> members;
};

std::vector<kafka::ConsumerTopicPartitions> ByName(
    const std::vector<kafka::ConsumerGroupDescribeResponse::TopicPartitions>& topics) {
  std::vector<kafka::ConsumerTopicPartitions> out;
  for (const auto& t : topics) out.push_back({t.topic_name, t.partitions});
  return out;
}

// A KIP-848 consumer group as a GroupView.
GroupView ConsumerGroupView(const std::string& group, int32_t coordinator,
                            kafka::ConsumerGroupDescribeResponse::Group described) {
  GroupView view;
  view.group = group;
  view.coordinator = coordinator;
  view.description.group_id = group;
  view.description.group_state = described.group_state;
  view.description.protocol_type = std::string(kafka::kConsumerProtocolType);
  view.description.protocol_data = described.assignor_name;
  for (const auto& m : described.members) {
    MemberView mv;
    mv.member.member_id = m.member_id;
    mv.member.group_instance_id = m.instance_id;
    mv.member.client_id = m.client_id;
    mv.member.client_host = m.client_host;
    mv.assignment = ByName(m.assignment);
    mv.member_epoch = m.member_epoch;
    mv.target = ByName(m.target_assignment);
    view.members.push_back(std::move(mv));
  }
  view.consumer = std::move(described);
  return view;
}

// FindCoordinator, then ConsumerGroupDescribe and, for a classic group, DescribeGroups
// (as Kafka's AdminClient); assignments that do not decode are left empty with a warning
// on stderr.
absl::StatusOr<GroupView> LoadGroup(GroupClient& client, const std::string& group) {
  GroupView view;
  view.group = group;
  auto coordinator = client.FindCoordinator(group);
  if (!coordinator.ok()) return coordinator.status();
  view.coordinator = coordinator->node_id;
  auto consumer = client.DescribeConsumerGroup(group);
  if (!consumer.ok()) return consumer.status();
  if (*consumer) return ConsumerGroupView(group, view.coordinator, std::move(**consumer));
  auto description = client.DescribeGroup(group);
  if (!description.ok()) return description.status();
  view.description = std::move(*description);
  for (const auto& m : view.description.members) {
    MemberView mv{m, {}};
    if (view.description.protocol_type == kafka::kConsumerProtocolType && !m.member_assignment.empty()) {
      auto assignment = kafka::ReadConsumerAssignment(m.member_assignment);
      if (assignment.ok()) {
        mv.assignment = std::move(assignment->assigned_partitions);
      } else {
        std::cerr << "strata: groups describe " << group << ": member " << m.member_id
                  << ": its assignment does not decode: " << assignment.status().message() << std::endl;
      }
    }
    view.members.push_back(std::move(mv));
  }
  return view;
}

std::string AssignmentText(const std::vector<kafka::ConsumerTopicPartitions>& assignment) {
  std::vector<std::string> parts;
  for (const auto& t : assignment) parts.push_back(absl::StrCat(t.topic, "(", absl::StrJoin(t.partitions, ","), ")"));
  return parts.empty() ? "-" : absl::StrJoin(parts, ",");
}

json MembersJson(const GroupView& view) {
  json out = json::array();
  for (const MemberView& mv : view.members) {
    json assignment = json::array();
    for (const auto& t : mv.assignment) assignment.push_back({{"topic", t.topic}, {"partitions", t.partitions}});
    const auto& m = mv.member;
    json member = {{"consumer_id", m.member_id},
                   {"group_instance_id", m.group_instance_id ? json(*m.group_instance_id) : json(nullptr)},
                   {"host", m.client_host}, {"client_id", m.client_id}, {"partition_count", mv.partition_count()},
                   {"assignment", assignment}};
    if (mv.member_epoch) {
      json target = json::array();
      for (const auto& t : mv.target) target.push_back({{"topic", t.topic}, {"partitions", t.partitions}});
      member["member_epoch"] = *mv.member_epoch;
      member["target_assignment"] = std::move(target);
    }
    out.push_back(std::move(member));
  }
  return out;
}

// One line for the group: "g1: state Stable, protocol type consumer, protocol range, 1
// member, coordinator 2"; a KIP-848 group's: "g1: consumer group, state Stable, group
// epoch 3, assignment epoch 3, assignor uniform, 2 members, coordinator 2".
std::string SummaryLine(const GroupView& view) {
  const auto& d = view.description;
  const size_t n = view.members.size();
  if (view.consumer) {
    const auto& c = *view.consumer;
    return absl::StrCat(view.group, ": consumer group, state ", c.group_state, ", group epoch ", c.group_epoch,
                        ", assignment epoch ", c.assignment_epoch, ", assignor ", OrDash(c.assignor_name), ", ", n,
                        n == 1 ? " member" : " members", ", coordinator ", view.coordinator);
  }
  return absl::StrCat(view.group, ": state ", d.group_state, ", protocol type ", OrDash(d.protocol_type),
                      ", protocol ", OrDash(d.protocol_data), ", ", n, n == 1 ? " member" : " members",
                      ", coordinator ", view.coordinator);
}

// A partition the group has an offset for or a member is assigned.
struct PartitionRow {
  std::optional<int64_t> current_offset;
  std::optional<int64_t> log_end_offset;
  const kafka::DescribeGroupsResponse::Member* owner = nullptr;
};

// The group's partitions with their committed offsets, owners and log end offsets;
// *complete false (and a line on stderr) for each one whose log end could not be read.
absl::StatusOr<std::map<TopicPartition, PartitionRow>> PartitionRows(const Context& ctx, GroupsSession& session,
                                                                     const GroupView& view, bool* complete) {
  auto committed = session.client.FetchOffsets(view.group);
  if (!committed.ok()) return committed.status();
  std::map<TopicPartition, PartitionRow> rows;
  for (const CommittedOffset& c : *committed) {
    if (c.error_code != 0) {
      std::cerr << "strata: groups describe " << view.group << ": " << c.partition.topic << "-" << c.partition.partition
                << ": " << KafkaErrorStatus(c.error_code).message() << std::endl;
      *complete = false;
    } else if (c.offset >= 0) {
      rows[c.partition].current_offset = c.offset;
    }
  }
  for (const MemberView& mv : view.members) {
    for (const auto& t : mv.assignment) {
      for (int32_t p : t.partitions) rows[{t.topic, p}].owner = &mv.member;
    }
  }
  std::set<std::string> topics;
  for (const auto& [tp, row] : rows) topics.insert(tp.topic);
  auto described = DescribeTopicLeaders(ctx, topics);
  if (!described.ok()) return described.status();
  std::map<TopicPartition, int32_t> leaders;
  for (const auto& [tp, row] : rows) {
    auto it = described->leaders.find(tp);
    if (it != described->leaders.end()) leaders.insert(*it);
  }
  auto log_ends = ListOffsetsAtLeaders(leaders, session.brokers, kafka::kListOffsetsLatestTimestamp);
  for (auto& [tp, row] : rows) {
    auto end = log_ends.find(tp);
    std::string why;
    if (end != log_ends.end() && end->second.ok()) {
      row.log_end_offset = *end->second;
      continue;
    }
    if (end != log_ends.end()) {
      why = std::string(end->second.status().message());
    } else if (described->errors.count(tp.topic)) {
      why = described->errors.at(tp.topic);
    } else {
      why = "the topic has no such partition";
    }
    std::cerr << "strata: groups describe " << view.group << ": " << tp.topic << "-" << tp.partition
              << ": no log end offset: " << why << std::endl;
    *complete = false;
  }
  return rows;
}

struct DescribeOptions {
  std::vector<std::string> groups;
  bool members = false;
};

int Describe(const DescribeOptions& o, const Context& ctx) {
  auto session = OpenGroupsSession(ctx);
  if (!session.ok()) return Fail("groups describe", std::string(session.status().message()));
  int code = kExitOk;
  json out = json::array();
  bool first = true;
  for (const std::string& group : o.groups) {
    auto view = LoadGroup(session->client, group);
    if (!view.ok()) {
      code = Fail(absl::StrCat("groups describe ", group), std::string(view.status().message()));
      continue;
    }
    const auto& d = view->description;
    json g = {{"group", group},
              {"type", view->consumer ? "consumer" : "classic"},
              {"coordinator", view->coordinator},
              {"state", d.group_state},
              {"protocol_type", d.protocol_type},
              {"protocol", d.protocol_data},
              {"member_count", view->members.size()},
              {"members", MembersJson(*view)}};
    if (view->consumer) {
      g["group_epoch"] = view->consumer->group_epoch;
      g["assignment_epoch"] = view->consumer->assignment_epoch;
    }
    if (!ctx.as_json) {
      if (!first) std::cout << "\n";
      std::cout << SummaryLine(*view) << std::endl;
    }
    first = false;
    if (o.members) {
      std::vector<std::string> columns = {"GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID",
                                          "#PARTITIONS", "ASSIGNMENT"};
      if (view->consumer) columns.insert(columns.end(), {"MEMBER-EPOCH", "TARGET-ASSIGNMENT"});
      Table table(columns);
      for (const MemberView& mv : view->members) {
        const auto& m = mv.member;
        std::vector<std::string> row = {group, m.member_id, m.group_instance_id.value_or("-"), OrDash(m.client_host),
                                        OrDash(m.client_id), std::to_string(mv.partition_count()),
                                        AssignmentText(mv.assignment)};
        if (view->consumer) row.insert(row.end(), {std::to_string(mv.member_epoch.value_or(-1)), AssignmentText(mv.target)});
        table.Add(row);
      }
      if (!ctx.as_json) table.Print(std::cout);
      out.push_back(std::move(g));
      continue;
    }
    bool complete = true;
    auto rows = PartitionRows(ctx, *session, *view, &complete);
    if (!rows.ok()) {
      code = Fail(absl::StrCat("groups describe ", group), std::string(rows.status().message()));
      continue;
    }
    if (!complete) code = kExitFailed;
    json partitions = json::array();
    Table table({"GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST",
                 "CLIENT-ID"});
    auto text = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
    for (const auto& [tp, row] : *rows) {
      std::optional<int64_t> lag;
      if (row.current_offset && row.log_end_offset) lag = *row.log_end_offset - *row.current_offset;
      const auto* m = row.owner;
      partitions.push_back({{"topic", tp.topic}, {"partition", tp.partition},
                            {"current_offset", OrNull(row.current_offset)},
                            {"log_end_offset", OrNull(row.log_end_offset)}, {"lag", OrNull(lag)},
                            {"consumer_id", m ? json(m->member_id) : json(nullptr)},
                            {"host", m ? json(m->client_host) : json(nullptr)},
                            {"client_id", m ? json(m->client_id) : json(nullptr)}});
      table.Add({group, tp.topic, std::to_string(tp.partition), text(row.current_offset), text(row.log_end_offset),
                 text(lag), m ? m->member_id : "-", m ? OrDash(m->client_host) : "-", m ? OrDash(m->client_id) : "-"});
    }
    g["partitions"] = std::move(partitions);
    if (!ctx.as_json) table.Print(std::cout);
    out.push_back(std::move(g));
  }
  if (ctx.as_json) std::cout << out.dump() << std::endl;
  return code;
}

// --- delete ----------------------------------------------------------------------------

int Delete(const std::vector<std::string>& groups, const Context& ctx) {
  auto session = OpenGroupsSession(ctx);
  if (!session.ok()) return Fail("groups delete", std::string(session.status().message()));
  int code = kExitOk;
  json out = json::array();
  Table table({"GROUP", "RESULT"});
  for (const std::string& group : groups) {
    auto error_code = session->client.DeleteGroup(group);
    std::string result;
    if (!error_code.ok()) {
      result = std::string(error_code.status().message());
    } else if (*error_code != 0) {
      result = std::string(KafkaErrorStatus(*error_code).message());
    }
    if (!result.empty()) {
      code = kExitFailed;
      if (!ctx.as_json) std::cerr << "delete " << group << ": " << result << std::endl;
    }
    out.push_back({{"group", group}, {"error_code", error_code.ok() ? *error_code : -1}, {"error", result}});
    table.Add({group, result.empty() ? "ok" : result});
  }
  Print(table, out, ctx.as_json);
  return code;
}

}  // namespace

void AddGroupsCommands(CLI::App& app, Commands& commands) {
  auto* groups = app.add_subcommand("groups", "List, describe, delete consumer groups and reset their offsets")
                     ->require_subcommand(1);

  auto* list_cmd = groups->add_subcommand("list", "Every group of the cluster, with its state and coordinator");
  commands.push_back({list_cmd, List});

  auto describe = std::make_shared<DescribeOptions>();
  auto* describe_cmd = groups->add_subcommand(
      "describe", "Per partition: the committed offset, log end offset, lag and the member assigned it");
  describe_cmd->add_option("groups", describe->groups, "Groups")->required();
  describe_cmd->add_flag("--members", describe->members,
                         "The members instead: id, instance id, host, client id and assigned partitions");
  commands.push_back({describe_cmd, [describe](const Context& ctx) { return Describe(*describe, ctx); }});

  auto remove = std::make_shared<std::vector<std::string>>();
  auto* delete_cmd = groups->add_subcommand("delete", "Delete groups without members, and their offsets");
  delete_cmd->add_option("groups", *remove, "Groups")->required();
  commands.push_back({delete_cmd, [remove](const Context& ctx) { return Delete(*remove, ctx); }});

  AddGroupsResetOffsetsCommand(*groups, commands);
}

}  // namespace strata::cli
