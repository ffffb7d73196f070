// The replication-safety gate: counts down racks (or nodes) in the own DC against what RF allows.
#include "cassandra/gate/safety_gate.hpp"

#include <algorithm>
#include <set>

#include "state/scheduled_event.hpp"

namespace cla {

namespace {

std::string join(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

SafetyVerdict unsafe(SafetyVerdict verdict, std::string reason) {
  verdict.safe = false;
  verdict.reason = std::move(reason);
  return verdict;
}

}  // namespace

SafetyVerdict evaluate_safety(const ClusterStatus& status, const NodeInfo& self, int replication_factor) {
  SafetyVerdict verdict;
  verdict.own_datacenter = self.datacenter;
  verdict.own_rack = self.rack;
  const int rf = replication_factor;
  if (rf < 1) return unsafe(std::move(verdict), "invalid replication factor " + std::to_string(rf));
  verdict.allowed_out = rf - (rf / 2 + 1);

  std::set<std::string> racks, down_racks;
  std::vector<std::string> down_nodes;
  bool self_seen = false;
  for (const StatusRow& row : status.rows) {
    if (row.datacenter != self.datacenter) continue;
    racks.insert(row.rack);
    if (!self.host_id.empty() && iequals(row.host_id, self.host_id)) {
      self_seen = true;
      continue;
    }
    if (!row.up_normal()) {
      down_racks.insert(row.rack);
      down_nodes.push_back(row.address);
    }
  }
  std::sort(down_nodes.begin(), down_nodes.end());
  verdict.down_racks.assign(down_racks.begin(), down_racks.end());
  verdict.down_nodes = down_nodes;
  if (racks.empty())
    return unsafe(std::move(verdict), "datacenter " + self.datacenter + " is not in nodetool status");
  if (!self_seen)
    return unsafe(std::move(verdict), "this node (host id " + self.host_id + ") is not in datacenter " +
                                          self.datacenter + " of nodetool status");

  const std::string rf_text = "RF " + std::to_string(rf) + " allows " + std::to_string(verdict.allowed_out);
  if (static_cast<int>(racks.size()) < rf) {
    verdict.counted_nodes = true;
    verdict.would_be_out = static_cast<int>(down_nodes.size()) + 1;
    verdict.safe = verdict.would_be_out <= verdict.allowed_out;
    verdict.reason = std::to_string(verdict.would_be_out) + " node(s) of " + self.datacenter +
                     " would be out (this node + down: " + join(down_nodes) + "), " + rf_text +
                     " (nodes counted: " + std::to_string(racks.size()) + " rack(s) < RF)";
  } else {
    down_racks.insert(self.rack);
    verdict.would_be_out = static_cast<int>(down_racks.size());
    verdict.safe = verdict.would_be_out <= verdict.allowed_out;
    verdict.reason = std::to_string(verdict.would_be_out) + " rack(s) of " + self.datacenter +
                     " would be out (own rack " + self.rack + ", down racks: " + join(verdict.down_racks) +
                     "), " + rf_text;
  }
  verdict.reason = (verdict.safe ? "safe: " : "unsafe: ") + verdict.reason;
  return verdict;
}

}  // namespace cla
