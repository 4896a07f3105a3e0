#pragma once
// What a controller decision comes to (cluster_control.h, reassignment.h, ...): the
// records that carry it out, or an Outcome with a Kafka error and no records.
// Not thread-safe (values).

#include <string>
#include <vector>

#include "metadata.pb.h"
#include "proto/kafka/error_code.h"

namespace strata::controller {

using proto::kafka::ErrorCode;

struct Outcome {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
  bool ok() const { return code == ErrorCode::kNone; }
};

struct Plan {
  Outcome outcome;
  std::vector<metadata::v1::MetadataRecord> records;
};

}  // namespace strata::controller
