// The coordination.* section (SPEC 9): its readers and rules and its JSON view.
#include "agent/config/config_coordination.hpp"

#include <algorithm>
#include <set>

#include "agent/config/config_tls.hpp"
#include "agent/config/config_validation.hpp"
#include "imds/endpoint.hpp"
#include "imds/transport/secret_file.hpp"

namespace cla {
namespace {

using namespace config_detail;

// Letters, digits, '.', '_', '-': a key segment that cannot escape /cassandra-lifecycle-agent/<cluster>/.
std::optional<std::string> check_cluster(std::string_view cluster) {
  if (cluster.empty()) return std::nullopt;  // required only with endpoints (check_coordination)
  const bool safe = cluster.size() <= 128 && cluster != "." && cluster != ".." &&
                    std::all_of(cluster.begin(), cluster.end(), [](unsigned char c) {
                      return std::isalnum(c) || c == '.' || c == '_' || c == '-';
                    });
  if (safe) return std::nullopt;
  return "must be a key segment of letters, digits, '.', '_' and '-' (at most 128), e.g. \"prod-cass-01\"; "
         "got \"" +
         std::string(cluster.substr(0, 64)) + (cluster.size() > 64 ? "...\"" : "\"");
}

ValueReader endpoints_into(std::vector<std::string>& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* array = value.if_array();
    if (!array) return wrong_type(path, "array of etcd client URLs", value);
    std::vector<std::string> endpoints;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < array->size(); ++i) {
      const std::string element_path = path + "[" + std::to_string(i) + "]";
      const auto* s = (*array)[i].if_string();
      if (!s) return wrong_type(element_path, "string", (*array)[i]);
      if (auto endpoint = parse_etcd_endpoint(*s); !endpoint)
        return FieldError{element_path, endpoint.error().message};
      if (!seen.insert(std::string(*s)).second) return FieldError{element_path, "is listed twice"};
      endpoints.emplace_back(*s);
    }
    out = std::move(endpoints);
    return std::nullopt;
  };
}

ValueReader on_unavailable_into(OnUnavailable& out) {
  return [&out](const boost::json::value& value, const std::string& path) -> Check {
    const auto* s = value.if_string();
    if (!s) return wrong_type(path, "string", value);
    if (*s == "local_gate") {
      out = OnUnavailable::local_gate;
    } else if (*s == "hold") {
      out = OnUnavailable::hold;
    } else {
      return FieldError{path,
                        "must be \"local_gate\" (drain on the nodetool gate alone) or \"hold\" (no platform "
                        "drain before the forced instant); got " +
                            describe(value)};
    }
    return std::nullopt;
  };
}

// https:// endpoints with a CA to verify them, http:// ones without any TLS setting: never a mix. The files
// must load as the client loads them.
Check check_tls(const CoordinationConfig& c) {
  const TlsSettings& t = c.tls;
  if (tls_set(t) && !c.enabled())
    return FieldError{"coordination.tls", "is set but coordination.etcd_endpoints is empty"};
  for (std::size_t i = 0; i < c.etcd_endpoints.size(); ++i) {
    const auto endpoint = parse_etcd_endpoint(c.etcd_endpoints[i]);
    if (!endpoint) continue;  // reported by its reader
    if (auto error = check_tls_endpoint(t, "coordination.tls",
                                        "coordination.etcd_endpoints[" + std::to_string(i) + "]",
                                        c.etcd_endpoints[i], endpoint->tls, "etcd"))
      return error;
  }
  return check_tls_files_at(t, "coordination.tls");
}

}  // namespace

std::string_view to_string(OnUnavailable policy) {
  return policy == OnUnavailable::hold ? "hold" : "local_gate";
}

boost::json::object coordination_to_json(const CoordinationConfig& c) {
  return boost::json::object{
      {"etcd_endpoints", boost::json::array(c.etcd_endpoints.begin(), c.etcd_endpoints.end())},
      {"cluster", c.cluster},
      {"lease_ttl_s", c.lease_ttl_s.count()},
      {"username", c.username},
      {"password_file", c.password_file},
      {"on_unavailable", to_string(c.on_unavailable)},
      {"tls",
       {{"ca_file", c.tls.ca_file},
        {"cert_file", c.tls.cert_file},
        {"key_file", c.tls.key_file},
        {"server_name", c.tls.server_name}}},
  };
}

namespace config_detail {

ValueReader coordination_into(CoordinationConfig& c) {
  return object_of({
      {"etcd_endpoints", endpoints_into(c.etcd_endpoints)},
      {"cluster", string_into(c.cluster, check_cluster)},
      {"lease_ttl_s", duration_into(c.lease_ttl_s, 5, 300)},
      {"username", string_into(c.username)},
      {"password_file", string_into(c.password_file,
                                    [](std::string_view path) -> std::optional<std::string> {
                                      return path.empty() ? std::nullopt : check_file_path(path);
                                    })},
      {"on_unavailable", on_unavailable_into(c.on_unavailable)},
      {"tls", tls_into(c.tls, "etcd")},
  });
}

Check check_coordination(const CoordinationConfig& c) {
  if (c.enabled() && c.cluster.empty())
    return FieldError{
        "coordination.cluster",
        "is required when coordination.etcd_endpoints is set: it names the Cassandra cluster whose "
        "agents coordinate (keys live under /cassandra-lifecycle-agent/<cluster>/)"};
  if (!c.username.empty() && c.password_file.empty())
    return FieldError{"coordination.password_file", "is required with coordination.username"};
  if (c.username.empty() && !c.password_file.empty())
    return FieldError{"coordination.username", "is required with coordination.password_file"};
  if (!c.password_file.empty())
    if (auto password = read_secret_file(c.password_file); !password)
      return FieldError{"coordination.password_file", password.error().message};
  return check_tls(c);
}

}  // namespace config_detail
}  // namespace cla
