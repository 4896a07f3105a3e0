#include "tests/support/response_bytes.h"

#include <gtest/gtest.h>

namespace strata::testing {

std::string AssembleResponse(const broker::ApiResponse& response) {
  std::string out;
  size_t at = 0;
  for (const proto::kafka::Splice& s : response.splices) {
    out.append(response.body, at, s.position - at);
    auto bytes = response.slices[s.id].ReadAll();
    EXPECT_TRUE(bytes.ok()) << bytes.status();
    out += bytes.ok() ? *bytes : std::string(s.size, '\0');
    at = s.position;
  }
  out.append(response.body, at);
  return out;
}

}  // namespace strata::testing
