// Reads "<Class> {k=v, ...}" into a Replication, and gives keyspaces of one setting one placement key.
#include "cassandra/nodetool_output/replication.hpp"

#include <charconv>

#include "state/text.hpp"

namespace cla {

namespace {

// "3" or "3/1", digits only, at most 6 of them; transient replicas fewer than all (one full replica at
// least).
bool parse_count(std::string_view text, ReplicaCount& out) {
  auto number = [](std::string_view digits, int& value) {
    if (digits.empty() || digits.size() > 6 ||
        digits.find_first_not_of("0123456789") != std::string_view::npos)
      return false;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return ec == std::errc{} && end == digits.data() + digits.size();
  };
  ReplicaCount count;
  const auto slash = text.find('/');
  if (!number(text.substr(0, slash), count.all)) return false;
  if (slash != std::string_view::npos &&
      (!number(text.substr(slash + 1), count.transient_replicas) ||
       (count.transient_replicas > 0 && count.transient_replicas >= count.all)))
    return false;
  out = count;
  return true;
}

StrategyKind kind_of(std::string_view simple_name) {
  if (simple_name == "SimpleStrategy") return StrategyKind::simple;
  if (simple_name == "NetworkTopologyStrategy") return StrategyKind::network_topology;
  if (simple_name == "LocalStrategy") return StrategyKind::local;
  if (simple_name == "EverywhereStrategy") return StrategyKind::everywhere;
  return StrategyKind::other;
}

// Fills the factors from the options; a kind whose options do not fit it becomes `other`.
void derive_factors(Replication& r) {
  if (r.kind == StrategyKind::simple) {
    const bool ok = r.options.size() == 1 && r.options[0].first == "replication_factor" &&
                    parse_count(r.options[0].second, r.replication_factor);
    if (!ok) r.kind = StrategyKind::other;
  } else if (r.kind == StrategyKind::network_topology) {
    for (const auto& [dc, value] : r.options) {
      ReplicaCount count;
      if (dc.empty() || dc == "replication_factor" || !parse_count(value, count) ||
          !r.dc_factors.emplace(dc, count).second) {
        r.kind = StrategyKind::other;
        r.dc_factors.clear();
        return;
      }
    }
  }
}

}  // namespace

std::string_view to_string(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::simple:
      return "simple";
    case StrategyKind::network_topology:
      return "network_topology";
    case StrategyKind::local:
      return "local";
    case StrategyKind::everywhere:
      return "everywhere";
    case StrategyKind::other:
      break;
  }
  return "other";
}

std::ostream& operator<<(std::ostream& os, StrategyKind kind) {
  return os << to_string(kind);
}

int Replication::total_factor() const {
  if (kind == StrategyKind::simple) return replication_factor.all;
  int total = 0;
  if (kind == StrategyKind::network_topology)
    for (const auto& [dc, count] : dc_factors) total += count.all;
  return total;
}

bool Replication::has_transient() const {
  if (replication_factor.transient_replicas > 0) return true;
  for (const auto& [dc, count] : dc_factors)
    if (count.transient_replicas > 0) return true;
  return false;
}

std::string Replication::placement_key() const {
  std::string key = strategy_class + "{";
  if (kind == StrategyKind::simple) {
    key += std::to_string(replication_factor.all);
  } else if (kind == StrategyKind::network_topology) {
    bool first = true;
    for (const auto& [dc, count] : dc_factors) {
      if (count.all == 0) continue;  // a DC with no replica places nothing
      key += (first ? "" : ",") + dc + "=" + std::to_string(count.all);
      first = false;
    }
  }
  return key + "}";
}

std::string format_replication_options(const Replication& replication) {
  std::string text = "{";
  for (std::size_t i = 0; i < replication.options.size(); ++i)
    text += (i ? ", " : "") + replication.options[i].first + "=" + replication.options[i].second;
  return text + "}";
}

std::ostream& operator<<(std::ostream& os, const Replication& replication) {
  return os << replication.strategy_class << " " << format_replication_options(replication);
}

Result<Replication> parse_replication(std::string_view text) {
  text = trim(text);
  Replication r;
  const auto brace = text.find('{');
  const std::string_view name = trim(text.substr(0, brace));
  if (name.empty() || name.find_first_of(" \t}") != std::string_view::npos)
    return make_error("replication '" + std::string(text) + "' has no class name");
  // The part after the package, trimmed as the whole name is: printed back, it must read the same.
  r.strategy_class =
      std::string(trim(name.substr(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1)));
  if (r.strategy_class.empty())
    return make_error("replication '" + std::string(text) + "' has no class name");
  r.kind = kind_of(r.strategy_class);
  if (brace == std::string_view::npos) {  // "null" (nodetool could not read it): read as without options
    derive_factors(r);
    return r;
  }
  if (text.back() != '}') return make_error("replication '" + std::string(text) + "' does not end with '}'");
  std::string_view body = text.substr(brace + 1, text.size() - brace - 2);
  while (!trim(body).empty()) {
    const auto comma = body.find(", ");
    const std::string_view entry = body.substr(0, comma);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos)
      return make_error("replication option '" + std::string(entry) + "' is not key=value");
    r.options.emplace_back(std::string(trim(entry.substr(0, eq))), std::string(trim(entry.substr(eq + 1))));
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 2);
  }
  derive_factors(r);
  return r;
}

}  // namespace cla
