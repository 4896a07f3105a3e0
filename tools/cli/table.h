#pragma once
// A plain-text table with aligned columns, as the strata CLI prints by default.
// Not thread-safe.

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace strata {

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void Print(std::ostream& out) const {
    std::vector<size_t> width;
    for (const auto& row : rows_) {
      width.resize(std::max(width.size(), row.size()));
      for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    }
    for (const auto& row : rows_) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) {
        line += row[i];
        if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
      }
      out << line << "\n";
    }
    out.flush();
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace strata
