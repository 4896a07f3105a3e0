#include "raft/bootstrap_voters.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/host_port.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"
#include "storage/meta_properties.h"

namespace strata::raft {

absl::StatusOr<VoterSet> ParseInitialControllers(absl::string_view text, const std::string& listener_name) {
  std::vector<Voter> voters;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("initial controller '", part, "' ", why, " (expected <id>@<host>:<port>:<directory id>)"));
    };
    std::vector<absl::string_view> id_rest = absl::StrSplit(part, absl::MaxSplits('@', 1));
    Voter v;
    if (id_rest.size() != 2 || !absl::SimpleAtoi(id_rest[0], &v.id) || v.id <= 0) return bad("has no node id");
    absl::string_view rest = id_rest[1];
    size_t dir_colon = rest.rfind(':');
    if (dir_colon == absl::string_view::npos) return bad("has no directory id");
    auto dir = storage::DecodeBase64Uuid(std::string(rest.substr(dir_colon + 1)));
    if (!dir.ok()) return bad(absl::StrCat("has no valid directory id: ", dir.status().message()));
    v.directory_id = *dir;
    absl::StatusOr<HostPort> address = ParseHostPort(rest.substr(0, dir_colon));
    if (!address.ok()) return bad("has no valid host:port");
    v.endpoints.push_back({listener_name, address->host, static_cast<uint16_t>(address->port)});
    voters.push_back(std::move(v));
  }
  if (voters.empty()) return absl::InvalidArgumentError("--initial-controllers names no controller");
  return VoterSet::Of(std::move(voters));
}

std::string BootstrapVotersToJson(const VoterSet& voters) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, v] : voters.voters()) {
    nlohmann::json endpoints = nlohmann::json::array();
    for (const Endpoint& e : v.endpoints) endpoints.push_back({{"name", e.name}, {"host", e.host}, {"port", e.port}});
    list.push_back({{"id", id},
                    {"directory_id", storage::EncodeBase64Uuid(v.directory_id)},
                    {"endpoints", endpoints},
                    {"min_kraft_version", v.min_kraft_version},
                    {"max_kraft_version", v.max_kraft_version}});
  }
  nlohmann::json j = {{"kraft_version", kKraftVersionDynamic}, {"voters", list}};
  return j.dump(2) + "\n";
}

absl::StatusOr<VoterSet> ParseBootstrapVoters(const std::string& json, const std::string& source) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](absl::string_view what) {
    return absl::DataLossError(absl::StrCat(source, ": ", what));
  };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("kraft_version") || j["kraft_version"] != kKraftVersionDynamic) {
    return bad(absl::StrCat("'kraft_version' must be ", kKraftVersionDynamic));
  }
  if (!j.contains("voters") || !j["voters"].is_array()) return bad("'voters' missing or not a list");
  std::vector<Voter> voters;
  for (const nlohmann::json& jv : j["voters"]) {
    if (!jv.is_object() || !jv.contains("id") || !jv["id"].is_number_integer() || !jv.contains("directory_id") ||
        !jv["directory_id"].is_string() || !jv.contains("endpoints") || !jv["endpoints"].is_array()) {
      return bad("a voter needs 'id', 'directory_id' and 'endpoints'");
    }
    Voter v;
    v.id = jv["id"].get<NodeId>();
    auto dir = storage::DecodeBase64Uuid(jv["directory_id"].get<std::string>());
    if (!dir.ok()) return bad(absl::StrCat("voter ", v.id, ": ", dir.status().message()));
    v.directory_id = *dir;
    for (const nlohmann::json& je : jv["endpoints"]) {
      if (!je.is_object() || !je.contains("name") || !je["name"].is_string() || !je.contains("host") ||
          !je["host"].is_string() || !je.contains("port") || !je["port"].is_number_unsigned() ||
          je["port"].get<uint64_t>() == 0 || je["port"].get<uint64_t>() > 65535) {
        return bad(absl::StrCat("voter ", v.id, ": an endpoint needs 'name', 'host' and a 'port' of 1..65535"));
      }
      v.endpoints.push_back(
          {je["name"].get<std::string>(), je["host"].get<std::string>(), je["port"].get<uint16_t>()});
    }
    for (const char* key : {"min_kraft_version", "max_kraft_version"}) {
      if (jv.contains(key) && !jv[key].is_number_integer()) return bad(absl::StrCat("voter ", v.id, ": '", key, "'"));
    }
    v.min_kraft_version = jv.value("min_kraft_version", int16_t{0});
    v.max_kraft_version = jv.value("max_kraft_version", kKraftVersionDynamic);
    voters.push_back(std::move(v));
  }
  auto set = VoterSet::Of(std::move(voters));
  if (!set.ok()) return bad(set.status().message());
  return set;
}

absl::Status WriteBootstrapVoters(storage::FileOps& ops, const std::string& dir, const VoterSet& voters) {
  STRATA_ASSIGN_OR_RETURN(std::optional<VoterSet> existing, ReadBootstrapVoters(ops, dir));
  if (existing.has_value()) {
    if (*existing == voters) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        storage::JoinPath(dir, kBootstrapVotersFileName), " already names other initial voters (",
        existing->DebugString(), "); a quorum's first voters are never rewritten: format an empty directory"));
  }
  return storage::WriteFileAtomically(ops, storage::JoinPath(dir, kBootstrapVotersFileName),
                                      BootstrapVotersToJson(voters));
}

absl::StatusOr<std::optional<VoterSet>> ReadBootstrapVoters(storage::FileOps& ops, const std::string& dir) {
  std::string path = storage::JoinPath(dir, kBootstrapVotersFileName);
  STRATA_ASSIGN_OR_RETURN(bool exists, ops.Exists(path));
  if (!exists) return std::optional<VoterSet>();
  STRATA_ASSIGN_OR_RETURN(std::string text, storage::ReadWholeFile(ops, path));
  STRATA_ASSIGN_OR_RETURN(VoterSet voters, ParseBootstrapVoters(text, path));
  return std::optional<VoterSet>(std::move(voters));
}

}  // namespace strata::raft
