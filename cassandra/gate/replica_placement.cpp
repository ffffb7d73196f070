// Replica placement: Cassandra's rules ported (not its code), one walk of the ring per range.
#include "cassandra/gate/replica_placement.hpp"

#include <algorithm>
#include <cstdint>

namespace cla {

namespace {

// Ids for the DCs and (DC, rack) pairs of the ring's endpoints, so a walk compares integers.
struct Topology {
  std::vector<std::string> dc_names;
  std::vector<std::uint32_t> dc_of;    // per endpoint
  std::vector<std::uint32_t> rack_of;  // per endpoint: an id unique across DCs
  std::vector<int> nodes_in_dc, racks_in_dc;

  explicit Topology(const TokenRing& ring) {
    std::vector<std::pair<std::string, std::string>> racks;
    for (const RingEndpoint& e : ring.endpoints) {
      auto dc = std::find(dc_names.begin(), dc_names.end(), e.datacenter);
      if (dc == dc_names.end()) {
        dc_names.push_back(e.datacenter);
        nodes_in_dc.push_back(0);
        racks_in_dc.push_back(0);
        dc = dc_names.end() - 1;
      }
      const auto d = static_cast<std::uint32_t>(dc - dc_names.begin());
      dc_of.push_back(d);
      ++nodes_in_dc[d];
      auto rack = std::find(racks.begin(), racks.end(), std::pair{e.datacenter, e.rack});
      if (rack == racks.end()) {
        racks.emplace_back(e.datacenter, e.rack);
        ++racks_in_dc[d];
        rack = racks.end() - 1;
      }
      rack_of.push_back(static_cast<std::uint32_t>(rack - racks.begin()));
    }
  }
};

// One DC's progress in one walk (NetworkTopologyStrategy's per-DC bookkeeping).
struct DcFill {
  int replicas_left = 0;  // min(factor, nodes)
  int rack_repeats = 0;   // factor - racks: endpoints of an already seen rack that may still be taken
};

class Walker {
 public:
  Walker(const TokenRing& ring, const Topology& topology)
      : ring_(ring),
        topology_(topology),
        taken_(ring.endpoints.size(), 0),
        rack_seen_(topology.rack_of.size() + 1, 0) {}

  // SimpleStrategy / EverywhereStrategy: distinct endpoints clockwise from token `end`, at most `count`.
  std::vector<EndpointIndex> distinct(std::size_t end, std::size_t count) {
    next_walk();
    std::vector<EndpointIndex> out;
    for (std::size_t step = 0; step < ring_.tokens.size() && out.size() < count; ++step) {
      const EndpointIndex e = ring_.owners[(end + step) % ring_.tokens.size()];
      if (taken_[e] != walk_) {
        taken_[e] = walk_;
        out.push_back(e);
      }
    }
    return out;
  }

  // NetworkTopologyStrategy: `fills` per DC id (replicas_left 0 for a DC without replicas here).
  std::vector<EndpointIndex> network(std::size_t end, std::vector<DcFill> fills) {
    next_walk();
    int dcs_to_fill = 0;
    for (const DcFill& f : fills) dcs_to_fill += f.replicas_left > 0 ? 1 : 0;
    std::vector<EndpointIndex> out;
    for (std::size_t step = 0; step < ring_.tokens.size() && dcs_to_fill > 0; ++step) {
      const EndpointIndex e = ring_.owners[(end + step) % ring_.tokens.size()];
      DcFill& fill = fills[topology_.dc_of[e]];
      if (fill.replicas_left == 0 || taken_[e] == walk_) continue;  // DC done, or the endpoint already in
      std::uint32_t& rack = rack_seen_[topology_.rack_of[e]];
      if (rack != walk_) {
        rack = walk_;  // a new rack
      } else if (fill.rack_repeats > 0) {
        --fill.rack_repeats;  // a seen rack, while the DC has fewer racks than its factor
      } else {
        continue;
      }
      taken_[e] = walk_;
      out.push_back(e);
      if (--fill.replicas_left == 0) --dcs_to_fill;
    }
    return out;
  }

 private:
  void next_walk() { ++walk_; }  // marks of earlier walks no longer count: nothing is cleared per range
  const TokenRing& ring_;
  const Topology& topology_;
  std::vector<std::uint32_t> taken_, rack_seen_;
  std::uint32_t walk_ = 0;
};

}  // namespace

bool is_placeable(const Replication& replication) {
  return replication.kind == StrategyKind::simple || replication.kind == StrategyKind::network_topology ||
         replication.kind == StrategyKind::everywhere;
}

Placement place_replicas(const TokenRing& ring, const Replication& replication) {
  Placement placement;
  if (!is_placeable(replication) || ring.tokens.empty()) return placement;
  const Topology topology(ring);
  Walker walker(ring, topology);
  std::vector<DcFill> fills(topology.dc_names.size());
  if (replication.kind == StrategyKind::network_topology)
    for (std::size_t d = 0; d < fills.size(); ++d) {
      const auto it = replication.dc_factors.find(topology.dc_names[d]);
      const int factor = it == replication.dc_factors.end() ? 0 : it->second.all;
      if (factor <= 0) continue;
      fills[d] = DcFill{std::min(factor, topology.nodes_in_dc[d]), factor - topology.racks_in_dc[d]};
    }
  const std::size_t count = replication.kind == StrategyKind::simple
                                ? static_cast<std::size_t>(std::max(0, replication.replication_factor.all))
                                : ring.endpoints.size();
  placement.replicas.reserve(ring.tokens.size());
  for (std::size_t i = 0; i < ring.tokens.size(); ++i)
    placement.replicas.push_back(replication.kind == StrategyKind::network_topology
                                     ? walker.network(i, fills)
                                     : walker.distinct(i, count));
  return placement;
}

const Placement* KeyspacePlacements::find(const Replication& replication) const {
  if (!is_placeable(replication)) return nullptr;
  const auto it = by_key.find(replication.placement_key());
  return it == by_key.end() ? nullptr : &it->second;
}

KeyspacePlacements place_keyspaces(const TokenRing& ring, const std::vector<KeyspaceReplication>& keyspaces) {
  KeyspacePlacements placements;
  for (const auto& ks : keyspaces) {
    if (!is_placeable(ks.replication)) continue;
    const std::string key = ks.replication.placement_key();
    if (!placements.by_key.count(key)) placements.by_key.emplace(key, place_replicas(ring, ks.replication));
  }
  return placements;
}

}  // namespace cla
