#pragma once
// WriteTxnMarkers (key 27) v0-v2: a transaction coordinator has a partition leader write
// the end-of-transaction markers (commit or abort) of producers' transactions; a broker
// sends it as a client and answers it as a leader. Request: per marker the producer id
// and epoch, transaction_result (true: commit, false: abort), topics with their partition
// indexes, the coordinator epoch, and from v2 the transaction version the transaction ran
// with (KIP-1228, Kafka 4.2: 0 or 1 the classic protocol, 2 KIP-890's). Response: per
// marker the producer id and per topic per partition an error code. Flexible from v1.
// (Kafka 4.0 dropped v0 from what it serves; the message schema here, older, lists v0-v1.)
// Not thread-safe (values and functions).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/kafka/wire.h"

namespace strata::proto::kafka {

struct WriteTxnMarkersRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
    bool operator==(const Topic&) const = default;
  };
  struct Marker {
    int64_t producer_id = 0;
    int16_t producer_epoch = 0;
    bool transaction_result = false;  // true: commit, false: abort
    std::vector<Topic> topics;
    int32_t coordinator_epoch = 0;
    int8_t transaction_version = 0;  // v2+
    bool operator==(const Marker&) const = default;
  };
  std::vector<Marker> markers;
  bool operator==(const WriteTxnMarkersRequest&) const = default;
};

struct WriteTxnMarkersResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    bool operator==(const Partition&) const = default;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    bool operator==(const Topic&) const = default;
  };
  struct Marker {
    int64_t producer_id = 0;
    std::vector<Topic> topics;
    bool operator==(const Marker&) const = default;
  };
  std::vector<Marker> markers;
  bool operator==(const WriteTxnMarkersResponse&) const = default;
};

absl::StatusOr<WriteTxnMarkersRequest> ReadWriteTxnMarkersRequest(Reader& reader, int16_t version);
void WriteWriteTxnMarkersRequest(const WriteTxnMarkersRequest& request, int16_t version, Writer& writer);
void WriteWriteTxnMarkersResponse(const WriteTxnMarkersResponse& response, int16_t version, Writer& writer);
absl::StatusOr<WriteTxnMarkersResponse> ReadWriteTxnMarkersResponse(Reader& reader, int16_t version);

}  // namespace strata::proto::kafka
