#include "tests/support/datadriven.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace strata::testing {

namespace {

DataDrivenCommand Parse(const std::string& line, int number) {
  DataDrivenCommand c;
  c.line = line;
  c.line_number = number;
  std::vector<std::string> words = absl::StrSplit(line, ' ', absl::SkipEmpty());
  if (words.empty()) return c;
  c.name = words[0];
  for (size_t i = 1; i < words.size(); ++i) {
    auto eq = words[i].find('=');
    if (eq == std::string::npos) {
      c.positional.push_back(words[i]);
    } else {
      c.args[words[i].substr(0, eq)] = words[i].substr(eq + 1);
    }
  }
  return c;
}

}  // namespace

std::string DataDrivenCommand::Get(const std::string& key, const std::string& fallback) const {
  auto it = args.find(key);
  return it == args.end() ? fallback : it->second;
}

int64_t DataDrivenCommand::GetInt(const std::string& key, int64_t fallback) const {
  auto it = args.find(key);
  if (it == args.end()) return fallback;
  int64_t v = 0;
  EXPECT_TRUE(absl::SimpleAtoi(it->second, &v)) << "line " << line_number << ": " << key << "=" << it->second;
  return v;
}

void RunDataDriven(const std::string& path, const std::function<std::string(const DataDrivenCommand&)>& run) {
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "cannot read " << path;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const bool rewrite = std::getenv("STRATA_REWRITE_TESTDATA") != nullptr;
  std::ostringstream rewritten;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string& line = lines[i];
    if (line.empty() || line[0] == '#') {
      rewritten << line << "\n";
      ++i;
      continue;
    }
    const int number = static_cast<int>(i) + 1;
    DataDrivenCommand command = Parse(line, number);
    ++i;
    ASSERT_TRUE(i < lines.size() && lines[i] == "----") << path << ":" << number << ": no ---- after the command";
    ++i;
    std::string expected;
    while (i < lines.size() && !lines[i].empty()) expected += lines[i++] + "\n";
    std::string actual = run(command);
    if (!actual.empty() && actual.back() != '\n') actual += "\n";
    if (rewrite) {
      rewritten << line << "\n----\n" << actual;
    } else {
      EXPECT_EQ(expected, actual) << path << ":" << number << ": " << line;
    }
  }
  if (rewrite) {
    std::string out = rewritten.str();
    std::ofstream(path) << out;
  }
}

}  // namespace strata::testing
