// The replication-exact verdict: per replication setting, per range this node replicates, the level's counts.
#include "cassandra/replication_verdict.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "state/scheduled_event.hpp"

namespace cla {

namespace {

constexpr std::array<std::string_view, 2> kVirtualKeyspaces{"system_views", "system_virtual_schema"};

// One count a level makes in a range: the replicas in `dc` ("" = every DC) must be at least `needed`.
struct Scope {
  std::string dc;
  int needed = 0;
};

std::vector<Scope> scopes_of(const Replication& r, std::size_t ring_endpoints, const std::string& own_dc,
                             Consistency cl) {
  const bool nts = r.kind == StrategyKind::network_topology;
  const int total = r.kind == StrategyKind::everywhere ? static_cast<int>(ring_endpoints) : r.total_factor();
  auto own_factor = [&] {
    const auto it = r.dc_factors.find(own_dc);
    return it == r.dc_factors.end() ? 0 : it->second.all;
  };
  switch (cl) {
    case Consistency::one:
      return {{"", 1}};
    case Consistency::local_one:
      return {{own_dc, 1}};
    case Consistency::quorum:
      return {{"", total / 2 + 1}};
    case Consistency::local_quorum:
      return {{own_dc, (nts ? own_factor() : total) / 2 + 1}};
    case Consistency::each_quorum: {
      if (!nts) return {{"", total / 2 + 1}};
      std::vector<Scope> scopes;
      for (const auto& [dc, count] : r.dc_factors)
        if (count.all > 0) scopes.push_back({dc, count.all / 2 + 1});
      return scopes;
    }
  }
  return {};
}

// What one replication setting comes to for this node: unprotectable, or its worst range.
struct SettingResult {
  bool unprotectable = false;
  std::optional<ShortRange> worst;  // keyspace left empty: filled in for the keyspace reported
  std::size_t ranges = 0;
};

class Evaluator {
 public:
  Evaluator(const ReplicationSnapshot& s, const VerdictNode& self, Consistency cl,
            std::vector<char> available)
      : s_(s),
        self_(self),
        cl_(cl),
        available_(std::move(available)),
        self_index_(s.ring.find(self.address)) {}

  bool self_in_ring() const { return self_index_.has_value(); }

  const SettingResult& setting(const Replication& r) {
    const std::string key = r.placement_key();
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    return cache_.emplace(key, evaluate(r)).first->second;
  }

 private:
  SettingResult evaluate(const Replication& r) const {
    SettingResult result;
    const Placement* placement = s_.placements.find(r);
    if (!placement || !self_index_) return result;
    const auto scopes = scopes_of(r, s_.ring.endpoints.size(), self_.datacenter, cl_);
    for (std::size_t i = 0; i < placement->replicas.size(); ++i) {
      const auto& replicas = placement->replicas[i];
      if (std::find(replicas.begin(), replicas.end(), *self_index_) == replicas.end()) continue;
      ++result.ranges;
      for (const Scope& scope : scopes) {
        int counted = 0, up = 0;
        std::vector<std::string> down;
        for (EndpointIndex e : replicas) {
          const RingEndpoint& endpoint = s_.ring.endpoints[e];
          if (e == *self_index_ || (!scope.dc.empty() && endpoint.datacenter != scope.dc)) continue;
          ++counted;
          if (available_[e])
            ++up;
          else
            down.push_back(endpoint.address);
        }
        if (counted < scope.needed) {
          result.unprotectable = true;
          return result;
        }
        const int shortfall = scope.needed - up;
        if (shortfall > 0 && (!result.worst || shortfall > result.worst->needed - result.worst->available)) {
          std::sort(down.begin(), down.end());
          result.worst = ShortRange{"", s_.ring.range_start(i), s_.ring.range_end(i), scope.dc, scope.needed,
                                    up, std::move(down)};
        }
      }
    }
    return result;
  }

