// Loads the config file: reads it, parses JSON (errors with line and column), applies every key over the
// defaults in file order, checks rules across keys; and renders the effective config back as JSON.
#include "agent/config/config.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json/stream_parser.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>

#include "agent/config/config_cassandra.hpp"
#include "agent/config/config_coordination.hpp"
#include "agent/config/config_fields.hpp"
#include "agent/config/config_validation.hpp"
#include "state/read_to_end.hpp"

namespace cla {
namespace {

using namespace config_detail;

constexpr std::size_t kMaxConfigBytes = 1 << 20;

Error config_error(const std::string& file, const std::string& key_path, const std::string& what) {
  return make_error(
      one_line("config error: " + file + ": " + (key_path.empty() ? "-" : key_path) + ": " + what));
}

// 1-based line and column (in characters, not bytes) of the byte at `offset`.
std::pair<std::size_t, std::size_t> line_and_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < std::min(offset, text.size()); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\n') {
      ++line;
      column = 1;
    } else if ((byte & 0xC0) != 0x80) {
      ++column;
    }
  }
  return {line, column};
}

// Every key of SPEC 2.3 and 9, each read into `c` over its default when the file gives it.
Check read_config(const boost::json::value& root, Config& c) {
  const ValueReader reader = object_of({
      {"imds", object_of({
                   {"endpoint", string_into(c.imds.endpoint, check_endpoint)},
                   {"api_version", string_into(c.imds.api_version, check_api_version)},
                   {"poll_interval_ms", duration_into(c.imds.poll_interval_ms, 100, 60000)},
                   {"request_timeout_ms", duration_into(c.imds.request_timeout_ms, 100, 120000)},
               })},
      {"node", object_of({
                   {"resource_name", string_into(c.node.resource_name)},
                   {"fault_domain",
                    int_into(c.node.fault_domain, -1, std::numeric_limits<int>::max(),
                             "must be -1 (discover it from IMDS) or a fault-domain number (0 or more)")},
               })},
      {"cassandra", cassandra_into(c.cassandra)},
      {"topology", object_of({
                       {"replication_factor", int_into(c.topology.replication_factor, 1, 9)},
                       {"consistency", consistency_into(c.topology.consistency)},
                       {"schema_refresh_s", duration_into(c.topology.schema_refresh_s, 10, 86400)},
                       {"rack_source", rack_source_into(c.topology.rack_source)},
                       {"fault_domain_racks", rack_map_into(c.topology.fault_domain_racks)},
                       {"zone_racks", zone_map_into(c.topology.zone_racks)},
                   })},
      {"policy", object_of({
                     {"drain_lead_s", duration_into(c.policy.drain_lead_s, 0, 3600)},
                     {"unsafe_drain_lead_s", duration_into(c.policy.unsafe_drain_lead_s, 0, 3600)},
                     {"unsafe_recheck_s", duration_into(c.policy.unsafe_recheck_s, 1, 300)},
                     {"no_impact_freeze_max_s", duration_into(c.policy.no_impact_freeze_max_s, 0, 3600)},
                     {"hold_between_events_s", duration_into(c.policy.hold_between_events_s, 0, 3600)},
                     {"approve_user_events", bool_into(c.policy.approve_user_events)},
                     {"approve_shared_events", bool_into(c.policy.approve_shared_events)},
                     {"flush_before_restart", bool_into(c.policy.flush_before_restart)},
                     {"quiet_s", duration_into(c.policy.quiet_s, 0, 60)},
                     {"catch_up_min_s", duration_into(c.policy.catch_up_min_s, 0, 600)},
                     {"catch_up_max_s", duration_into(c.policy.catch_up_max_s, 0, 86400)},
                 })},
      {"hooks", object_of({{"notify", argv_into(c.hooks.notify, true)}})},
      {"state_file", string_into(c.state_file, check_file_path)},
      {"log", object_of({
                  {"file", string_into(c.log.file, check_file_path)},
                  {"level", log_level_into(c.log.level)},
              })},
      {"http", object_of({{"listen", string_into(c.http.listen, check_listen)}})},
      {"coordination", coordination_into(c.coordination)},
  });
  if (auto error = reader(root, "")) return error;
  if (auto error = check_across_keys(c)) return error;
  if (auto error = check_cassandra(c.cassandra)) return error;
  return check_coordination(c.coordination);
}

boost::json::array to_json_array(const std::vector<std::string>& items) {
  return boost::json::array(items.begin(), items.end());
}

}  // namespace

