// Parser for `nodetool describecluster`: a section per heading, each line read by its section's rule.
#include "cassandra/nodetool_output/describecluster_parser.hpp"

#include <algorithm>
#include <charconv>

#include "state/text.hpp"

namespace cla {

namespace {

enum class Section { none, info, schema_versions, counts, datacenters, database_versions, keyspaces };

Result<int> parse_count(std::string_view text) {
  text = trim(text);
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value < 0 || text.empty())
    return make_error("'" + std::string(text) + "' is not a count");
  return value;
}

// "<key>: [a, b]" into map[key] (a version or a release); the key is everything before the last ": [".
Result<bool> add_version(std::string_view line, std::map<std::string, std::vector<std::string>>& versions) {
  const auto sep = line.rfind(": [");
  if (sep == std::string_view::npos) return make_error("not '<version>: [endpoints]'");
  const auto items = split_java_list(line.substr(sep + 2));
  const std::string key(trim(line.substr(0, sep)));
  if (!items || key.empty()) return make_error("not '<version>: [endpoints]'");
  if (versions.count(key)) return make_error("version " + key + " given twice");
  auto& endpoints = versions[key];
  for (auto item : *items) endpoints.emplace_back(item);
  return true;
}

// "<dc> #Nodes: N #Down: M"
Result<DatacenterCount> parse_datacenter(std::string_view line) {
  const auto nodes_at = line.find(" #Nodes:"), down_at = line.find(" #Down:");
  if (nodes_at == std::string_view::npos || down_at == std::string_view::npos || down_at < nodes_at)
    return make_error("not '<dc> #Nodes: N #Down: M'");
  DatacenterCount dc{std::string(trim(line.substr(0, nodes_at))), 0, 0};
  auto nodes = parse_count(line.substr(nodes_at + 8, down_at - nodes_at - 8));
  auto down = parse_count(line.substr(down_at + 7));
  if (dc.name.empty() || !nodes || !down) return make_error("not '<dc> #Nodes: N #Down: M'");
  dc.nodes = *nodes;
  dc.down = *down;
  return dc;
}

// Cassandra names a keyspace with word characters only (SchemaConstants.isValidName, \w+). A name with
// anything else is not describecluster's: it could hold the separator below, read one way here and another
// once printed back.
bool is_keyspace_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// "<keyspace> -> Replication class: <Class> {k=v, ...}"
Result<KeyspaceReplication> parse_keyspace(std::string_view line) {
  constexpr std::string_view kArrow = " -> Replication class: ";
  const auto arrow = line.find(kArrow);
  if (arrow == std::string_view::npos) return make_error("not '<keyspace> -> Replication class: ...'");
  KeyspaceReplication ks{std::string(trim(line.substr(0, arrow))), {}};
  if (ks.name.empty()) return make_error("keyspace without a name");
  if (!is_keyspace_name(ks.name))
    return make_error("'" + ks.name + "' is not a keyspace name (letters, digits and '_' only)");
  auto replication = parse_replication(line.substr(arrow + kArrow.size()));
  if (!replication) return replication.error();
  ks.replication = std::move(replication.value());
  return ks;
}

class Reader {
 public:
  Result<bool> line(std::string_view line) {
    if (line.starts_with("Note:") || line.starts_with("Error:") || line.starts_with("%nError:") ||
        line.starts_with("something went wrong for keyspace")) {
      d_.notes.emplace_back(line);
      return true;
    }
    if (auto heading = section_of(line)) {
      section_ = *heading;
      if (section_ == Section::info) seen_info_ = true;
      if (section_ == Section::keyspaces && !d_.keyspaces) d_.keyspaces.emplace();
      if (section_ == Section::counts && !d_.counts) d_.counts.emplace();
      return true;
    }
    switch (section_) {
      case Section::none:
        return true;
      case Section::info:
        return info(line);
      case Section::schema_versions:
        return add_version(line, d_.schema_versions);
      case Section::counts:
        return count(line);
      case Section::datacenters: {
        auto dc = parse_datacenter(line);
        if (!dc) return dc.error();
        d_.datacenters.push_back(std::move(dc.value()));
        return true;
      }
      case Section::database_versions:
        return add_version(line, d_.database_versions);
      case Section::keyspaces: {
        auto ks = parse_keyspace(line);
        if (!ks) return ks.error();
        const auto same = [&](const KeyspaceReplication& k) { return k.name == ks->name; };
        if (std::any_of(d_.keyspaces->begin(), d_.keyspaces->end(), same))
          return make_error("keyspace " + ks->name + " given twice");
        d_.keyspaces->push_back(std::move(ks.value()));
        return true;
      }
    }
    return true;
  }

