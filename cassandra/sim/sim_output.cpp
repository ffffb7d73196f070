// Renders nodetool 4.1 `status` (TableBuilder layout) and `info` ("%-23s: %s"), and 5.0's `tpstats`, from
// the simulated cluster.
#include "cassandra/sim/sim_output.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <vector>

namespace cla {

std::string stringify_file_size(double bytes) {
  constexpr std::array<const char*, 4> kUnits{" KiB", " MiB", " GiB", " TiB"};
  double value = bytes;
  const char* unit = " bytes";
  for (int i = 3; i >= 0; --i) {
    const double scale = std::pow(1024.0, i + 1);
    if (bytes >= scale) {
      value = bytes / scale;
      unit = kUnits[static_cast<std::size_t>(i)];
      break;
    }
  }
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", value);
  std::string number(text);
  while (number.back() == '0') number.pop_back();
  if (number.back() == '.') number.pop_back();
  return number + unit;
}

namespace {

using Row = std::array<std::string, 7>;

std::string ownership(const SimCluster& cluster, std::size_t nodes_in_dc) {
  if (cluster.ownership_unavailable) return "?";
  const double replicas = std::min<double>(cluster.replication_factor, static_cast<double>(nodes_in_dc));
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", 100.0 * replicas / static_cast<double>(nodes_in_dc));
  return text;
}

}  // namespace

std::string format_status(const SimCluster& cluster, const std::string& caller_address) {
  const Row header{
      "--",      "Address", "Load", "Tokens", cluster.ownership_unavailable ? "Owns" : "Owns (effective)",
      "Host ID", "Rack"};
  std::map<std::string, std::vector<Row>> tables;  // sorted by DC name
  for (const auto& dc : cluster.datacenters) {
    struct Entry {
      std::uint64_t order;
      const SimNode* node;
      const SimRack* rack;
    };
    std::vector<Entry> nodes;
    for (const auto& rack : dc.racks)
      for (const auto& node : rack.nodes)
        nodes.push_back(Entry{stable_hash(node.address + ":7000"), &node, &rack});
    // Like the HashMap behind real nodetool: a stable order that is neither by address nor by rack.
    std::sort(nodes.begin(), nodes.end(), [](const Entry& a, const Entry& b) {
      return a.order != b.order ? a.order < b.order : a.node->address < b.node->address;
    });
    // Effective ownership is computed on normal tokens: a joining node shares no range yet.
    const auto owners = static_cast<std::size_t>(
        std::count_if(nodes.begin(), nodes.end(), [](const Entry& e) { return e.node->ring_state != 'J'; }));
    const std::string owns = ownership(cluster, std::max<std::size_t>(owners, 1));
    auto& rows = tables[dc.name];
    rows.reserve(nodes.size());
    for (const auto& [order, node, rack] : nodes) {
      const bool up = node->address == caller_address || seen_up_by_others(*node);
      // A joining node owns nothing yet: real nodetool prints its effective ownership as "?" (UJ ... ?).
      rows.push_back(Row{std::string{up ? 'U' : 'D', node->ring_state}, node->address, node->load,
                         std::to_string(node->tokens), node->ring_state == 'J' ? "?" : owns, node->host_id,
                         rack->name});
    }
  }
  std::array<std::size_t, 7> widths{};
  auto widen = [&](const Row& row) {
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  };
  widen(header);
  for (const auto& [name, rows] : tables) std::for_each(rows.begin(), rows.end(), widen);
  auto line = [&](const Row& row) {
    std::string text;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) text += "  ";
      text += row[i];
      text.append(widths[i] - row[i].size(), ' ');
    }
    return text + "\n";
  };

  std::string out;
  for (const auto& [name, rows] : tables) {
    const std::string title = "Datacenter: " + name;
    out += title + "\n" + std::string(title.size(), '=') + "\n";
    out += "Status=Up/Down\n|/ State=Normal/Leaving/Joining/Moving\n";
    out += line(header);
    for (const auto& row : rows) out += line(row);
    out += "\n";
  }
  if (cluster.ownership_unavailable)
    out +=
        "Note: Non-system keyspaces don't have the same replication settings, effective ownership "
        "information is meaningless\n";
  return out;
}

