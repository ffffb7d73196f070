// The coordination.* section (SPEC 9): its readers and rules, and its JSON view.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "agent/config/config.hpp"
#include "agent/config/config_fields.hpp"
#include "state/result.hpp"

namespace cla {

std::string_view to_string(OnUnavailable policy);  // "local_gate" | "hold"

boost::json::object coordination_to_json(const CoordinationConfig& coordination);

namespace config_detail {

// `{"etcd_endpoints": [...], "cluster": ..., ...}`: each key over its default.
ValueReader coordination_into(CoordinationConfig& out);
// The rules across coordination keys: cluster required with endpoints, username and password_file together,
// and the password file readable by the agent, not by every user, and not empty.
Check check_coordination(const CoordinationConfig& coordination);

}  // namespace config_detail
}  // namespace cla
