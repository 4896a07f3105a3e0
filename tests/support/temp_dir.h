#pragma once
// A fresh directory under $TMPDIR for one test, removed with everything in it when
// the object goes away. Not thread-safe.

#include <string>

namespace strata::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace strata::testing