std::string format_info(const SimNodeRef& ref, std::int64_t now_unix) {
  const SimNode& node = *ref.node;
  const auto hash = stable_hash(node.address, 4);
  char heap[64], off_heap[32];
  std::snprintf(heap, sizeof heap, "%.2f / 8192.00", 2000.0 + static_cast<double>(hash % 500000) / 100.0);
  std::snprintf(off_heap, sizeof off_heap, "%.2f", static_cast<double>(hash % 200000) / 100.0);
  const std::pair<const char*, std::string> lines[] = {
      {"ID", node.host_id},
      {"Gossip active", node.gossip ? "true" : "false"},
      {"Native Transport active", node.binary ? "true" : "false"},
      {"Load", node.load},
      {"Generation No", std::to_string(node.gossip ? node.generation : 0)},
      {"Uptime (seconds)", std::to_string(std::max<std::int64_t>(0, now_unix - node.generation))},
      {"Heap Memory (MB)", heap},
      {"Off Heap Memory (MB)", off_heap},
      {"Data Center", ref.datacenter->name},
      {"Rack", ref.rack->name},
      {"Exceptions", "0"},
      {"Key Cache",
       "entries 0, size 0 bytes, capacity 100 MiB, 0 hits, 0 requests, NaN recent hit rate, "
       "14400 save period in seconds"},
      {"Row Cache",
       "entries 0, size 0 bytes, capacity 0 bytes, 0 hits, 0 requests, NaN recent hit rate, "
       "0 save period in seconds"},
      {"Counter Cache",
       "entries 0, size 0 bytes, capacity 50 MiB, 0 hits, 0 requests, NaN recent hit rate, "
       "7200 save period in seconds"},
      {"Chunk Cache",
       "entries 0, size 0 bytes, capacity 480 MiB, 0 misses, 0 requests, NaN recent hit rate, "
       "NaN microseconds miss latency"},
      {"Network Cache", "size 8 MiB, overflow size: 0 bytes, capacity 128 MiB"},
      {"Percent Repaired", "100.0%"},
      {"Token", "(invoke with -T/--tokens to see all " + std::to_string(node.tokens) + " tokens)"},
  };
  std::string out;
  for (const auto& [label, value] : lines) {
    char key[32];
    std::snprintf(key, sizeof key, "%-23s: ", label);
    out += key + value + "\n";
  }
  return out;
}

}  // namespace cla

namespace cla {

namespace {

// nodetool's TableBuilder: every cell left-aligned and padded to its column's width (the last one too), one
// space between columns.
std::string format_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> widths;
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], row[c].size());
    }
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) out += ' ';
      out += row[c] + std::string(widths[c] - row[c].size(), ' ');
    }
    out += '\n';
  }
  return out;
}

}  // namespace

std::string format_tpstats(const SimNode& node) {
  // The pools of a fresh 5.0 node, in the order its tpstats printed them (tests/data/cassandra/real-5.0/
  // tpstats_*): MutationStage appears with its first write, as Cassandra creates a stage's executor then.
  const std::int64_t reads = node.completed_tasks, mutations = node.completed_tasks / 3;
  std::vector<std::pair<std::string, std::int64_t>> pools{{"RequestResponseStage", reads + mutations}};
  if (mutations > 0) pools.emplace_back("MutationStage", mutations);
  for (const auto& [name, completed] :
       std::vector<std::pair<std::string, std::int64_t>>{{"ReadStage", reads},
                                                         {"CompactionExecutor", 61},
                                                         {"SecondaryIndexExecutor", 0},
                                                         {"MemtableReclaimMemory", 34},
                                                         {"PendingRangeCalculator", 3},
                                                         {"GossipStage", 57},
                                                         {"SecondaryIndexManagement", 1},
                                                         {"HintsDispatcher", 0},
                                                         {"StatusPropagationExecutor", 0},
                                                         {"MigrationStage", 7},
                                                         {"MemtablePostFlush", 76},
                                                         {"PerDiskMemtableFlushWriter_0", 31},
                                                         {"ValidationExecutor", 0},
                                                         {"Sampler", 0},
                                                         {"ViewBuildExecutor", 0},
                                                         {"MemtableFlushWriter", 34},
                                                         {"CacheCleanupExecutor", 0},
                                                         {"Native-Transport-Auth-Requests", 0},
                                                         {"Native-Transport-Requests", reads / 2}})
    pools.emplace_back(name, completed);
  std::vector<std::vector<std::string>> table{
      {"Pool Name", "Active", "Pending", "Completed", "Blocked", "All time blocked"}};
  for (const auto& [name, completed] : pools)
    table.push_back({name, "0", "0", std::to_string(completed), "0", "0"});
  std::vector<std::vector<std::string>> dropped{{"Message type", "Dropped", "50%", "95%", "99%", "Max"}};
  for (const char* type : {"READ_RSP", "MUTATION_REQ", "READ_REQ", "HINT_REQ"})
    dropped.push_back({type, "0", "0.0", "0.0", "0.0", "0.0"});
  return format_table(table) + "\nLatencies waiting in queue (micros) per dropped message types\n" +
         format_table(dropped);
}

}  // namespace cla

namespace cla {

namespace {

// Epoch seconds as ListPendingHints prints a timestamp (UTC, "yyyy-MM-dd HH:mm:ss,SSS").
std::string hint_time(std::int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S,000", &tm);
  return text;
}

}  // namespace

std::string format_listpendinghints(const SimCluster& cluster, const SimNode& caller, std::int64_t now_unix) {
  std::vector<std::vector<std::string>> table{
      {"Host ID", "Address", "Rack", "DC", "Status", "Total files", "Newest", "Oldest"}};
  for (const auto& dc : cluster.datacenters)
    for (const auto& rack : dc.racks)
      for (const auto& node : rack.nodes) {
        if (&node == &caller || node.hint_replay_s == 0 || node.back_at == 0) continue;
        if (now_unix < node.back_at + 1 || now_unix >= node.back_at + node.hint_replay_s) continue;
        table.push_back({node.host_id, node.address + ":7000", rack.name, dc.name,
                         seen_up_by_others(node) ? "UP" : "DOWN",
                         std::to_string(sim_hint_files(node.back_out_s)), hint_time(node.back_at - 1),
                         hint_time(node.back_at - node.back_out_s)});
      }
  if (table.size() == 1) return "This node does not have any pending hints\n";
  return format_table(table);
}

}  // namespace cla
