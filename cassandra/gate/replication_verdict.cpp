// The replication-exact verdict: per replication setting, per range this node replicates, the level's counts.
#include "cassandra/gate/replication_verdict.hpp"

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

// Per endpoint of RingChanges::endpoints: whether it counts as a natural replica (UN) and as a pending one
// (up: a joining node receives the writes of its pending ranges), this node and drained ones never.
struct Availability {
  std::vector<char> natural, pending;
};

class Evaluator {
 public:
  Evaluator(const ReplicationSnapshot& s, const VerdictNode& self, Consistency cl, Availability available)
      : s_(s),
        self_(self),
        cl_(cl),
        available_(std::move(available)),
        self_in_ring_(s.ring.find(self.address).has_value()),
        self_index_(s.changes.find(self.address)) {}

  bool self_in_ring() const { return self_in_ring_; }

  const SettingResult& setting(const Replication& r) {
    const std::string key = r.placement_key();
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    return cache_.emplace(key, evaluate(r)).first->second;
  }

 private:
  bool in_dc(EndpointIndex e, const Scope& scope) const {
    return scope.dc.empty() || s_.changes.endpoints[e].datacenter == scope.dc;
  }
  bool in_scope(EndpointIndex e, const Scope& scope) const { return e != *self_index_ && in_dc(e, scope); }

  SettingResult evaluate(const Replication& r) const {
    SettingResult result;
    const auto ranges = s_.write_ranges.find(r.placement_key());
    if (ranges == s_.write_ranges.end() || !self_in_ring_ || !self_index_) return result;
    const auto scopes = scopes_of(r, s_.ring.endpoints.size(), self_.datacenter, cl_);
    auto has_self = [&](const std::vector<EndpointIndex>& replicas) {
      return std::find(replicas.begin(), replicas.end(), *self_index_) != replicas.end();
    };
    for (const WriteRange& range : ranges->second) {
      const bool natural = has_self(range.natural);
      if (!natural && !has_self(range.pending)) continue;
      ++result.ranges;
      for (const Scope& scope : scopes) {
        // A DC this node is not in is never the reason (SPEC 3.4): its count does not change when this node
        // leaves (EACH_QUORUM's other DCs; their shortage is theirs whatever this node does).
        if (!scope.dc.empty() && scope.dc != self_.datacenter) continue;
        int counted = 0, natural_up = 0, pending_up = 0;
        std::vector<std::string> down, pending;
        for (EndpointIndex e : range.natural) {
          if (!in_scope(e, scope)) continue;
          ++counted;
          if (available_.natural[e])
            ++natural_up;
          else
            down.push_back(s_.changes.endpoints[e].address);
        }
        // This node cannot meet the level without itself even with every other natural replica up.
        if (natural && counted < scope.needed) {
          result.unprotectable = true;
          return result;
        }
        // P counts every pending replica where the level counts, this node too (it raises the writes'
        // count whether or not it is there); this node is never available.
        for (EndpointIndex e : range.pending) {
          if (!in_dc(e, scope)) continue;
          pending.push_back(s_.changes.endpoints[e].address);
          if (available_.pending[e])
            ++pending_up;
          else if (e != *self_index_)
            down.push_back(s_.changes.endpoints[e].address);
        }
        const int pending_count = static_cast<int>(pending.size());
        const int needed = scope.needed + pending_count, up = natural_up + pending_up;
        const int shortfall = needed - up;  // the writes'; the reads' (needed - natural_up) is never larger
        if (shortfall > 0 && (!result.worst || shortfall > result.worst->needed - result.worst->available)) {
          std::sort(down.begin(), down.end());
          std::sort(pending.begin(), pending.end());
          const auto access = natural_up < scope.needed ? ShortAccess::reads_and_writes : ShortAccess::writes;
          result.worst = ShortRange{"", range.start,     range.end,          scope.dc, needed,
                                    up, std::move(down), std::move(pending), access};
        }
      }
    }
    return result;
  }

  const ReplicationSnapshot& s_;
  const VerdictNode& self_;
  Consistency cl_;
  Availability available_;
  bool self_in_ring_;                        // this node owns a normal token
  std::optional<EndpointIndex> self_index_;  // into s_.changes.endpoints
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

// The state letter `nodetool status` prints for an address, as the refresh's ring showed it ('\0': not in
// it).
char ring_state_of(const ReplicationSnapshot& s, const std::string& address) {
  auto has = [&](const std::vector<std::string>& v) {
    return std::binary_search(v.begin(), v.end(), address);
  };
  if (has(s.changes.moving)) return 'M';
  if (has(s.changes.joining)) return 'J';
  if (has(s.changes.leaving)) return 'L';
  return s.changes.find(address) ? 'N' : '\0';
}

// What stops the verdict from judging pending ranges: a node moving (nodetool prints no destination token, so
// its pending ranges cannot be computed), or a check's status whose J/L/N states differ from the refresh's
// ring (a node started or finished joining or leaving since: the snapshot's ranges are stale until the next
// refresh). A node that is in the ring but absent from status only counts as unavailable.
std::string ring_change(const ReplicationSnapshot& s, const ClusterStatus& status) {
  std::string who;
  auto add = [&](const std::string& what) { who += (who.empty() ? "" : "; ") + what; };
  if (const auto& c = s.cluster.counts; c && c->moving)
    add("describecluster: moving " + std::to_string(c->moving));
  for (const auto& address : s.changes.moving) add(address + " moving in the ring");
  for (const StatusRow& row : status.rows) {
    const std::string letters{row.status, row.state};
    const char known = ring_state_of(s, row.address);
    if (row.state == 'M') {
      if (known != 'M') add(row.address + " " + letters);
    } else if (known != row.state && known != 'M') {
      add(row.address + " " + letters + ", " +
          (known ? std::string{"'"} + known + "' in the ring of the last refresh"
                 : "not in the ring of the last refresh"));
    }
  }
  return who;
}

ReplicationVerdict evaluate(const ReplicationSnapshot& s, const ClusterStatus& status,
                            const VerdictNode& self, Consistency cl,
                            const std::vector<std::string>& drained) {
  std::set<std::string> up_normal, up;
  for (const StatusRow& row : status.rows) {
    if (row.up_normal()) up_normal.insert(row.address);
    if (row.status == 'U') up.insert(row.address);
  }
  for (const auto& address : drained) up_normal.erase(address), up.erase(address);
  up_normal.erase(self.address);
  up.erase(self.address);
  Availability available;
  for (const RingEndpoint& e : s.changes.endpoints) {
    available.natural.push_back(up_normal.count(e.address) ? 1 : 0);
    available.pending.push_back(up.count(e.address) ? 1 : 0);
  }

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
  auto changes = make_ring_changes(ring_table);
  if (!changes) return make_error("nodetool ring: " + changes.error().message);
  KeyspacePlacements placements = place_keyspaces(*ring, *cluster.keyspaces);
  std::map<std::string, std::vector<WriteRange>> write_ranges;
  for (const auto& ks : *cluster.keyspaces) {
    const Placement* placement = placements.find(ks.replication);
    const std::string key = ks.replication.placement_key();
    if (placement && !write_ranges.count(key))
      write_ranges.emplace(key, place_write_ranges(*changes, *ring, *placement, ks.replication));
  }
  return ReplicationSnapshot{std::move(cluster), std::move(ring.value()), std::move(placements),
                             std::move(changes.value()), std::move(write_ranges)};
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
