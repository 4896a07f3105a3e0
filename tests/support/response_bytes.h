#pragma once
// The bytes a ApiResponse puts on the wire after its header: the body with every
// spliced file slice read and put in place (what a test decodes as the client would).

#include <string>

#include "broker/network/api_response.h"

namespace strata::testing {

// A slice that cannot be read fails the test and stands as that many zero bytes.
std::string AssembleResponse(const broker::ApiResponse& response);

}  // namespace strata::testing
