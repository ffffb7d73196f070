// The token ring built from `nodetool ring` rows: endpoints once each, tokens in the partitioner's order.
#include "cassandra/gate/token_ring.hpp"

#include <algorithm>
#include <map>

#include "state/text.hpp"

namespace cla {

namespace {

// Compares two non-negative integers written in decimal (no sign), leading zeros ignored.
int compare_magnitudes(std::string_view a, std::string_view b) {
  while (a.size() > 1 && a.front() == '0') a.remove_prefix(1);
  while (b.size() > 1 && b.front() == '0') b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

bool is_zero(std::string_view digits) {
  return digits.find_first_not_of('0') == std::string_view::npos;
}

}  // namespace

int compare_tokens(std::string_view a, std::string_view b) {
  const bool int_a = is_integer_text(a), int_b = is_integer_text(b);
  if (int_a != int_b) return int_a ? -1 : 1;  // never both in one real ring; a total order all the same
  if (!int_a) {
    const int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  const bool neg_a = a.front() == '-' && !is_zero(a.substr(1)),
             neg_b = b.front() == '-' && !is_zero(b.substr(1));
  if (a.front() == '-') a.remove_prefix(1);
  if (b.front() == '-') b.remove_prefix(1);
  if (neg_a != neg_b) return neg_a ? -1 : 1;
  const int magnitude = compare_magnitudes(a, b);
  return neg_a ? -magnitude : magnitude;
}

std::optional<EndpointIndex> TokenRing::find(std::string_view address) const {
  const auto it = std::lower_bound(endpoints.begin(), endpoints.end(), address,
                                   [](const RingEndpoint& e, std::string_view a) { return e.address < a; });
  if (it == endpoints.end() || it->address != address) return std::nullopt;
  return static_cast<EndpointIndex>(it - endpoints.begin());
}

std::ostream& operator<<(std::ostream& os, const TokenRing& ring) {
  os << "{" << ring.endpoints.size() << " endpoints, " << ring.tokens.size() << " tokens:";
  for (std::size_t i = 0; i < ring.tokens.size() && i < 8; ++i)
    os << " " << ring.tokens[i] << "@" << ring.endpoints[ring.owners[i]].address;
  return os << (ring.tokens.size() > 8 ? " ...}" : "}");
}

Result<TokenRing> make_token_ring(const RingTable& table) {
  std::map<std::string, RingEndpoint> endpoints;  // by address
  struct Owned {
    std::string_view token, address;
  };
  std::vector<Owned> owned;
  for (const RingRow& row : table.rows) {
    const auto [it, added] =
        endpoints.emplace(row.address, RingEndpoint{row.address, row.datacenter, row.rack});
    if (!added && (it->second.datacenter != row.datacenter || it->second.rack != row.rack))
      return make_error("endpoint " + row.address + " is in " + it->second.datacenter + "/" +
                        it->second.rack + " and in " + row.datacenter + "/" + row.rack);
    if (row.state != "Joining") owned.push_back(Owned{row.token, row.address});
  }
  // An endpoint with no normal token (only joining) is not part of the ring yet.
  std::erase_if(endpoints, [&](const auto& entry) {
    return std::none_of(owned.begin(), owned.end(), [&](const Owned& o) { return o.address == entry.first; });
  });
  if (owned.empty()) return make_error("the ring has no normal token");
  std::sort(owned.begin(), owned.end(),
            [](const Owned& a, const Owned& b) { return compare_tokens(a.token, b.token) < 0; });
  TokenRing ring;
  for (auto& [address, endpoint] : endpoints) ring.endpoints.push_back(std::move(endpoint));
  ring.tokens.reserve(owned.size());
  ring.owners.reserve(owned.size());
  for (const Owned& o : owned) {
    if (!ring.tokens.empty() && compare_tokens(ring.tokens.back(), o.token) == 0)
      return make_error("token " + std::string(o.token) + " is owned twice");
    ring.tokens.emplace_back(o.token);
    ring.owners.push_back(*ring.find(o.address));
  }
  return ring;
}

}  // namespace cla
