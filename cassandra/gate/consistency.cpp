// The consistency levels' names.
#include "cassandra/gate/consistency.hpp"

namespace cla {

std::string_view to_string(Consistency consistency) {
  switch (consistency) {
    case Consistency::one:
      return "ONE";
    case Consistency::local_one:
      return "LOCAL_ONE";
    case Consistency::quorum:
      return "QUORUM";
    case Consistency::local_quorum:
      return "LOCAL_QUORUM";
    case Consistency::each_quorum:
      return "EACH_QUORUM";
  }
  return "?";
}

std::optional<Consistency> parse_consistency(std::string_view text) {
  for (Consistency c : {Consistency::one, Consistency::local_one, Consistency::quorum,
                        Consistency::local_quorum, Consistency::each_quorum})
    if (text == to_string(c)) return c;
  return std::nullopt;
}

std::string_view consistency_names() {
  return "LOCAL_QUORUM, QUORUM, EACH_QUORUM, LOCAL_ONE, ONE";
}

std::ostream& operator<<(std::ostream& os, Consistency consistency) {
  return os << to_string(consistency);
}

}  // namespace cla
