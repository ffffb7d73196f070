// Rules for config values that need more than a type and a range: URLs, listen addresses, paths, the rack
// map, and rules relating several keys. Also the endpoint/listen parsers the network code reuses.
#include "agent/config/config_validation.hpp"

#include <algorithm>
#include <cctype>

#include "agent/http/http_exchange.hpp"
#include "imds/endpoint.hpp"

namespace cla {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

namespace config_detail {

std::optional<std::string> check_endpoint(std::string_view url) {
  // The client's own parser: the config accepts exactly what the client can use.
  auto endpoint = parse_endpoint(url);
  if (!endpoint)
    return endpoint.error().message + " (expected http://host[:port], e.g. http://169.254.169.254)";
  return std::nullopt;
}

std::optional<std::string> check_api_version(std::string_view version) {
  const bool shaped = version.size() == 10 && version[4] == '-' && version[7] == '-' &&
                      all_digits(version.substr(0, 4)) && all_digits(version.substr(5, 2)) &&
                      all_digits(version.substr(8, 2));
  if (!shaped) return "must be a date like 2020-07-01, got \"" + std::string(version) + "\"";
  // EventSource, which tells user-requested events apart, came with 2019-08-01.
  if (version < "2019-08-01") return "must be 2019-08-01 or later (earlier versions lack EventSource)";
  return std::nullopt;
}

std::optional<std::string> check_listen(std::string_view listen) {
  if (listen.empty()) return std::nullopt;
  auto address = parse_listen_address(listen);
  if (!address)
    return address.error().message +
           " (expected IPV4:PORT or [IPV6]:PORT, e.g. 127.0.0.1:9137, or \"\" to disable)";
  return std::nullopt;
}

std::optional<std::string> check_file_path(std::string_view path) {
  if (path.empty()) return "must not be empty";
  if (path.find('\0') != std::string_view::npos) return "must not contain a NUL character";
  if (path.back() == '/') return "names a directory (ends with /); give a file path";
  return std::nullopt;
}

ValueReader log_level_into(LogLevel& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    const auto level = parse_log_level(*s);
    if (!level) return FieldError{path, "must be one of debug, info, warning, error; got " + describe(value)};
    out = *level;
    return std::nullopt;
  };
}

ValueReader consistency_into(Consistency& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    const auto level = parse_consistency(*s);
    if (!level)
      return FieldError{path,
                        "must be one of " + std::string(consistency_names()) + "; got " + describe(value)};
    out = *level;
    return std::nullopt;
  };
}

namespace {
// A rack map's value at `key_path`: a non-empty string (fault_domain_racks and zone_racks alike).
Check check_rack_name(const std::string& key_path, const boost::json::value& rack) {
  if (!rack.is_string()) return wrong_type(key_path, "string (a rack name)", rack);
  if (rack.get_string().empty()) return FieldError{key_path, "rack name must not be empty"};
  return std::nullopt;
}
}  // namespace

ValueReader rack_source_into(RackSource& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    if (*s == "fault_domain")
      out = RackSource::fault_domain;
    else if (*s == "zone")
      out = RackSource::zone;
    else
      return FieldError{path, "must be fault_domain or zone; got " + describe(value)};
    return std::nullopt;
  };
}

ValueReader zone_map_into(std::map<std::string, std::string>& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* object = value.if_object();
    if (!object) return wrong_type(path, "object mapping availability zones to racks", value);
    std::map<std::string, std::string> racks;
    for (const auto& [key, rack] : *object) {
      const std::string key_path = child_path(path, key);
      if (key.empty())
        return FieldError{key_path, "is not an availability zone (IMDS names them \"1\", \"2\", ...)"};
      if (auto error = check_rack_name(key_path, rack)) return error;
      racks.emplace(std::string(key), std::string(rack.get_string()));
    }
    out = std::move(racks);
    return std::nullopt;
  };
}

ValueReader rack_map_into(std::map<int, std::string>& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* object = value.if_object();
    if (!object) return wrong_type(path, "object mapping fault domains to racks", value);
    if (object->empty())
      return FieldError{path, "must map at least one fault domain to a rack, e.g. {\"0\": \"rack1\"}"};
    std::map<int, std::string> racks;
    for (const auto& [key, rack] : *object) {
      const std::string key_path = child_path(path, key);
      // Canonical numbers only, so "1" and "01" cannot both name fault domain 1.
      if (!all_digits(key) || key.size() > 9 || (key.size() > 1 && key.front() == '0'))
        return FieldError{key_path, "is not a fault-domain number (a non-negative integer such as \"0\")"};
      if (auto error = check_rack_name(key_path, rack)) return error;
      racks.emplace(std::stoi(std::string(key)), std::string(rack.get_string()));
    }
    out = std::move(racks);
    return std::nullopt;
  };
}

Check check_across_keys(const Config& config) {
  const auto& policy = config.policy;
  if (policy.unsafe_drain_lead_s > policy.drain_lead_s)
    return FieldError{"policy.unsafe_drain_lead_s",
                      "must not exceed policy.drain_lead_s (" +
                          std::to_string(policy.unsafe_drain_lead_s.count()) + " > " +
                          std::to_string(policy.drain_lead_s.count()) +
                          "): the forced drain cannot come before the normal one"};
  if (config.topology.rack_source == RackSource::zone && config.topology.zone_racks.empty())
    return FieldError{"topology.zone_racks",
                      "must map the VMs' availability zones to racks when topology.rack_source is zone, e.g. "
                      "{\"1\": \"rack1\", \"2\": \"rack2\", \"3\": \"rack3\"}"};
  const auto& racks = config.topology.fault_domain_racks;
  if (config.topology.rack_source == RackSource::fault_domain && config.node.fault_domain >= 0 &&
      !racks.contains(config.node.fault_domain)) {
    std::string known;
    for (const auto& [domain, rack] : racks) known += (known.empty() ? "" : ", ") + std::to_string(domain);
    return FieldError{"node.fault_domain", "fault domain " + std::to_string(config.node.fault_domain) +
                                               " has no rack in topology.fault_domain_racks (it maps " +
                                               known + ")"};
  }
  return std::nullopt;
}

}  // namespace config_detail
}  // namespace cla
