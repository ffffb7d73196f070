// Other VMs of this cluster whose maintenance began (SPEC 3.4, 9), in coordinated mode: the document's
// Started events and the approvals the member keys list make those VMs' nodes unavailable for the gate and
// for admission, even while gossip still shows them UN. NeighbourImpacts (state/, pure) decides which VMs;
// this maps them to nodes through the member keys and known/<vm> records etcd last answered.
#include <boost/asio.hpp>

#include "agent/daemon/daemon.hpp"
#include "agent/log.hpp"
#include "cassandra/gate/replication_gate.hpp"

namespace cla {

namespace asio = boost::asio;

namespace {

// A fleet read waited for by a gate check at most this long (etcd answers a healthy range in milliseconds).
constexpr std::chrono::seconds kFleetReadBudget{1};

// The events' ids and statuses: what decides the impacts.
std::vector<std::string> impact_keys(const std::vector<ScheduledEvent>& events) {
  std::vector<std::string> keys;
  for (const auto& e : events) keys.push_back(to_upper(e.id) + " " + e.status_text);
  return keys;
}

}  // namespace

void Daemon::observe_neighbours(const std::vector<ScheduledEvent>& events) {
  if (!coordinator_) return;
  // Another VM's event newly Started, and a VM it lists not mapped to its node yet: read the records now, so
  // that the next gate check finds it mapped (a Started event needs no approval read; at 450 agents every
  // agent of a DC reading at each start was most of what etcd served in a wave).
  if (impact_keys(events) != impact_keys(last_events_) &&
      hosts_unknown(listed_neighbours(events, resource_name_, true)))
    start_fleet_read();
  last_events_ = events;
  neighbours_.observe_events(last_events_, approved_by_members_, resource_name_,
                             std::chrono::steady_clock::now());
}

// The member keys' approvals and every VM's host id, as etcd has them now; when etcd cannot be read, the
// last records read still count (SPEC 9).
void Daemon::start_fleet_read() {
  if (!coordinator_ || fleet_reading_) return;
  fleet_reading_ = true;
  spawn(refresh_fleet_view(), "refresh_fleet_view");
}

bool Daemon::mapped_node_missing(const std::string& vm, const ClusterStatus& status) const {
  const auto host = host_by_vm_.find(vm);
  return host != host_by_vm_.end() && address_of_host_id(status, host->second).empty();
}

bool Daemon::hosts_unknown(const std::set<std::string>& vms) const {
  return std::any_of(vms.begin(), vms.end(), [&](const std::string& vm) {
    return !host_by_vm_.count(vm) || (last_view_ && mapped_node_missing(vm, last_view_->status));
  });
}

bool Daemon::impacted_mapping_stale(const ClusterStatus& status) const {
  const std::vector<NeighbourImpact> impacts = neighbours_.current();
  return std::any_of(impacts.begin(), impacts.end(), [&](const NeighbourImpact& impact) {
    return mapped_node_missing(to_upper(impact.vm), status);
  });
}

asio::awaitable<void> Daemon::refresh_fleet_view() {
  // Events name VMs of this availability set: this DC's (SPEC 9, "Several regions"). The known records
  // (written once per identity) only when a listed VM's node is not mapped yet.
  const bool with_known = hosts_unknown(listed_neighbours(last_events_, resource_name_, false));
  auto read = co_await coordinator_->read_dc_view(with_known);
  const auto snap = read ? std::optional(std::move(read.value())) : std::nullopt;
  if (snap && !stopping_) {
    approved_by_members_.clear();
    for (const auto& member : snap->members)
      for (const auto& id : member.approved) approved_by_members_.insert(to_upper(id));
    for (const auto& known : snap->known)
      if (!known.host_id.empty()) host_by_vm_[to_upper(known.vm)] = known.host_id;
    for (const auto& member : snap->members)  // a live agent's word over a record written earlier
      if (!member.host_id.empty()) host_by_vm_[to_upper(member.vm)] = member.host_id;
    observe_neighbours(last_events_);
  } else if (!read) {
    log_line(LogLevel::debug, "fleet_view_read_failed", {{"detail", describe(read.error())}});
  }
  fleet_reading_ = false;
  fleet_read_done_.cancel();  // a gate check waiting for this read goes on
}

asio::awaitable<void> Daemon::fleet_view_for_check() {
  if (!coordinator_) co_return;
  start_fleet_read();
  fleet_read_done_.expires_after(kFleetReadBudget);
  co_await fleet_read_done_.async_wait(asio::as_tuple(asio::use_awaitable));
}

std::vector<std::pair<std::string, NeighbourImpact>> Daemon::impacted_nodes(const ClusterStatus& status,
                                                                            SteadyTime taken_at) {
  std::vector<std::pair<std::string, NeighbourImpact>> out;
  if (neighbours_.empty()) return out;
  std::set<std::string> up_vms;
  for (const auto& [vm, host_id] : host_by_vm_)
    if (up_host_ids_.count(host_id)) up_vms.insert(vm);
  neighbours_.observe_up(up_vms, taken_at);
  for (const auto& impact : neighbours_.current()) {
    const auto host = host_by_vm_.find(to_upper(impact.vm));
    const std::string address = host == host_by_vm_.end() ? "" : address_of_host_id(status, host->second);
    if (!address.empty()) {
      out.emplace_back(address, impact);
      continue;
    }
    if (!neighbour_unknown_logged_.insert(to_upper(impact.vm) + " " + to_upper(impact.event_id)).second)
      continue;
    boost::json::object fields{{"vm", impact.vm}, {"event_id", impact.event_id}, {"why", impact.why}};
    if (host == host_by_vm_.end()) {
      fields["detail"] =
          "no member key or known record names this VM's node: the gate cannot count it "
          "(logged once an event)";
    } else {
      fields["host_id"] = host->second;
      fields["detail"] =
          "its records name a node that nodetool status does not show (replaced, or removed): "
          "the gate cannot count it until a record names the VM's node (logged once an event)";
    }
    log_line(LogLevel::warning, "neighbour_node_unknown", std::move(fields));
  }
  return out;
}

std::set<std::string> Daemon::impacted_host_ids() const {
  std::set<std::string> out;
  for (const auto& impact : neighbours_.current())
    if (const auto host = host_by_vm_.find(to_upper(impact.vm)); host != host_by_vm_.end())
      out.insert(host->second);
  return out;
}

std::set<std::string> Daemon::impacted_racks() const {
  std::set<std::string> out;
  if (!last_view_) return out;
  const std::set<std::string> hosts = impacted_host_ids();
  for (const StatusRow& row : last_view_->status.rows)
    if (row.datacenter == last_view_->self.datacenter && hosts.count(row.host_id)) out.insert(row.rack);
  return out;
}

}  // namespace cla