Result<Config> parse_config(std::string_view json_text, const std::string& path_for_messages) {
  if (std::all_of(json_text.begin(), json_text.end(), [](unsigned char ch) { return std::isspace(ch); }))
    return config_error(path_for_messages, "", "file is empty (expected a JSON object, e.g. {})");
  boost::json::stream_parser parser;
  boost::system::error_code ec;
  std::size_t offset = parser.write_some(json_text.data(), json_text.size(), ec);
  if (!ec && offset < json_text.size()) ec = boost::json::error::extra_data;
  if (!ec) parser.finish(ec);
  if (ec) {
    const auto [line, column] = line_and_column(json_text, offset);
    return config_error(path_for_messages, "",
                        "invalid JSON at line " + std::to_string(line) + ", column " +
                            std::to_string(column) + ": " + ec.message());
  }
  Config config;
  if (auto error = read_config(parser.release(), config))
    return config_error(path_for_messages, error->path, error->what);
  return config;
}

Result<Config> load_config(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return config_error(path, "", std::string("cannot read file: ") + std::strerror(errno));
  const FdText read = read_to_end(fd, kMaxConfigBytes);
  ::close(fd);
  if (read.error)
    return config_error(path, "", std::string("cannot read file: ") + std::strerror(read.error));
  if (read.too_large) return config_error(path, "", "file is larger than 1 MiB; is it the right file?");
  return parse_config(read.text, path);
}

boost::json::object config_to_json(const Config& c) {
  boost::json::object racks;
  for (const auto& [domain, rack] : c.topology.fault_domain_racks) racks[std::to_string(domain)] = rack;
  boost::json::object zones;
  for (const auto& [zone, rack] : c.topology.zone_racks) zones[zone] = rack;
  boost::json::object out;
  out["imds"] = boost::json::object{{"endpoint", c.imds.endpoint},
                                    {"api_version", c.imds.api_version},
                                    {"poll_interval_ms", c.imds.poll_interval_ms.count()},
                                    {"request_timeout_ms", c.imds.request_timeout_ms.count()}};
  out["node"] =
      boost::json::object{{"resource_name", c.node.resource_name}, {"fault_domain", c.node.fault_domain}};
  out["cassandra"] = cassandra_to_json(c.cassandra);
  out["topology"] = boost::json::object{{"replication_factor", c.topology.replication_factor},
                                        {"consistency", to_string(c.topology.consistency)},
                                        {"schema_refresh_s", c.topology.schema_refresh_s.count()},
                                        {"rack_source", to_string(c.topology.rack_source)},
                                        {"fault_domain_racks", std::move(racks)},
                                        {"zone_racks", std::move(zones)}};
  out["policy"] = boost::json::object{{"drain_lead_s", c.policy.drain_lead_s.count()},
                                      {"unsafe_drain_lead_s", c.policy.unsafe_drain_lead_s.count()},
                                      {"unsafe_recheck_s", c.policy.unsafe_recheck_s.count()},
                                      {"no_impact_freeze_max_s", c.policy.no_impact_freeze_max_s.count()},
                                      {"hold_between_events_s", c.policy.hold_between_events_s.count()},
                                      {"approve_user_events", c.policy.approve_user_events},
                                      {"approve_shared_events", c.policy.approve_shared_events},
                                      {"flush_before_restart", c.policy.flush_before_restart},
                                      {"quiet_s", c.policy.quiet_s.count()},
                                      {"catch_up_min_s", c.policy.catch_up_min_s.count()},
                                      {"catch_up_max_s", c.policy.catch_up_max_s.count()}};
  out["hooks"] = boost::json::object{{"notify", to_json_array(c.hooks.notify)}};
  out["state_file"] = c.state_file;
  out["log"] = boost::json::object{{"file", c.log.file}, {"level", to_string(c.log.level)}};
  out["http"] = boost::json::object{{"listen", c.http.listen}};
  out["coordination"] = coordination_to_json(c.coordination);
  return out;
}

std::string_view to_string(RackSource source) {
  return source == RackSource::zone ? "zone" : "fault_domain";
}

std::string TopologyConfig::rack_for(int fault_domain, const std::string& zone) const {
  if (rack_source == RackSource::zone) {
    const auto it = zone_racks.find(zone);
    return it == zone_racks.end() ? "" : it->second;
  }
  const auto it = fault_domain_racks.find(fault_domain);
  return it == fault_domain_racks.end() ? "" : it->second;
}

}  // namespace cla
