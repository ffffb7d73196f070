// `nodetool status` and `nodetool ring` rebuilt from StorageService's attributes and the snitch's answers,
// the way Cassandra 5.0's Status.java and Ring.java compute them: pure.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cassandra/jolokia/jolokia_answers.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

namespace cla {

// What a node knows of the ring; endpoints as the *WithPort attributes give them ("127.0.0.1:7000").
struct RingView {
  std::vector<std::string> live, unreachable, joining, leaving, moving;
  // (token, endpoint) of every normal and bootstrapping token, in ring order: Jolokia hands the map over in
  // an order of its own, so it is sorted again here (compare_tokens) as StorageService had it.
  std::vector<std::pair<std::string, std::string>> tokens;
  std::map<std::string, std::string> loads;     // as nodetool prints them: "104.06 KiB"
  std::map<std::string, std::string> host_ids;  // endpoint -> host id

  // The endpoints of `tokens`, each once, in ring order.
  std::vector<std::string> endpoints() const;
};

// The snitch's DC and rack of each endpoint.
struct Place {
  std::string datacenter, rack;
};
using Places = std::map<std::string, Place>;

// The answers to ring_view_calls().
Result<RingView, JolokiaError> read_ring_view(std::span<const JolokiaValue> values);
// The liveness sets and the token map of a read (ring_view_calls, describe_calls) into `view`.
void read_ring_attributes(JolokiaReader& reader, RingView& view);
// The answers to places_calls(endpoints).
Result<Places, JolokiaError> read_places(std::span<const std::string> endpoints,
                                         std::span<const JolokiaValue> values);

// The host nodetool prints for an endpoint without -pp: "127.0.0.1:7000" -> "127.0.0.1",
// "[0:0:0:0:0:0:0:1]:7000" -> "0:0:0:0:0:0:0:1"; text without a port is returned as it is.
std::string host_of(std::string_view endpoint);

// A row per endpoint of the token map, grouped by DC (sorted by name, as nodetool's TreeMap), each DC's
// endpoints in ring order of their first token (nodetool's own order within a DC is a hash map's: the parser
// promises none). U/D/? from the live and unreachable sets, J/L/M/N from the others in nodetool's precedence,
// the load or "?", the host id or "". No ownership note: nodetool's comes from effectiveOwnership, which the
// agent does not ask for (it costs the node a computation per call, and nothing of the agent reads it). Fails
// when an endpoint has no place.
Result<ClusterStatus, JolokiaError> make_cluster_status(const RingView& view, const Places& places);

// A row per token, by DC (sorted by name), then in ring order, as nodetool ring prints them: Up/Down/?,
// Normal/Joining/Leaving/Moving, the load or "?", owns "?" and no notes (no effectiveOwnership asked, as
// above), vnodes_warning when an endpoint has several tokens. Fails when an endpoint has no place.
Result<RingTable, JolokiaError> make_ring_table(const RingView& view, const Places& places);

}  // namespace cla
