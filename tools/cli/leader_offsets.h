#pragma once
// What only a partition's leader knows, asked over the Kafka protocol (ListOffsets v9):
// its local log start, the log start across both tiers, the last tiered offset. The
// controllers' image holds the remote tier's copies, not the brokers' local logs.
// Not thread-safe (one connection per call).

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "admin.pb.h"

namespace strata::cli {

// The PLAINTEXT endpoint of each broker that has one, from DescribeCluster.
std::map<int32_t, std::pair<std::string, int32_t>> PlaintextEndpoints(const admin::v1::DescribeClusterResponse& cluster);

// ListOffsets on (host, port) for one partition and one timestamp (-2 earliest, -4
// earliest local, -5 latest tiered): the offset, or the error the broker answered.
absl::StatusOr<int64_t> LeaderListOffset(const std::pair<std::string, int32_t>& endpoint, const std::string& topic,
                                         int32_t partition, int64_t timestamp);

}  // namespace strata::cli
