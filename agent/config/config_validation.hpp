// Rules for individual config values (URLs, addresses, paths, the rack map) and across values.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "agent/config/config.hpp"
#include "agent/config/config_fields.hpp"

namespace cla::config_detail {

// Each returns what is wrong with the value, or nothing.
std::optional<std::string> check_endpoint(std::string_view url);
std::optional<std::string> check_api_version(std::string_view version);
std::optional<std::string> check_listen(std::string_view listen);
std::optional<std::string> check_file_path(std::string_view path);

ValueReader log_level_into(LogLevel& out);
// One of the level names of SPEC 2.3 (LOCAL_QUORUM, QUORUM, EACH_QUORUM, LOCAL_ONE, ONE), exactly as written.
ValueReader consistency_into(Consistency& out);
// `{"0": "rack1", ...}`: keys are fault-domain numbers, values non-empty rack names; replaces `out` whole.
ValueReader rack_map_into(std::map<int, std::string>& out);
ValueReader rack_source_into(RackSource& out);
// Availability zones ("1", "2", ...) to racks; may be empty (rack_source zone requires entries).
ValueReader zone_map_into(std::map<std::string, std::string>& out);

// Rules that relate several keys (coordination.* has its own: check_coordination), checked once every key
// has been read.
Check check_across_keys(const Config& config);

}  // namespace cla::config_detail
