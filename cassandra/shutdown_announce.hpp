// Cassandra's shutdown announce (SPEC 3.10): -Dcassandra.shutdown_announce_in_ms on the JVM, read from its
// arguments. Unset, Cassandra gossips on for 2 s after disablegossip, and peers that take in the node's state
// then mark it up again until their failure detectors convict it. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cla {

struct AnnounceSetting {
  enum class Kind {
    set,      // every JVM read has the property: `ms` is its value (the largest, if they differ)
    unset,    // no JVM read has it: Cassandra's default, 2000 ms
    unknown,  // no JVM to read, or some have it and some do not (which one is this node's?)
  };
  Kind kind = Kind::unknown;
  std::int64_t ms = 0;
  std::string detail;  // unknown: why
};

// The property's value in one JVM's arguments (the last one given wins, as in Java); nullopt when absent or
// not an integer.
std::optional<std::int64_t> announce_ms_in(const std::vector<std::string>& jvm_arguments);

// The setting of this node's Cassandra from the arguments of each candidate JVM: one with Jolokia (the JVM
// it runs in), every CassandraDaemon on this host with nodetool.
AnnounceSetting announce_setting(const std::vector<std::vector<std::string>>& jvms);

}  // namespace cla
