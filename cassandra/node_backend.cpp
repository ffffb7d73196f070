#include "cassandra/node_backend.hpp"

namespace cla {

std::string NodeReadFailure::message(std::string_view suffix) const {
  if (kind == Kind::unreadable) return "cannot read " + call + std::string(suffix) + ": " + detail;
  return call + " failed" + std::string(suffix) + ": " + detail;
}

bool says_refused_after_drain(std::string_view message) {
  for (std::string_view phrase : {"because the node was drained", "is draining", "not in the normal state"})
    if (message.find(phrase) != std::string_view::npos) return true;
  return false;
}

std::string_view subcommand_of(NodeChange change) {
  switch (change) {
    case NodeChange::disable_binary:
      return "disablebinary";
    case NodeChange::disable_gossip:
      return "disablegossip";
    case NodeChange::drain:
      return "drain";
    case NodeChange::enable_gossip:
      return "enablegossip";
    case NodeChange::enable_binary:
      return "enablebinary";
  }
  return "unknown";
}

}  // namespace cla