  Result<ClusterDescription> finish() && {
    if (!seen_info_) return make_error("nodetool describecluster output has no 'Cluster Information:'");
    if (d_.schema_versions.empty())
      return make_error("nodetool describecluster output has no schema version");
    return std::move(d_);
  }

 private:
  static std::optional<Section> section_of(std::string_view line) {
    if (line == "Cluster Information:") return Section::info;
    if (line == "Schema versions:") return Section::schema_versions;
    if (line == "Stats for all nodes:") return Section::counts;
    if (line == "Data Centers:") return Section::datacenters;
    if (line == "Database versions:") return Section::database_versions;
    if (line == "Keyspaces:") return Section::keyspaces;
    return std::nullopt;
  }

  Result<bool> info(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return make_error("not 'Key: value'");
    const std::string_view key = trim(line.substr(0, colon)), value = trim(line.substr(colon + 1));
    if (key == "Name") d_.name = value;
    if (key == "Snitch") d_.snitch = value;
    if (key == "Partitioner") d_.partitioner = value;
    if (key == "DynamicEndPointSnitch") {
      if (value != "enabled" && value != "disabled") return make_error("not enabled/disabled");
      d_.dynamic_snitch = value == "enabled";
    }
    return true;
  }

  Result<bool> count(std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return make_error("not 'Key: count'");
    const std::string_view key = trim(line.substr(0, colon));
    int* target = key == "Live"          ? &d_.counts->live
                  : key == "Joining"     ? &d_.counts->joining
                  : key == "Moving"      ? &d_.counts->moving
                  : key == "Leaving"     ? &d_.counts->leaving
                  : key == "Unreachable" ? &d_.counts->unreachable
                                         : nullptr;
    if (!target) return true;  // a count a later release may add
    auto value = parse_count(line.substr(colon + 1));
    if (!value) return value.error();
    *target = *value;
    return true;
  }

  ClusterDescription d_;
  Section section_ = Section::none;
  bool seen_info_ = false;
};

}  // namespace

std::vector<std::string> ClusterDescription::reachable_schema_versions() const {
  std::vector<std::string> versions;
  for (const auto& [version, endpoints] : schema_versions)
    if (version != kUnreachableSchemaVersion) versions.push_back(version);
  return versions;
}

std::ostream& operator<<(std::ostream& os, const NodeCounts& c) {
  return os << "{live " << c.live << " joining " << c.joining << " moving " << c.moving << " leaving "
            << c.leaving << " unreachable " << c.unreachable << "}";
}

std::ostream& operator<<(std::ostream& os, const DatacenterCount& dc) {
  return os << "{" << dc.name << " nodes " << dc.nodes << " down " << dc.down << "}";
}

std::ostream& operator<<(std::ostream& os, const ClusterDescription& d) {
  os << "{name: " << d.name << ", partitioner: " << d.partitioner << ", schema_versions: [";
  for (const auto& [version, endpoints] : d.schema_versions)
    os << " " << version << "(" << endpoints.size() << ")";
  os << " ]";
  if (d.counts)
    os << ", live " << d.counts->live << " joining " << d.counts->joining << " moving " << d.counts->moving
       << " leaving " << d.counts->leaving << " unreachable " << d.counts->unreachable;
  if (d.keyspaces) {
    os << ", keyspaces: [";
    for (const auto& ks : *d.keyspaces) os << " " << ks.name << ": " << ks.replication << ";";
    os << " ]";
  }
  return os << "}";
}

Result<ClusterDescription> parse_nodetool_describecluster(std::string_view stdout_text) {
  Reader reader;
  std::size_t number = 0;
  for (std::string_view raw : split_lines(stdout_text)) {
    ++number;
    const std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (auto ok = reader.line(line); !ok)
      return make_error("nodetool describecluster line " + std::to_string(number) + " '" + std::string(line) +
                        "': " + ok.error().message);
  }
  return std::move(reader).finish();
}

}  // namespace cla
