// `nodetool status` and `ring` from StorageService's attributes and the snitch, as 5.0's nodetool builds
// them.
#include "cassandra/jolokia/jolokia_ring.hpp"

#include <algorithm>
#include <set>

#include "cassandra/gate/token_ring.hpp"

namespace cla {
namespace {

bool contains(const std::vector<std::string>& set, const std::string& endpoint) {
  return std::find(set.begin(), set.end(), endpoint) != set.end();
}

std::string load_of(const RingView& view, const std::string& endpoint) {
  const auto it = view.loads.find(endpoint);
  return it == view.loads.end() ? "?" : it->second;
}

// The DCs of the view's endpoints, sorted by name, each with its endpoints' tokens in ring order; fails when
// an endpoint has no place.
using TokensByDc = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;
Result<TokensByDc, JolokiaError> tokens_by_dc(const RingView& view, const Places& places) {
  TokensByDc dcs;
  for (const auto& [token, endpoint] : view.tokens) {
    const auto place = places.find(endpoint);
    if (place == places.end())
      return JolokiaError{JolokiaError::Kind::bad_answer,
                          0,
                          {},
                          "no datacenter and rack for endpoint " + endpoint + " of the token map"};
    dcs[place->second.datacenter].emplace_back(token, endpoint);
  }
  return dcs;
}

}  // namespace

std::vector<std::string> RingView::endpoints() const {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& [token, endpoint] : tokens)
    if (seen.insert(endpoint).second) out.push_back(endpoint);
  return out;
}

void read_ring_attributes(JolokiaReader& reader, RingView& view) {
  view.live = reader.strings("LiveNodesWithPort");
  view.unreachable = reader.strings("UnreachableNodesWithPort");
  view.joining = reader.strings("JoiningNodesWithPort");
  view.leaving = reader.strings("LeavingNodesWithPort");
  view.moving = reader.strings("MovingNodesWithPort");
  const auto token_map = reader.string_map("TokenToEndpointWithPortMap");
  view.tokens.assign(token_map.begin(), token_map.end());
  std::sort(view.tokens.begin(), view.tokens.end(),
            [](const auto& a, const auto& b) { return compare_tokens(a.first, b.first) < 0; });
}

Result<RingView, JolokiaError> read_ring_view(std::span<const JolokiaValue> values) {
  const auto calls = ring_view_calls();
  if (values.size() != calls.size())
    return JolokiaError{JolokiaError::Kind::bad_answer, 0, {}, "the ring view takes one answer"};
  JolokiaReader reader(values[0], calls[0]);
  RingView view;
  read_ring_attributes(reader, view);
  view.loads = reader.string_map("LoadMapWithPort");
  view.host_ids = reader.string_map("EndpointWithPortToHostId");
  if (!reader.ok()) return *reader.error();
  return view;
}

Result<Places, JolokiaError> read_places(std::span<const std::string> endpoints,
                                         std::span<const JolokiaValue> values) {
  const auto calls = places_calls(endpoints);
  if (values.size() != calls.size())
    return JolokiaError{JolokiaError::Kind::bad_answer,
                        0,
                        {},
                        "the places of " + std::to_string(endpoints.size()) + " endpoint(s) take " +
                            std::to_string(calls.size()) + " answers, not " + std::to_string(values.size())};
  Places places;
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    JolokiaReader dc(values[2 * i], calls[2 * i]), rack(values[2 * i + 1], calls[2 * i + 1]);
    Place place{dc.string(), rack.string()};
    if (!dc.ok()) return *dc.error();
    if (!rack.ok()) return *rack.error();
    places.emplace(endpoints[i], std::move(place));
  }
  return places;
}

std::string host_of(std::string_view endpoint) {
  if (endpoint.starts_with('[')) {
    const auto close = endpoint.find(']');
    if (close != std::string_view::npos) return std::string(endpoint.substr(1, close - 1));
  }
  const auto colon = endpoint.rfind(':');
  if (colon == std::string_view::npos || endpoint.find(':') != colon) return std::string(endpoint);
  return std::string(endpoint.substr(0, colon));
}

Result<ClusterStatus, JolokiaError> make_cluster_status(const RingView& view, const Places& places) {
  auto dcs = tokens_by_dc(view, places);
  if (!dcs) return dcs.error();
  ClusterStatus status;
  for (const auto& [dc, tokens] : dcs.value()) {
    std::set<std::string> seen;
    for (const auto& [token, endpoint] : tokens) {
      if (!seen.insert(endpoint).second) continue;
      StatusRow row;
      row.datacenter = dc;
      row.status = contains(view.live, endpoint) ? 'U' : contains(view.unreachable, endpoint) ? 'D' : '?';
      row.state = contains(view.joining, endpoint)   ? 'J'
                  : contains(view.leaving, endpoint) ? 'L'
                  : contains(view.moving, endpoint)  ? 'M'
                                                     : 'N';
      row.address = host_of(endpoint);
      row.load = load_of(view, endpoint);
      const auto id = view.host_ids.find(endpoint);
      row.host_id = id == view.host_ids.end() ? "" : id->second;
      row.rack = places.at(endpoint).rack;
      status.rows.push_back(std::move(row));
    }
  }
  return status;
}

Result<RingTable, JolokiaError> make_ring_table(const RingView& view, const Places& places) {
  auto dcs = tokens_by_dc(view, places);
  if (!dcs) return dcs.error();
  RingTable table;
  table.vnodes_warning = view.endpoints().size() < view.tokens.size();
  for (const auto& [dc, tokens] : dcs.value())
    for (const auto& [token, endpoint] : tokens) {
      const std::string status = contains(view.live, endpoint)          ? "Up"
                                 : contains(view.unreachable, endpoint) ? "Down"
                                                                        : "?";
      const std::string state = contains(view.joining, endpoint)   ? "Joining"
                                : contains(view.leaving, endpoint) ? "Leaving"
                                : contains(view.moving, endpoint)  ? "Moving"
                                                                   : "Normal";
      table.rows.push_back(RingRow{dc, host_of(endpoint), places.at(endpoint).rack, status, state,
                                   load_of(view, endpoint), "?", token});
    }
  return table;
}

}  // namespace cla
