#pragma once
// Certificates for tests, made by tools/strata-certs (the script strata-cluster --secure
// and deploy/ use) in a temporary directory: a CA (ca.pem), and keystores (key and
// certificate in one PEM file) that name nodes by URI (security/node_identity.h) or carry
// a plain subject, from this CA or another one. STRATA_CERTS_PATH (a compile definition)
// names the script.
// Not thread-safe.

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/support/temp_dir.h"

namespace strata::testing {

class TestCerts {
 public:
  // A keystore DIR/name.pem made with strata-certs' options (such as "--controller 1
  // --broker 1", "--ca other", "--days 0"); its path ("" after a failed assertion).
  std::string Make(const std::string& name, const std::string& options = "") {
    static_assert(sizeof(STRATA_CERTS_PATH) > 1, "STRATA_CERTS_PATH names tools/strata-certs");
    std::string command = std::string("bash ") + STRATA_CERTS_PATH + " " + dir_.path() + " " + name + " " + options +
                          " >/dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return Keystore(name);
  }
  std::string Keystore(const std::string& name) const { return dir_.path() + "/" + name + ".pem"; }
  // The CA certificate (a truststore); ca_name as strata-certs' --ca.
  std::string Ca(const std::string& ca_name = "ca") const { return dir_.path() + "/" + ca_name + ".pem"; }
  const std::string& dir() const { return dir_.path(); }

 private:
  TempDir dir_;
};

}  // namespace strata::testing
