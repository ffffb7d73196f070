// The consistency levels the gate can keep (SPEC 2.3 topology.consistency, 3.4): their names and parsing.
// Apart from the verdict so that the configuration can name a level without the parsers and the ring.
#pragma once

#include <optional>
#include <ostream>
#include <string_view>

namespace cla {

enum class Consistency { one, local_one, quorum, local_quorum, each_quorum };
std::string_view to_string(Consistency consistency);  // "LOCAL_QUORUM", ...
std::ostream& operator<<(std::ostream& os, Consistency consistency);
// The exact upper-case name, as CQL drivers spell it; nullopt otherwise.
std::optional<Consistency> parse_consistency(std::string_view text);
// Every level's name, in SPEC 2.3's order: "LOCAL_QUORUM, QUORUM, EACH_QUORUM, LOCAL_ONE, ONE".
std::string_view consistency_names();

}  // namespace cla
