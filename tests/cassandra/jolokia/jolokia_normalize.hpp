// What the Jolokia backend's reads leave out by design, taken out of nodetool's parsed outputs as well so
// that the two compare: the ownership nodetool computes with effectiveOwnership (ring's owns column and every
// "Note:" it prints about it), and the order of status rows within a DC (nodetool's is a hash map's).
#pragma once

#include <algorithm>
#include <tuple>

#include "cassandra/nodetool_output/describecluster_parser.hpp"
#include "cassandra/nodetool_output/ring_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"

namespace cla::test {

inline ClusterStatus in_row_order(ClusterStatus status) {
  std::stable_sort(status.rows.begin(), status.rows.end(), [](const StatusRow& a, const StatusRow& b) {
    return std::tie(a.datacenter, a.address) < std::tie(b.datacenter, b.address);
  });
  return status;
}

inline ClusterStatus without_ownership(ClusterStatus status) {
  status.note.reset();
  return in_row_order(std::move(status));
}

template <class Notes>
void drop_ownership_notes(Notes& notes) {
  std::erase_if(notes, [](const std::string& note) { return note.find("Note: ") != std::string::npos; });
}

inline RingTable without_ownership(RingTable table) {
  for (auto& row : table.rows) row.owns = std::string(1, '?');  // not `= "?"`: GCC 12 misreports it
  drop_ownership_notes(table.notes);
  return table;
}

inline ClusterDescription without_ownership(ClusterDescription description) {
  drop_ownership_notes(description.notes);
  return description;
}

}  // namespace cla::test
