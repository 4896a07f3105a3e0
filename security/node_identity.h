#pragma once
// How a node's certificate names the node: a URI subject alternative name
// `urn:strata:controller:<node id>` for a controller (a voter of the metadata quorum)
// and `urn:strata:broker:<node id>` for a broker; a combined node's certificate carries
// both. The control plane lets Raft's RPCs in only from the voters so named, and the
// broker lifecycle and the metadata stream only from brokers, each for its own id
// (docs/security.md). tools/strata-certs makes such certificates.
// Thread-safe (value types and free functions).

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace strata::security {

inline constexpr char kControllerUriPrefix[] = "urn:strata:controller:";
inline constexpr char kBrokerUriPrefix[] = "urn:strata:broker:";

struct NodeClaims {
  std::set<int32_t> controllers;
  std::set<int32_t> brokers;
};

// The node ids that URIs name (other URIs, and malformed ids, are ignored).
NodeClaims ClaimsOf(const std::vector<std::string>& uris);

}  // namespace strata::security
