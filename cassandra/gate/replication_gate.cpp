// The gate's answer from one check: replication verdict or rack count (SPEC 3.4). Pure.
#include "cassandra/gate/replication_gate.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "cassandra/gate/safety_gate.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

std::string address_of_host_id(const ClusterStatus& status, const std::string& host_id) {
  if (host_id.empty()) return "";
  for (const StatusRow& row : status.rows)
    if (iequals(row.host_id, host_id)) return row.address;
  return "";
}

namespace {

std::vector<std::string> racks_of(const ClusterStatus& status, const std::vector<std::string>& addresses) {
  std::set<std::string> racks;
  for (const auto& address : addresses)
    for (const StatusRow& row : status.rows)
      if (row.address == address) racks.insert(row.rack);
  return {racks.begin(), racks.end()};
}

std::string describe(const ReplicationVerdict& v, Consistency consistency) {
  std::ostringstream os;
  if (v.safe) {
    os << "every range keeps " << to_string(consistency) << " without this node (" << v.keyspaces_checked
       << " keyspaces, " << v.ranges_checked << " ranges)";
  } else if (v.short_range) {
    const ShortRange& r = *v.short_range;
    os << "keyspace " << r.keyspace << " range (" << r.start_token << ", " << r.end_token << "] would keep "
       << r.available << " replica(s)" << (r.datacenter.empty() ? "" : " in " + r.datacenter) << ", "
       << to_string(consistency) << " needs " << r.needed;
    if (!r.pending.empty())
      os << " for writes (" << r.needed - static_cast<int>(r.pending.size()) << " + " << r.pending.size()
         << " pending)"
         << (r.access == ShortAccess::writes ? "; reads keep enough" : "; reads fall short too");
  } else {
    os << to_string(v.reason) << (v.detail.empty() ? "" : ": " + v.detail);
  }
  return os.str();
}

}  // namespace

GateDecision decide_gate(const GateInput& in) {
  GateDecision d;
  if (!in.snapshot) {
    // The rack count reads status alone: a node counted unavailable whatever status shows (a neighbour whose
    // maintenance began, frozen and still UN in gossip; one catching up; a recorded drain) is down here too
    // (issue 40: it was not counted, and a third rack could go with RF 5).
    ClusterStatus counted = in.status;
    for (StatusRow& row : counted.rows)
      if (row.address != in.self_address &&
          std::find(in.drained.begin(), in.drained.end(), row.address) != in.drained.end())
        row.status = 'D';
    const SafetyVerdict v = evaluate_safety(counted, in.self, in.replication_factor);
    d.result = SafetyResult{v.safe, "rack count (gate_fallback): " + v.reason, v.down_racks, {}};
    return d;
  }
  const VerdictNode self{in.self_address, in.self.datacenter};
  ReplicationVerdict v = in.drained.empty()
                             ? evaluate_replication(*in.snapshot, in.status, self, in.consistency)
                             : evaluate_admission(*in.snapshot, in.status, self, in.consistency, in.drained);
  d.result.safe = v.safe;
  d.result.reason = describe(v, in.consistency);
  d.result.fields = unsafe_log_fields(v);
  if (v.short_range) d.result.down_racks = racks_of(in.status, v.short_range->down);
  d.verdict = std::move(v);
  return d;
}

bool schema_refresh_due(std::optional<std::chrono::steady_clock::time_point> last_attempt,
                        std::chrono::steady_clock::time_point now, std::chrono::seconds interval) {
  return !last_attempt || now - *last_attempt >= interval;
}

}  // namespace cla
