// Pending ranges: the future rings (leaving nodes gone; each joining node added alone), placed, and compared
// with the natural placement range by range.
#include "cassandra/gate/pending_ranges.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace cla {

namespace {

bool contains(const std::vector<std::string>& sorted, const std::string& address) {
  return std::binary_search(sorted.begin(), sorted.end(), address);
}

// The rows of a ring without leaving nodes and without joining tokens, but for `joining`'s, made normal.
RingTable future_table(const RingTable& table, const RingChanges& changes, const std::string* joining) {
  RingTable future;
  for (const RingRow& row : table.rows) {
    if (contains(changes.leaving, row.address)) continue;
    if (row.state != "Joining") {
      future.rows.push_back(row);
    } else if (joining && row.address == *joining) {
      future.rows.push_back(row);
      future.rows.back().state = "Normal";
    }
  }
  return future;
}

// The index of the range of `ring` that holds `token`: the first token at or after it, else range 0 (wraps).
std::size_t range_holding(const TokenRing& ring, const std::string& token) {
  const auto it =
      std::lower_bound(ring.tokens.begin(), ring.tokens.end(), token,
                       [](const std::string& t, const std::string& b) { return compare_tokens(t, b) < 0; });
  return it == ring.tokens.end() ? 0 : static_cast<std::size_t>(it - ring.tokens.begin());
}

// A ring's endpoint indices mapped into RingChanges::endpoints.
std::vector<EndpointIndex> index_map(const RingChanges& changes, const TokenRing& ring) {
  std::vector<EndpointIndex> map;
  map.reserve(ring.endpoints.size());
  for (const RingEndpoint& e : ring.endpoints) map.push_back(*changes.find(e.address));
  return map;
}

}  // namespace

std::optional<EndpointIndex> RingChanges::find(std::string_view address) const {
  const auto it = std::lower_bound(endpoints.begin(), endpoints.end(), address,
                                   [](const RingEndpoint& e, std::string_view a) { return e.address < a; });
  if (it == endpoints.end() || it->address != address) return std::nullopt;
  return static_cast<EndpointIndex>(it - endpoints.begin());
}

Result<RingChanges> make_ring_changes(const RingTable& table) {
  RingChanges changes;
  std::map<std::string, RingEndpoint> endpoints;
  std::set<std::string> joining, leaving, moving;
  for (const RingRow& row : table.rows) {
    endpoints.emplace(row.address, RingEndpoint{row.address, row.datacenter, row.rack});
    if (row.state == "Joining") joining.insert(row.address);
    if (row.state == "Leaving") leaving.insert(row.address);
    if (row.state == "Moving") moving.insert(row.address);
  }
  for (auto& [address, endpoint] : endpoints) changes.endpoints.push_back(std::move(endpoint));
  changes.joining.assign(joining.begin(), joining.end());
  changes.leaving.assign(leaving.begin(), leaving.end());
  changes.moving.assign(moving.begin(), moving.end());
  if (!changes.leaving.empty()) {
    auto settled = make_token_ring(future_table(table, changes, nullptr));
    if (!settled) return make_error("the ring without its leaving nodes: " + settled.error().message);
    changes.settled = std::move(settled.value());
  }
  for (const std::string& address : changes.joining) {
    auto ring = make_token_ring(future_table(table, changes, &address));
    if (!ring) return make_error("the ring with " + address + " joined: " + ring.error().message);
    changes.with_joining.push_back(std::move(ring.value()));
  }
  return changes;
}

std::vector<WriteRange> place_write_ranges(const RingChanges& changes, const TokenRing& natural_ring,
                                           const Placement& natural, const Replication& replication) {
  std::vector<WriteRange> ranges;
  if (natural.replicas.empty()) return ranges;
  // Every token of the natural ring and of the joining nodes bounds a range (the settled ring's tokens are
  // natural ones).
  std::vector<std::string> bounds = natural_ring.tokens;
  for (const TokenRing& ring : changes.with_joining)
    bounds.insert(bounds.end(), ring.tokens.begin(), ring.tokens.end());
  std::sort(bounds.begin(), bounds.end(),
            [](const std::string& a, const std::string& b) { return compare_tokens(a, b) < 0; });
  bounds.erase(
      std::unique(bounds.begin(), bounds.end(),
                  [](const std::string& a, const std::string& b) { return compare_tokens(a, b) == 0; }),
      bounds.end());

  const auto natural_map = index_map(changes, natural_ring);
  std::optional<Placement> settled;
  std::vector<EndpointIndex> settled_map;
  if (changes.settled) {
    settled = place_replicas(*changes.settled, replication);
    settled_map = index_map(changes, *changes.settled);
  }
  struct Joining {
    const TokenRing* ring;
    Placement placement;
    EndpointIndex in_ring, in_changes;  // the joining node in its ring, and in changes.endpoints
  };
  std::vector<Joining> joining;
  for (std::size_t j = 0; j < changes.joining.size(); ++j) {
    const TokenRing& ring = changes.with_joining[j];
    joining.push_back(Joining{&ring, place_replicas(ring, replication), *ring.find(changes.joining[j]),
                              *changes.find(changes.joining[j])});
  }

  ranges.reserve(bounds.size());
  for (std::size_t b = 0; b < bounds.size(); ++b) {
    WriteRange range{bounds[b == 0 ? bounds.size() - 1 : b - 1], bounds[b], {}, {}};
    for (EndpointIndex e : natural.replicas[range_holding(natural_ring, bounds[b])])
      range.natural.push_back(natural_map[e]);
    auto is_natural = [&](EndpointIndex e) {
      return std::find(range.natural.begin(), range.natural.end(), e) != range.natural.end();
    };
    const bool leaving_replica =
        std::any_of(range.natural.begin(), range.natural.end(),
                    [&](EndpointIndex e) { return contains(changes.leaving, changes.endpoints[e].address); });
    if (settled && leaving_replica)
      for (EndpointIndex e : settled->replicas[range_holding(*changes.settled, bounds[b])])
        if (!is_natural(settled_map[e])) range.pending.push_back(settled_map[e]);
    for (const Joining& j : joining) {
      const auto& replicas = j.placement.replicas[range_holding(*j.ring, bounds[b])];
      if (std::find(replicas.begin(), replicas.end(), j.in_ring) != replicas.end() &&
          !is_natural(j.in_changes))
        range.pending.push_back(j.in_changes);
    }
    std::sort(range.pending.begin(), range.pending.end());
    range.pending.erase(std::unique(range.pending.begin(), range.pending.end()), range.pending.end());
    ranges.push_back(std::move(range));
  }
  return ranges;
}

}  // namespace cla
