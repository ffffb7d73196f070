// Renders nodetool 5.0's describecluster, ring and describering layouts (DescribeCluster, Ring,
// DescribeRing).
#include "cassandra/sim/sim_schema_output.hpp"

#include <algorithm>
#include <map>

namespace cla {

namespace {

// Java's List.toString: "[a, b]".
std::string java_list(const std::vector<std::string>& items, const std::string& suffix = "") {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i] + suffix;
  return out + "]";
}

// String.format("%-Ns", text): padded on the right, never cut.
std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// pad, with one blank at least after the text.
std::string spaced(const std::string& text, std::size_t width) {
  return pad(text + " ", width);
}

}  // namespace

std::string format_describecluster(const ClusterDescription& d) {
  std::string out = "Cluster Information:\n";
  out += "\tName: " + d.name + "\n\tSnitch: " + d.snitch + "\n";
  if (d.dynamic_snitch)
    out += std::string("\tDynamicEndPointSnitch: ") + (*d.dynamic_snitch ? "enabled" : "disabled") + "\n";
  out += "\tPartitioner: " + d.partitioner + "\n\tSchema versions:\n";
  for (int unreachable = 0; unreachable < 2; ++unreachable)
    for (const auto& [version, endpoints] : d.schema_versions)
      if ((version == kUnreachableSchemaVersion) == (unreachable == 1))
        out += "\t\t" + version + ": " + java_list(endpoints) + "\n\n";
  if (d.counts)
    out += "Stats for all nodes:\n\tLive: " + std::to_string(d.counts->live) +
           "\n\tJoining: " + std::to_string(d.counts->joining) +
           "\n\tMoving: " + std::to_string(d.counts->moving) +
           "\n\tLeaving: " + std::to_string(d.counts->leaving) +
           "\n\tUnreachable: " + std::to_string(d.counts->unreachable) + "\n";
  out += "\nData Centers: \n";
  for (const auto& dc : d.datacenters)
    out +=
        "\t" + dc.name + " #Nodes: " + std::to_string(dc.nodes) + " #Down: " + std::to_string(dc.down) + "\n";
  out += "\nDatabase versions:\n";
  for (const auto& [release, endpoints] : d.database_versions)
    out += "\t" + release + ": " + java_list(endpoints) + "\n\n";
  if (d.keyspaces) {
    out += "Keyspaces:\n";
    for (const auto& ks : *d.keyspaces)
      out += "\t" + ks.name + " -> Replication class: " + ks.replication.strategy_class + " " +
             format_replication_options(ks.replication) + "\n";
  }
  if (!d.notes.empty()) {
    out += "\n";
    for (const auto& note : d.notes) out += note + "\n";
  }
  return out;
}

std::string format_ring(const RingTable& table) {
  std::size_t address_width = 0;
  for (const auto& row : table.rows)
    address_width = std::max(address_width, row.address.size() + 5);  // ":7000"
  auto line = [&](const std::string& address, const std::string& rack, const std::string& status,
                  const std::string& state, const std::string& load, const std::string& owns,
                  const std::string& token) {
    // A rack of 12 characters or more runs into the status, as nodetool prints it (the parser splits it off);
    // the other cells never fill their width in Cassandra's output, and keep a blank if one does.
    return pad(address, address_width) + "  " + pad(rack, 12) + spaced(status, 7) + spaced(state, 8) +
           spaced(load, 16) + spaced(owns, 20) + pad(token, 44) + "\n";
  };
  std::string out = "\n";
  std::map<std::string, std::vector<const RingRow*>> dcs;  // by name, rows in the table's order
  for (const auto& row : table.rows) dcs[row.datacenter].push_back(&row);
  for (const auto& [dc, rows] : dcs) {
    out += "Datacenter: " + dc + "\n==========\n";
    out += line("Address", "Rack", "Status", "State", "Load", "Owns", "Token");
    out += rows.size() > 1 ? line("", "", "", "", "", "", rows.back()->token) : "\n";
    for (const RingRow* r : rows)
      out += line(r->address, r->rack, r->status, r->state, r->load, r->owns, r->token);
    out += "\n";
  }
  if (table.vnodes_warning)
    out +=
        "  Warning: \"nodetool ring\" is used to output all the tokens of a node.\n"
        "  To view status related info of a node use \"nodetool status\" instead.\n\n";
  out += "\n  ";
  for (const auto& note : table.notes) out += note + "\n";
  return out;
}

std::string format_describering(const DescribedRing& ring) {
  std::string out = "Schema Version:" + ring.schema_version + "\nTokenRange: \n";
  for (const auto& r : ring.ranges) {
    out += "\tTokenRange(start_token:" + r.start_token + ", end_token:" + r.end_token +
           ", endpoints:" + java_list(r.endpoints) + ", rpc_endpoints:" + java_list(r.rpc_endpoints) +
           ", endpoint_details:[";
    for (std::size_t i = 0; i < r.endpoint_details.size(); ++i) {
      const auto& e = r.endpoint_details[i];
      out += (i ? ", " : "") + std::string("EndpointDetails(host:") + e.host +
             ", datacenter:" + e.datacenter + ", rack:" + e.rack + ")";
    }
    out += "])\n";
  }
  return out;
}

}  // namespace cla
