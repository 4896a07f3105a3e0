#pragma once
// Entries on the wire: strata::raft::Entry <-> raft.proto's LogEntry, for the messages
// between controllers (grpc_transport) and the committed entries brokers observe
// (observer). Stateless.

#include "raft.pb.h"
#include "raft/types.h"

namespace strata::raft {

void EntryToProto(const Entry& entry, v1::LogEntry* out);
// REQUIRES: PlausibleEntryType(in.type()).
Entry EntryFromProto(const v1::LogEntry& in);
// Whether a received type is one this build knows (proto3 enums carry any number).
bool PlausibleEntryType(int type);

}  // namespace strata::raft
