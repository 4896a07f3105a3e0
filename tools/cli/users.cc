// strata users list | describe NAME... | set NAME | delete NAME: SCRAM credentials
// (KIP-554) through the controllers. `set` salts and hashes the password here (PBKDF2,
// security/scram.h) and sends the salted password, as kafka-configs does; the password
// itself never leaves this process.

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/strip.h"
#include "security/scram.h"
#include "tools/cli/command.h"

namespace strata::cli {
namespace {

struct UsersOptions {
  std::vector<std::string> names;
  std::string mechanism = "SCRAM-SHA-512";
  std::string password;
  std::string password_file;
  int32_t iterations = 8192;
};

int Describe(const UsersOptions& o, const Context& ctx, const char* what) {
  av1::DescribeUserScramCredentialsRequest request;
  for (const std::string& name : o.names) request.add_users(name);
  av1::DescribeUserScramCredentialsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::DescribeUserScramCredentials, request, &r, &error)) {
    return Fail(what, error);
  }
  int code = kExitOk;
  json out = json::array();
  Table t({"USER", "MECHANISM", "ITERATIONS"});
  for (const auto& result : r.results()) {
    if (result.error_code() != 0) {
      code = kExitFailed;
      std::cerr << what << " " << result.user() << ": " << ErrorText(result.error_code(), result.error_message())
                << std::endl;
      out.push_back({{"user", result.user()}, {"error", ErrorText(result.error_code(), result.error_message())}});
      continue;
    }
    for (const auto& info : result.credential_infos()) {
      std::string mechanism = info.mechanism() == 1 ? "SCRAM-SHA-256" : info.mechanism() == 2 ? "SCRAM-SHA-512" : "?";
      out.push_back({{"user", result.user()}, {"mechanism", mechanism}, {"iterations", info.iterations()}});
      t.Add({result.user(), mechanism, std::to_string(info.iterations())});
    }
  }
  Print(t, out, ctx.as_json);
  return code;
}

// Sends one deletion or upsertion; the user's result is the exit code.
int Alter(const av1::AlterUserScramCredentialsRequest& request, const Context& ctx, const char* what) {
  av1::AlterUserScramCredentialsResponse r;
  std::string error;
  if (!ctx.admin.Call(&av1::AdminService::Stub::AlterUserScramCredentials, request, &r, &error)) {
    return Fail(what, error);
  }
  if (r.results_size() != 1) return Fail(what, "the controller answered no result");
  if (r.results(0).error_code() != 0) {
    return Fail(what, ErrorText(r.results(0).error_code(), r.results(0).error_message()));
  }
  std::cout << (ctx.as_json ? "{\"result\":\"ok\"}" : "ok") << std::endl;
  return kExitOk;
}

int Set(const UsersOptions& o, const Context& ctx) {
  std::optional<security::ScramMechanism> mechanism = security::ScramMechanismNamed(o.mechanism);
  if (!mechanism) {
    std::cerr << "strata: --mechanism is SCRAM-SHA-256 or SCRAM-SHA-512" << std::endl;
    return kExitUsage;
  }
  std::string password = o.password;
  if (!o.password_file.empty()) {
    std::ifstream in(o.password_file);
    if (!in || !std::getline(in, password)) return Fail("users set", "cannot read --password-file " + o.password_file);
  }
  if (password.empty()) {
    std::cerr << "strata: give --password or --password-file" << std::endl;
    return kExitUsage;
  }
  std::string salt = security::RandomSalt(*mechanism);
  av1::AlterUserScramCredentialsRequest request;
  auto* u = request.add_upsertions();
  u->set_name(o.names.at(0));
  u->set_mechanism(static_cast<int32_t>(*mechanism));
  u->set_iterations(o.iterations);
  u->set_salt(salt);
  u->set_salted_password(security::SaltedPassword(*mechanism, password, salt, o.iterations));
  return Alter(request, ctx, "users set");
}

int Delete(const UsersOptions& o, const Context& ctx) {
  std::optional<security::ScramMechanism> mechanism = security::ScramMechanismNamed(o.mechanism);
  if (!mechanism) {
    std::cerr << "strata: --mechanism is SCRAM-SHA-256 or SCRAM-SHA-512" << std::endl;
    return kExitUsage;
  }
  av1::AlterUserScramCredentialsRequest request;
  auto* d = request.add_deletions();
  d->set_name(o.names.at(0));
  d->set_mechanism(static_cast<int32_t>(*mechanism));
  return Alter(request, ctx, "users delete");
}

}  // namespace

void AddUsersCommands(CLI::App& app, Commands& commands) {
  auto* users = app.add_subcommand("users", "SCRAM credentials of SASL users")->require_subcommand(1);
  auto list = std::make_shared<UsersOptions>();
  auto* list_cmd = users->add_subcommand("list", "Every user with a SCRAM credential");
  auto describe = std::make_shared<UsersOptions>();
  auto* describe_cmd = users->add_subcommand("describe", "The SCRAM credentials of users");
  describe_cmd->add_option("name", describe->names, "User")->required();
  auto set = std::make_shared<UsersOptions>();
  auto* set_cmd = users->add_subcommand("set", "Set a user's SCRAM credential (a new salt each time)");
  set_cmd->add_option("name", set->names, "User")->required()->expected(1);
  set_cmd->add_option("--mechanism", set->mechanism, "SCRAM-SHA-256 or SCRAM-SHA-512 (default)");
  set_cmd->add_option("--password", set->password, "The password (visible to ps: prefer --password-file)");
  set_cmd->add_option("--password-file", set->password_file, "A file whose first line is the password");
  set_cmd->add_option("--iterations", set->iterations, "PBKDF2 iterations, 4096..16384 (default 8192)");
  auto del = std::make_shared<UsersOptions>();
  auto* delete_cmd = users->add_subcommand("delete", "Remove a user's SCRAM credential for one mechanism");
  delete_cmd->add_option("name", del->names, "User")->required()->expected(1);
  delete_cmd->add_option("--mechanism", del->mechanism, "SCRAM-SHA-256 or SCRAM-SHA-512 (default)");
  commands.push_back({list_cmd, [list](const Context& ctx) { return Describe(*list, ctx, "users list"); }});
  commands.push_back({describe_cmd, [describe](const Context& ctx) { return Describe(*describe, ctx, "users describe"); }});
  commands.push_back({set_cmd, [set](const Context& ctx) { return Set(*set, ctx); }});
  commands.push_back({delete_cmd, [del](const Context& ctx) { return Delete(*del, ctx); }});
}

}  // namespace strata::cli
