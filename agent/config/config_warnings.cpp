// --check's warnings: nodetool's password options in cassandra.nodetool, etcd password auth in clear, and an
// unsafe state location.
#include "agent/config/config_warnings.hpp"

#include <string_view>

#include "agent/config/config_fields.hpp"
#include "imds/endpoint.hpp"
#include "state/state_location.hpp"

namespace cla {
namespace {

// Cassandra 5.0's nodetool (airline): `-pw`/`--password` take the password as the next argument, or after
// `=` in the same one. `-pwf`/`--password-file` name a file instead, which is the fix.
std::optional<std::string> password_option(std::string_view arg) {
  for (const std::string_view option : {std::string_view("-pw"), std::string_view("--password")}) {
    if (arg == option) return std::string(option);
    if (arg.size() > option.size() && arg.starts_with(option) && arg[option.size()] == '=')
      return std::string(option) + "=...";
  }
  return std::nullopt;
}

}  // namespace

std::vector<ConfigWarning> config_warnings(const Config& config) {
  std::vector<ConfigWarning> out;
  const auto& nodetool = config.cassandra.nodetool;
  for (std::size_t i = 0; i < nodetool.size(); ++i) {
    const auto option = password_option(nodetool[i]);
    if (!option) continue;
    out.push_back(
        {"cassandra.nodetool[" + std::to_string(i) + "]",
         "\"" + *option +
             "\" puts the JMX password on nodetool's command line, where every user of this host can "
             "read it (ps, /proc/PID/cmdline) while nodetool runs, and in this file: give "
             "\"-u\", \"USER\", \"-pwf\", \"FILE\" (--password-file) instead, FILE holding the line "
             "\"USER PASSWORD\" (the format of Cassandra's jmxremote.password), readable by the "
             "agent's user alone (mode 0400 or 0600)"});
  }
  const auto& coordination = config.coordination;
  for (std::size_t i = 0; i < coordination.etcd_endpoints.size() && !coordination.username.empty(); ++i) {
    const auto endpoint = parse_etcd_endpoint(coordination.etcd_endpoints[i]);
    if (!endpoint || endpoint->tls || is_loopback_host(endpoint->host)) continue;
    out.push_back(
        {"coordination.etcd_endpoints[" + std::to_string(i) + "]",
         "is http:// with coordination.username: the password and etcd's token cross the network in "
         "clear, and the agent cannot tell etcd from an impostor; use https:// with "
         "coordination.tls"});
  }
  if (auto place = check_state_location(config.state_file, std::nullopt); !place)
    out.push_back({"state_file", place.error().message + "; the agent refuses to start with it"});
  return out;
}

std::string format_config_warning(const std::string& file, const ConfigWarning& warning) {
  return config_detail::one_line("config warning: " + file + ": " + warning.path + ": " + warning.what);
}

}  // namespace cla
