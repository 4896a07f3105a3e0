// strata features describe | upgrade | downgrade: the cluster's finalized feature levels
// (KIP-584) through the controllers, as kafka-features.sh does it over a broker.
// describe lists each feature this build supports with its finalized level, whether an
// operator set it (then registrations no longer raise it), and the highest level every
// registered broker supports; upgrade and downgrade take --feature name=level (repeatable;
// level 0 disables), --dry-run checks only, and downgrade --unsafe asks for an unsafe
// downgrade (controller/feature_control.h has the rules).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

struct UpdateOptions {
  std::vector<std::string> features;  // name=level
  bool dry_run = false;
  bool unsafe = false;  // downgrade only
};

int Describe(const Context& ctx) {
  av1::DescribeFeaturesResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeFeatures, av1::DescribeFeaturesRequest(), &r, &error)) {
    return Fail("features describe", error);
  }
  json out = json::array();
  Table t({"FEATURE", "SUPPORTED", "FINALIZED", "SET_BY", "BROKERS_MAX"});
  for (const auto& f : r.features()) {
    out.push_back({{"feature", f.name()}, {"min_level", f.min_level()}, {"max_level", f.max_level()},
                   {"finalized_level", f.finalized_level()}, {"set_by_operator", f.set_by_operator()},
                   {"brokers_max_level", f.brokers_max_level()}});
    t.Add({f.name(), absl::StrCat(f.min_level(), "-", f.max_level()), std::to_string(f.finalized_level()),
           f.set_by_operator() ? "operator" : "registrations", std::to_string(f.brokers_max_level())});
  }
  Print(t, out, ctx.as_json);
  return kExitOk;
}

int Update(const UpdateOptions& o, bool downgrade, const Context& ctx) {
  const char* what = downgrade ? "features downgrade" : "features upgrade";
  av1::UpdateFeaturesRequest request;
  request.set_validate_only(o.dry_run);
  for (const std::string& kv : o.features) {
    std::vector<std::string> split = absl::StrSplit(kv, absl::MaxSplits('=', 1));
    int32_t level = 0;
    if (split.size() != 2 || split[0].empty() || !absl::SimpleAtoi(split[1], &level)) {
      std::cerr << "strata: --feature takes name=level, not " << kv << std::endl;
      return kExitUsage;
    }
    av1::FeatureUpdate* u = request.add_updates();
    u->set_feature(split[0]);
    u->set_max_version_level(level);
    u->set_upgrade_type(!downgrade ? av1::FeatureUpdate::UPGRADE
                                   : (o.unsafe ? av1::FeatureUpdate::UNSAFE_DOWNGRADE : av1::FeatureUpdate::SAFE_DOWNGRADE));
  }
  av1::UpdateFeaturesResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::UpdateFeatures, request, &r, &error)) return Fail(what, error);
  const char* result = o.dry_run ? "valid (dry run: nothing changed)" : "ok";
  std::cout << (ctx.as_json ? json{{"result", result}}.dump() : std::string(result)) << std::endl;
  return kExitOk;
}

void AddUpdateOptions(CLI::App* cmd, UpdateOptions& o) {
  cmd->add_option("--feature", o.features, "name=level (repeatable), e.g. transaction.version=1; 0 disables")
      ->required();
  cmd->add_flag("--dry-run", o.dry_run, "Check only; change nothing");
}

}  // namespace

void AddFeaturesCommands(CLI::App& app, Commands& commands) {
  auto* features = app.add_subcommand("features", "Finalized feature levels (transaction.version, kraft.version)")->require_subcommand(1);
  commands.push_back({features->add_subcommand("describe", "Supported and finalized levels"), Describe});
  auto upgrade = std::make_shared<UpdateOptions>();
  auto* upgrade_cmd = features->add_subcommand("upgrade", "Raise features to the levels given");
  AddUpdateOptions(upgrade_cmd, *upgrade);
  auto downgrade = std::make_shared<UpdateOptions>();
  auto* downgrade_cmd = features->add_subcommand("downgrade", "Lower features to the levels given (0: disable)");
  AddUpdateOptions(downgrade_cmd, *downgrade);
  downgrade_cmd->add_flag("--unsafe", downgrade->unsafe, "An unsafe downgrade (Kafka's UNSAFE_DOWNGRADE)");
  commands.push_back({upgrade_cmd, [upgrade](const Context& ctx) { return Update(*upgrade, false, ctx); }});
  commands.push_back({downgrade_cmd, [downgrade](const Context& ctx) { return Update(*downgrade, true, ctx); }});
}

}  // namespace strata::cli
