// nodetool-sim's schema and ring: generated tokens, and the describecluster / ring / describering values.
#include "cassandra/sim/sim_schema.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>

#include "cassandra/gate/replica_placement.hpp"
#include "cassandra/gate/token_ring.hpp"

namespace cla {

namespace {

constexpr std::array<std::string_view, 7> kSystemKeyspaces{
    "system",       "system_schema",        "system_auth", "system_traces", "system_distributed",
    "system_views", "system_virtual_schema"};
constexpr std::string_view kOwnershipNote =
    "Note: Non-system keyspaces don't have the same replication settings, effective ownership information is "
    "meaningless";
constexpr std::string_view kRelease = "5.0.9";

struct NodeAt {
  const SimDatacenter* dc;
  const SimRack* rack;
  const SimNode* node;
};

std::vector<NodeAt> all_nodes(const SimCluster& cluster) {
  std::vector<NodeAt> nodes;
  for (const auto& dc : cluster.datacenters)
    for (const auto& rack : dc.racks)
      for (const auto& node : rack.nodes) nodes.push_back(NodeAt{&dc, &rack, &node});
  return nodes;
}

// The one replication all non-system keyspaces share; nullopt when there is none or they differ (`differ`).
std::optional<Replication> shared_user_replication(const SimCluster& cluster, bool& differ) {
  std::optional<Replication> shared;
  differ = false;
  for (const auto& ks : cluster.keyspaces) {
    if (std::find(kSystemKeyspaces.begin(), kSystemKeyspaces.end(), ks.name) != kSystemKeyspaces.end())
      continue;
    if (!shared)
      shared = ks.replication;
    else if (shared->placement_key() != ks.replication.placement_key())
      differ = true;
  }
  if (differ) shared.reset();
  return shared;
}

std::string state_word(char state) {
  switch (state) {
    case 'L':
      return "Leaving";
    case 'J':
      return "Joining";
    case 'M':
      return "Moving";
  }
  return "Normal";
}

// The schema version every node agrees on: derived from the keyspaces, stable across calls.
std::string cluster_schema_version(const SimCluster& cluster) {
  std::string text = "schema";
  for (const auto& ks : cluster.keyspaces) text += "|" + ks.name + "=" + ks.replication.placement_key();
  return default_host_id(text);
}

// The ring of every node's tokens, every node Up and Normal but for its ring state: what placement needs.
RingTable plain_ring(const SimCluster& cluster) {
  const auto tokens = sim_tokens(cluster);
  RingTable table;
  for (const auto& [dc, rack, node] : all_nodes(cluster))
    for (const auto& token : tokens.at(node->address))
      table.rows.push_back(RingRow{dc->name, node->address, rack->name, "Up", state_word(node->ring_state),
                                   node->load, "?", token});
  return table;
}

}  // namespace

std::map<std::string, std::vector<std::string>> sim_tokens(const SimCluster& cluster) {
  std::map<std::string, std::vector<std::string>> tokens;
  // Each rack's nodes that need generated tokens, DC by DC, rack by rack.
  std::vector<std::vector<const SimNode*>> racks;
  std::uint64_t slots = 0;
  int rounds = 0;
  for (const auto& dc : cluster.datacenters)
    for (const auto& rack : dc.racks) {
      racks.emplace_back();
      for (const auto& node : rack.nodes) {
        tokens[node.address] = node.ring_tokens;
        if (!node.ring_tokens.empty()) continue;
        racks.back().push_back(&node);
        slots += static_cast<std::uint64_t>(node.tokens);
        rounds = std::max(rounds, node.tokens);
      }
    }
  if (slots == 0) return tokens;
  // 2^64 / slots without overflow: (2^64 - 1) / slots, plus one when slots divides 2^64.
  std::uint64_t step = UINT64_MAX / slots;
  if (UINT64_MAX % slots == slots - 1) ++step;
  std::uint64_t slot = 0;
  for (int round = 0; round < rounds; ++round) {
    std::vector<std::vector<const SimNode*>> order;
    std::size_t widest = 0;
    for (const auto& rack : racks) {
      auto& nodes = order.emplace_back();
      for (const SimNode* node : rack)
        if (node->tokens > round) nodes.push_back(node);
      if (round > 0)
        std::stable_sort(nodes.begin(), nodes.end(), [&](const SimNode* a, const SimNode* b) {
          return stable_hash(a->address, 100 + static_cast<std::uint64_t>(round)) <
                 stable_hash(b->address, 100 + static_cast<std::uint64_t>(round));
        });
      widest = std::max(widest, nodes.size());
    }
    for (std::size_t position = 0; position < widest; ++position)
      for (const auto& rack : order)
        if (position < rack.size()) {
          // slot * step - 2^63, modulo 2^64 (C++20 converts modulo 2^64 to a signed type)
          const auto token = static_cast<std::int64_t>(slot++ * step + 0x8000000000000000ull);
          tokens[rack[position]->address].push_back(std::to_string(token));
        }
  }
  return tokens;
}

bool sim_reachable(const SimNode& node, const std::string& caller) {
  return node.address == caller || seen_up_by_others(node);
}

ClusterDescription sim_describecluster(const SimCluster& cluster, const std::string& caller) {
  ClusterDescription d;
  d.name = cluster.cluster_name;
  d.snitch = "org.apache.cassandra.locator.GossipingPropertyFileSnitch";
  d.dynamic_snitch = true;
  d.partitioner = "org.apache.cassandra.dht.Murmur3Partitioner";
  d.counts.emplace();
  const std::string version = cluster_schema_version(cluster);
  std::vector<std::string> live, down;
  std::map<std::string, DatacenterCount> dcs;
  for (const auto& [dc, rack, node] : all_nodes(cluster)) {
    auto& count = dcs[dc->name];
    count.name = dc->name;
    ++count.nodes;
    if (sim_reachable(*node, caller)) {
      live.push_back(node->address);
      d.schema_versions[node->schema_version.empty() ? version : node->schema_version].push_back(
          node->address);
    } else {
      down.push_back(node->address);
      d.schema_versions[std::string(kUnreachableSchemaVersion)].push_back(node->address);
      ++count.down;
    }
    d.counts->joining += node->ring_state == 'J';
    d.counts->leaving += node->ring_state == 'L';
    d.counts->moving += node->ring_state == 'M';
  }
  for (auto& [v, endpoints] : d.schema_versions) std::sort(endpoints.begin(), endpoints.end());
  d.counts->live = static_cast<int>(live.size());
  d.counts->unreachable = static_cast<int>(down.size());
  for (auto& [name, count] : dcs) d.datacenters.push_back(count);
  auto& release = d.database_versions[std::string(kRelease)];
  for (const auto* group : {&live, &down})
    for (const auto& address : *group) release.push_back(address + ":7000");
  d.keyspaces.emplace();
  for (const auto& ks : cluster.keyspaces)
    d.keyspaces->push_back(KeyspaceReplication{ks.name, ks.replication});
  bool differ = false;
  shared_user_replication(cluster, differ);
  if (differ) d.notes.emplace_back(kOwnershipNote);
  return d;
}

RingTable sim_ring(const SimCluster& cluster, const std::string& caller) {
  RingTable table = plain_ring(cluster);
  bool differ = false;
  const auto shared = shared_user_replication(cluster, differ);
  std::map<std::string, std::string> owns;  // by address
  if (const auto ring = make_token_ring(table); shared && ring) {
    const Placement placement = place_replicas(*ring, *shared);
    std::vector<long double> owned(ring->endpoints.size(), 0.0L);
    constexpr long double kRing = 18446744073709551616.0L;  // 2^64
    for (std::size_t i = 0; i < placement.replicas.size(); ++i) {
      const auto width = static_cast<std::uint64_t>(std::stoll(ring->range_end(i))) -
                         static_cast<std::uint64_t>(std::stoll(ring->range_start(i)));
      for (auto e : placement.replicas[i])
        owned[e] += ring->tokens.size() == 1 ? kRing : static_cast<long double>(width);
    }
    for (std::size_t e = 0; e < owned.size(); ++e) {
      char text[32];
      std::snprintf(text, sizeof text, "%.2Lf%%", 100.0L * owned[e] / kRing);
      owns[ring->endpoints[e].address] = text;
    }
  }
  std::map<std::string, const SimNode*> nodes;
  for (const auto& at : all_nodes(cluster)) nodes[at.node->address] = at.node;
  std::set<std::string> seen;
  for (auto& row : table.rows) {
    row.status = sim_reachable(*nodes.at(row.address), caller) ? "Up" : "Down";
    if (const auto it = owns.find(row.address); it != owns.end()) row.owns = it->second;
    table.vnodes_warning = table.vnodes_warning || !seen.insert(row.address).second;
  }
  std::stable_sort(table.rows.begin(), table.rows.end(), [](const RingRow& a, const RingRow& b) {
    return a.datacenter != b.datacenter ? a.datacenter < b.datacenter : compare_tokens(a.token, b.token) < 0;
  });
  if (differ) table.notes.emplace_back(kOwnershipNote);
  return table;
}

std::optional<DescribedRing> sim_describering(const SimCluster& cluster, const std::string& caller,
                                              const std::string& keyspace) {
  (void)caller;  // every node places replicas alike
  const auto ks = std::find_if(cluster.keyspaces.begin(), cluster.keyspaces.end(),
                               [&](const SimKeyspace& k) { return k.name == keyspace; });
  if (ks == cluster.keyspaces.end() || !is_placeable(ks->replication)) return std::nullopt;
  const auto ring = make_token_ring(plain_ring(cluster));
  DescribedRing described{cluster_schema_version(cluster), {}};
  if (!ring) return described;
  const Placement placement = place_replicas(*ring, ks->replication);
  for (std::size_t i = 0; i < placement.replicas.size(); ++i) {
    DescribedRange range{ring->range_start(i), ring->range_end(i), {}, {}, {}};
    for (auto e : placement.replicas[i]) {
      const RingEndpoint& endpoint = ring->endpoints[e];
      range.endpoints.push_back(endpoint.address);
      range.endpoint_details.push_back(EndpointDetails{endpoint.address, endpoint.datacenter, endpoint.rack});
    }
    range.rpc_endpoints = range.endpoints;
    described.ranges.push_back(std::move(range));
  }
  std::stable_sort(described.ranges.begin(), described.ranges.end(), [](const auto& a, const auto& b) {
    return stable_hash(a.end_token) < stable_hash(b.end_token);
  });
  return described;
}

}  // namespace cla
