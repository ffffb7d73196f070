// The state file's JSON format (SPEC 2.6): AgentState to JSON and back, with a schema version.
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "state/agent_state.hpp"
#include "state/result.hpp"

namespace cla {

boost::json::value encode_state(const AgentState& state);
Result<AgentState> decode_state(std::string_view text);

}  // namespace cla
