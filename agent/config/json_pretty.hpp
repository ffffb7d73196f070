// Indented JSON text for people (--check output); Boost.JSON 1.81 only serialises compactly.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace cla {

// Two-space indentation, one member per line, empty arrays and objects kept as [] and {}; ends without a
// newline. The text parses back to an equal value.
std::string pretty_json(const boost::json::value& value);

}  // namespace cla