  const ReplicationSnapshot& s_;
  const VerdictNode& self_;
  Consistency cl_;
  std::vector<char> available_;  // per ring endpoint: UN in status, not this node, not drained
  std::optional<EndpointIndex> self_index_;
  std::map<std::string, SettingResult> cache_;
};

bool ignored(const KeyspaceReplication& ks) {
  return ks.replication.kind == StrategyKind::local ||
         std::find(kVirtualKeyspaces.begin(), kVirtualKeyspaces.end(), ks.name) != kVirtualKeyspaces.end();
}

// The keyspaces in name order (the verdict must not depend on nodetool's order).
std::vector<const KeyspaceReplication*> sorted_keyspaces(const ReplicationSnapshot& s) {
  std::vector<const KeyspaceReplication*> out;
  if (s.cluster.keyspaces)
    for (const auto& ks : *s.cluster.keyspaces)
      if (!ignored(ks)) out.push_back(&ks);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  return out;
}

UnprotectableKeyspace unprotectable_entry(const KeyspaceReplication& ks, Consistency cl) {
  UnprotectableKeyspace u{ks.name, ks.replication.strategy_class, 0, cl};
  if (ks.replication.kind == StrategyKind::network_topology) {
    std::map<std::string, int> factors;
    for (const auto& [dc, count] : ks.replication.dc_factors) factors[dc] = count.all;
    u.rf = std::move(factors);
  } else {
    u.rf = ks.replication.total_factor();
  }
  return u;
}

// Nodes joining, leaving or moving, from the refresh's counts and from each check's status.
std::string ring_change(const ReplicationSnapshot& s, const ClusterStatus& status) {
  std::string who;
  if (const auto& c = s.cluster.counts; c && (c->joining || c->leaving || c->moving))
    who = "describecluster: joining " + std::to_string(c->joining) + ", leaving " +
          std::to_string(c->leaving) + ", moving " + std::to_string(c->moving);
  for (const StatusRow& row : status.rows)
    if (row.state != 'N')
      who += (who.empty() ? "" : "; ") + row.address + " " + std::string{row.status, row.state};
  return who;
}

ReplicationVerdict evaluate(const ReplicationSnapshot& s, const ClusterStatus& status,
                            const VerdictNode& self, Consistency cl,
                            const std::vector<std::string>& drained) {
  std::set<std::string> up;
  for (const StatusRow& row : status.rows)
    if (row.up_normal()) up.insert(row.address);
  for (const auto& address : drained) up.erase(address);
  up.erase(self.address);
  std::vector<char> available(s.ring.endpoints.size(), 0);
  for (std::size_t e = 0; e < available.size(); ++e)
    available[e] = up.count(s.ring.endpoints[e].address) ? 1 : 0;

  Evaluator evaluator(s, self, cl, std::move(available));
  ReplicationVerdict verdict;
  std::optional<ShortRange> worst;
  for (const KeyspaceReplication* ks : sorted_keyspaces(s)) {
    if (!is_placeable(ks->replication)) {
      verdict.unjudged.push_back(ks->name + " (" + ks->replication.strategy_class + ")");
      continue;
    }
    const SettingResult& result = evaluator.setting(ks->replication);
    if (result.unprotectable) {
      verdict.unprotectable.push_back(unprotectable_entry(*ks, cl));
      continue;
    }
    ++verdict.keyspaces_checked;
    verdict.ranges_checked += result.ranges;
    if (result.worst &&
        (!worst || result.worst->needed - result.worst->available > worst->needed - worst->available)) {
      worst = result.worst;
      worst->keyspace = ks->name;
    }
  }
  if (!evaluator.self_in_ring()) {
    verdict.reason = VerdictReason::node_not_in_ring;
    verdict.detail = self.address + " owns no token of the ring";
  } else if (const auto versions = s.cluster.reachable_schema_versions(); versions.size() > 1) {
    verdict.reason = VerdictReason::schema_disagreement;
    for (const auto& v : versions) verdict.detail += (verdict.detail.empty() ? "" : ", ") + v;
  } else if (auto change = ring_change(s, status); !change.empty()) {
    verdict.reason = VerdictReason::ring_changing;
    verdict.detail = std::move(change);
  } else if (worst) {
    verdict.reason = VerdictReason::replicas_short;
    verdict.short_range = std::move(worst);
  } else {
    verdict.safe = true;
    verdict.reason = VerdictReason::safe;
  }
  return verdict;
}

}  // namespace

Result<ReplicationSnapshot> make_replication_snapshot(ClusterDescription cluster,
                                                      const RingTable& ring_table) {
  if (!cluster.keyspaces) return make_error("describecluster lists no keyspaces (Cassandra before 4.0?)");
  // Both count the endpoints of the token map, joining ones included: a difference is a ring that changed
  // between the two calls, or an output cut short.
  if (!cluster.datacenters.empty()) {
    std::map<std::string, std::set<std::string>> ring_dcs;
    for (const RingRow& row : ring_table.rows) ring_dcs[row.datacenter].insert(row.address);
    std::map<std::string, std::size_t> described;
    for (const DatacenterCount& dc : cluster.datacenters)
      described[dc.name] = static_cast<std::size_t>(dc.nodes);
    for (const auto& [dc, endpoints] : ring_dcs)
      if (!described.count(dc) || described.at(dc) != endpoints.size())
        return make_error("nodetool ring shows " + std::to_string(endpoints.size()) + " node(s) in " + dc +
                          ", describecluster " +
                          (described.count(dc) ? std::to_string(described.at(dc)) : "none"));
    for (const auto& [dc, nodes] : described)
      if (!ring_dcs.count(dc))
        return make_error("nodetool ring shows no node of " + dc + ", describecluster " +
                          std::to_string(nodes));
  }
  auto ring = make_token_ring(ring_table);
  if (!ring) return make_error("nodetool ring: " + ring.error().message);
  KeyspacePlacements placements = place_keyspaces(*ring, *cluster.keyspaces);
  return ReplicationSnapshot{std::move(cluster), std::move(ring.value()), std::move(placements)};
}

ReplicationVerdict evaluate_replication(const ReplicationSnapshot& snapshot, const ClusterStatus& status,
                                        const VerdictNode& self, Consistency consistency) {
  return evaluate(snapshot, status, self, consistency, {});
}

ReplicationVerdict evaluate_admission(const ReplicationSnapshot& snapshot, const ClusterStatus& status,
                                      const VerdictNode& self, Consistency consistency,
                                      const std::vector<std::string>& drained) {
  return evaluate(snapshot, status, self, consistency, drained);
}

std::vector<UnprotectableKeyspace> find_unprotectable(const ReplicationSnapshot& snapshot,
                                                      const VerdictNode& self, Consistency consistency) {
  return evaluate(snapshot, ClusterStatus{}, self, consistency, {}).unprotectable;
}

std::vector<std::string> addresses_of_host_ids(const ClusterStatus& status,
                                               const std::vector<std::string>& host_ids) {
  std::vector<std::string> addresses;
  for (const auto& id : host_ids)
    for (const StatusRow& row : status.rows)
      if (!id.empty() && iequals(row.host_id, id)) addresses.push_back(row.address);
  return addresses;
}

}  // namespace cla
