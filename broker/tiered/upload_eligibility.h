#pragma once
// Delayed upload (KIP-1241): whether a rolled segment of a remote-storage log may be
// copied to the remote tier now. By default (remote.copy.lag.ms=0) every rolled segment
// below the last stable offset is copied at once, so that the remote tier is as new as it
// can be; an operator who does not need that sets the topic's remote.copy.lag.ms and/or
// remote.copy.lag.bytes (log.remote.copy.lag.* as the brokers' defaults) so that segments
// are copied later, closer to the moment local retention lets them go, and are held on
// both tiers for less time.
//
//   * 0 in either setting: eligible at once (no delay; remote.copy.lag.ms's default is
//     0, so a delay by size alone sets it to -1 or a time too, as in Kafka);
//   * a positive remote.copy.lag.ms: eligible once the segment's newest record
//     (max timestamp) is at least that old;
//   * a positive remote.copy.lag.bytes: eligible once at least that many bytes of the local
//     log follow the segment (every newer segment, the active one included);
//   * -1: the effective local retention (local.retention.*, -2 resolved to retention.*)
//     takes its place, and when that is unlimited (-1) the check does not apply;
//   * eligible when either check that applies passes; when neither applies (both -1 with
//     unlimited local retention) never: nothing would ever make the segment due.
// Copies stay contiguous: the remote log manager copies eligible segments oldest first and
// stops at the first that is not. Local retention never deletes a segment before its
// copy has finished, so a delay larger than the local retention keeps segments on the
// local disk longer and loses nothing (retention.* of the whole log still deletes them).

#include <cstdint>

#include "storage/log_config.h"

namespace strata::broker {

bool UploadEligible(const storage::LogConfig& config, int64_t segment_max_timestamp_ms, int64_t newer_local_bytes,
                    int64_t now_ms);

}  // namespace strata::broker
