#pragma once
// Data-driven tests in the manner of etcd raft's and CockroachDB's `datadriven`: a file
// of cases, each a command line, a `----` line and the output expected, cases separated
// by a blank line; lines starting with `#` between cases are comments. A test hands
// RunDataDriven a function that runs one command and returns its output; each case's
// output must equal what the file says. With STRATA_REWRITE_TESTDATA=1 the file is
// written back with the outputs produced instead (then read the diff before committing).
//
//   # Two members join; the first rebalance waits for the initial delay.
//   join a
//   ----
//   join a: MEMBER_ID_REQUIRED
//
// A command line is a word and arguments, `key=value` or a bare `key`.
// Not thread-safe.

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace strata::testing {

struct DataDrivenCommand {
  std::string name;
  std::vector<std::string> positional;  // arguments without '='
  std::map<std::string, std::string> args;
  std::string line;  // as written
  int line_number = 0;

  bool Has(const std::string& key) const { return args.count(key) > 0; }
  // The argument's value, or fallback when absent.
  std::string Get(const std::string& key, const std::string& fallback = "") const;
  int64_t GetInt(const std::string& key, int64_t fallback) const;
};

// Runs every case of the file at path through run, reporting each mismatch as a gtest
// failure that names the file and line.
void RunDataDriven(const std::string& path, const std::function<std::string(const DataDrivenCommand&)>& run);

}  // namespace strata::testing
