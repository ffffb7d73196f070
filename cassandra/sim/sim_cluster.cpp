// nodetool-sim's cluster model: node lookup and the deterministic generator behind --init-cluster.
#include "cassandra/sim/sim_cluster.hpp"

#include <algorithm>
#include <cstdio>

#include "cassandra/sim/sim_output.hpp"

namespace cla {

std::uint64_t stable_hash(std::string_view text, std::uint64_t seed) {
  std::uint64_t hash = 14695981039346656037ull ^ (seed * 1099511628211ull);
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  // splitmix64 finalizer: FNV alone leaves similar inputs ("127.0.1.1", "127.0.1.2") with similar high bits.
  hash = (hash ^ (hash >> 30)) * 0xbf58476d1ce4e5b9ull;
  hash = (hash ^ (hash >> 27)) * 0x94d049bb133111ebull;
  return hash ^ (hash >> 31);
}

void count_sim_tasks(SimNode& node, std::int64_t now_unix) {
  if (node.tasks_counted_at == 0) node.tasks_counted_at = node.generation;  // from the process's start
  if (node.tasks_counted_at == 0 || now_unix <= node.tasks_counted_at) {
    node.tasks_counted_at = std::max(node.tasks_counted_at, now_unix);
    return;
  }
  std::int64_t until = node.tasks_counted_at;  // no traffic: stopped, drained, or gossip off past its echo
  if (seen_up_by_others(node))
    until = now_unix;
  else if (node.running && !node.drained && node.gossip_stopped_at > 0)
    until = std::min(now_unix, node.gossip_stopped_at + node.announce_echo_s);
  if (until > node.tasks_counted_at)
    node.completed_tasks += kSimTasksPerSecond * (until - node.tasks_counted_at);
  node.tasks_counted_at = now_unix;
}

std::optional<SimNodeRef> find_node(SimCluster& cluster, std::string_view address) {
  for (auto& dc : cluster.datacenters)
    for (auto& rack : dc.racks)
      for (auto& node : rack.nodes)
        if (node.address == address) return SimNodeRef{&dc, &rack, &node};
  return std::nullopt;
}

std::optional<std::string> sim_node_address(const std::string& base, int k) {
  if (k < 1) return std::nullopt;
  // Three octets, each 0..255 without a sign or a leading zero, and the trailing dot.
  std::uint32_t prefix = 0;  // the /24, as a number
  int octets = 0;
  std::size_t at = 0;
  for (; octets < 3 && at < base.size(); ++octets) {
    const std::size_t dot = base.find('.', at);
    if (dot == std::string::npos || dot == at || dot - at > 3) break;
    const std::string_view digits(base.data() + at, dot - at);
    if (digits.size() > 1 && digits[0] == '0') break;
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) break;
    const int octet = std::stoi(std::string(digits));
    if (octet > 255) break;
    prefix = (prefix << 8) | static_cast<std::uint32_t>(octet);
    at = dot + 1;
  }
  if (octets != 3 || at != base.size()) return base + std::to_string(k);
  constexpr int kHostsPer24 = 254;  // .1 .. .254
  const std::uint64_t net = prefix + static_cast<std::uint64_t>((k - 1) / kHostsPer24);
  if (net > 0xffffff) return std::nullopt;
  const int host = (k - 1) % kHostsPer24 + 1;
  return std::to_string(net >> 16) + "." + std::to_string((net >> 8) & 0xff) + "." +
         std::to_string(net & 0xff) + "." + std::to_string(host);
}

std::string default_host_id(const std::string& address) {
  const std::uint64_t a = stable_hash(address, 1), b = stable_hash(address, 2);
  char text[40];
  std::snprintf(text, sizeof text, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffull));
  return text;
}

std::string default_load(const std::string& address) {
  // Between 800 GiB and 1.3 TiB, printed the way nodetool prints loads.
  const double gib = 800.0 + static_cast<double>(stable_hash(address, 3) % 51200) / 100.0;
  return stringify_file_size(gib * 1024.0 * 1024.0 * 1024.0);
}

namespace {

SimKeyspace keyspace(std::string name, std::string_view replication) {
  return SimKeyspace{std::move(name), parse_replication(replication).value()};
}

}  // namespace

std::vector<SimKeyspace> default_sim_keyspaces() {
  return {keyspace("system_traces", "SimpleStrategy {replication_factor=2}"),
          keyspace("system_distributed", "SimpleStrategy {replication_factor=3}"),
          keyspace("system_auth", "SimpleStrategy {replication_factor=1}"),
          keyspace("lifecycle", "NetworkTopologyStrategy {dc1=3}"),
          keyspace("system_schema", "LocalStrategy {}"),
          keyspace("system", "LocalStrategy {}")};
}

Result<SimKeyspace> parse_sim_keyspace_option(std::string_view text) {
  const auto fail = [&](std::string why) {
    return make_error("--keyspace '" + std::string(text) + "': " + why +
                      " (NAME:simple:N, NAME:nts:dc1=N,dc2=N, NAME:local or NAME:everywhere)");
  };
  const auto colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return fail("no NAME:");
  const std::string name(text.substr(0, colon));
  const std::string_view spec = text.substr(colon + 1);
  const auto second = spec.find(':');
  const std::string_view kind = spec.substr(0, second),
                         args = second == std::string_view::npos ? "" : spec.substr(second + 1);
  std::string replication;
  if (kind == "simple" && !args.empty()) {
    replication = "SimpleStrategy {replication_factor=" + std::string(args) + "}";
  } else if (kind == "nts" && !args.empty()) {
    replication = "NetworkTopologyStrategy {";
    for (std::size_t start = 0; start <= args.size();) {
      const auto end = std::min(args.find(',', start), args.size());
      replication += (start ? ", " : "") + std::string(args.substr(start, end - start));
      start = end + 1;
    }
    replication += "}";
  } else if ((kind == "local" || kind == "everywhere") && args.empty()) {
    replication = kind == "local" ? "LocalStrategy {}" : "EverywhereStrategy {}";
  } else {
    return fail("unknown strategy or missing factors");
  }
  auto parsed = parse_replication(replication);
  if (!parsed || parsed->kind == StrategyKind::other) return fail("factors must read N or N/T");
  return SimKeyspace{name, std::move(parsed.value())};
}

SimCluster make_sim_cluster(const SimInitOptions& options, std::int64_t generation) {
  SimCluster cluster;
  cluster.call_log = options.call_log;
  cluster.keyspaces = options.keyspaces.empty() ? default_sim_keyspaces() : options.keyspaces;
  int next = 1;
  for (const auto& dc_name : options.datacenters) {
    SimDatacenter dc{dc_name, {}};
    for (int r = 1; r <= options.racks; ++r) {
      SimRack rack{"rack" + std::to_string(r), {}};
      for (int n = 0; n < options.nodes_per_rack; ++n) {
        SimNode node;
        node.address = sim_node_address(options.base_address, next++).value_or("");
        node.host_id = default_host_id(node.address);
        node.load = default_load(node.address);
        node.tokens = options.tokens;
        node.generation = generation;
        rack.nodes.push_back(std::move(node));
      }
      dc.racks.push_back(std::move(rack));
    }
    cluster.datacenters.push_back(std::move(dc));
  }
  return cluster;
}

}  // namespace cla
