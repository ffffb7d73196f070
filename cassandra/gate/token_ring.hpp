// The token ring as Cassandra's placement sees it: every normal token in ring order with the endpoint that
// owns it, and each endpoint's DC and rack. Built from `nodetool ring`. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cassandra/nodetool_output/ring_parser.hpp"
#include "state/result.hpp"

namespace cla {

using EndpointIndex = std::uint32_t;

struct RingEndpoint {
  std::string address, datacenter, rack;
  friend bool operator==(const RingEndpoint&, const RingEndpoint&) = default;
};

struct TokenRing {
  std::vector<RingEndpoint> endpoints;  // sorted by address, each once
  std::vector<std::string> tokens;      // ascending (Cassandra's order), each once
  std::vector<EndpointIndex> owners;    // owners[i] owns tokens[i]

  std::optional<EndpointIndex> find(std::string_view address) const;
  // Range i is (tokens[i-1], tokens[i]]; range 0 starts at the last token (the ring wraps around).
  const std::string& range_start(std::size_t i) const { return tokens[i == 0 ? tokens.size() - 1 : i - 1]; }
  const std::string& range_end(std::size_t i) const { return tokens[i]; }
  friend bool operator==(const TokenRing&, const TokenRing&) = default;
};
std::ostream& operator<<(std::ostream& os, const TokenRing& ring);

// Orders tokens as the partitioner does: integers (Murmur3, Random) by value, whatever their length; any
// other text (ByteOrdered's hex) byte by byte, after every integer (a total order even for a mixed, broken
// ring). <0, 0, >0.
int compare_tokens(std::string_view a, std::string_view b);

// Every row's token and endpoint, sorted. A joining node's tokens (and the node, when it has no other) are
// left out: Cassandra places replicas on normal tokens only (a leaving or moving node still owns its tokens).
// Fails when a token has two owners, an endpoint two DCs or racks, or no row is left.
Result<TokenRing> make_token_ring(const RingTable& table);

}  // namespace cla
