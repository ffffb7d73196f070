// Parses GET /metadata/instance/compute: the VM's resource name, platform fault domain and zone.
#include "imds/compute_parser.hpp"

#include <boost/json.hpp>

#include "imds/json_read.hpp"

namespace cla {

Result<ComputeInfo> compute_from_json(const boost::json::value& v) {
  if (!v.is_object())
    return make_error("compute: expected a JSON object, found " + std::string(kind_name(v)));
  const boost::json::object* o = &v.get_object();
  std::string prefix;
  if (!o->contains("name")) {
    if (const auto* compute = o->if_contains("compute"); compute && compute->is_object()) {
      o = &compute->get_object();
      prefix = "compute.";
    }
  }
  ComputeInfo info;
  const auto* name = o->if_contains("name");
  if (!name) return make_error(prefix + "name: missing");
  if (!name->is_string())
    return make_error(prefix + "name: expected a string, found " + std::string(kind_name(*name)));
  if (name->get_string().empty()) return make_error(prefix + "name: empty");
  if (name->get_string().size() > 1024) return make_error(prefix + "name: longer than 1024 characters");
  info.name = std::string(name->get_string());

  const auto* fd = o->if_contains("platformFaultDomain");
  if (!fd) return make_error(prefix + "platformFaultDomain: missing");
  const auto number = to_int64(*fd, true);
  if (!number || *number < 0 || *number > 1000)
    return make_error(prefix + "platformFaultDomain: expected an integer 0..1000, found " +
                      (fd->is_string() ? quoted_excerpt(fd->get_string()) : std::string(kind_name(*fd))));
  info.platform_fault_domain = static_cast<int>(*number);

  // IMDS gives "" for a VM outside availability zones; an older api-version may leave it out.
  if (const auto* zone = o->if_contains("zone")) {
    if (!zone->is_string())
      return make_error(prefix + "zone: expected a string, found " + std::string(kind_name(*zone)));
    if (zone->get_string().size() > 64)
      return make_error(prefix + "zone: longer than 64 characters: " + quoted_excerpt(zone->get_string()));
    info.zone = std::string(zone->get_string());
  }
  return info;
}

Result<ComputeInfo> parse_compute(std::string_view body) {
  auto json = parse_json(body);
  if (!json) return json.error();
  return compute_from_json(*json);
}

}  // namespace cla
