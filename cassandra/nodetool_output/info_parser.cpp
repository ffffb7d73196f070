// Parser for `nodetool info`: "label: value" lines; the label is everything before the first colon.
#include "cassandra/nodetool_output/info_parser.hpp"

#include <map>
#include <optional>

#include "state/text.hpp"

namespace cla {

namespace {

Result<bool> parse_flag(const std::map<std::string, std::string, std::less<>>& values, std::string_view key) {
  const auto it = values.find(key);
  if (it == values.end()) return make_error("nodetool info has no '" + std::string(key) + "' line");
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  return make_error("nodetool info '" + std::string(key) + "' is '" + it->second + "', not true/false");
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const NodeInfo& info) {
  return os << "{" << info.host_id << " " << info.datacenter << " " << info.rack << " gossip "
            << info.gossip_active << " native transport " << info.native_transport_active << "}";
}

Result<NodeInfo> parse_nodetool_info(std::string_view stdout_text) {
  // First occurrence wins: "Token" may repeat (one line per token with -T) and nothing else matters twice.
  std::map<std::string, std::string, std::less<>> values;
  for (std::string_view line : split_lines(stdout_text)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    values.emplace(std::string(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
  NodeInfo info;
  for (auto [key, target] : {std::pair{"ID", &info.host_id}, std::pair{"Data Center", &info.datacenter},
                             std::pair{"Rack", &info.rack}}) {
    const auto it = values.find(std::string_view(key));
    if (it == values.end() || it->second.empty())
      return make_error("nodetool info has no '" + std::string(key) + "' line");
    *target = it->second;
  }
  auto gossip = parse_flag(values, "Gossip active");
  if (!gossip) return gossip.error();
  auto native = parse_flag(values, "Native Transport active");
  if (!native) return native.error();
  info.gossip_active = *gossip;
  info.native_transport_active = *native;
  return info;
}

}  // namespace cla
