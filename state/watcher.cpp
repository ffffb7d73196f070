// The watcher's decisions (SPEC 9): roles, and the leader's agentless drain records. See the header.
#include "state/watcher.hpp"

#include <algorithm>
#include <boost/json.hpp>

#include "state/event_plan.hpp"

namespace cla {
namespace {

bool contains_id(const std::vector<std::string>& ids, const std::string& id) {
  return std::any_of(ids.begin(), ids.end(), [&](const std::string& e) { return ids_equal(e, id); });
}

// Started, or within drain_lead_s of its NotBefore: the impact counts from now on.
bool active(const ScheduledEvent& event, const WatcherInput& in) {
  if (event.status == EventStatus::started) return true;
  return event.not_before && in.now >= *event.not_before - in.drain_lead;
}

template <typename Record>
const Record* find_vm(const std::vector<Record>& records, const std::string& vm) {
  for (const auto& r : records)
    if (iequals(r.vm, vm)) return &r;
  return nullptr;
}

}  // namespace

std::string_view to_string(WatcherRole role) {
  switch (role) {
    case WatcherRole::leader:
      return "leader";
    case WatcherRole::secondary:
      return "secondary";
    case WatcherRole::none:
      return "none";
  }
  return "none";
}

boost::json::object to_json(const RoleHolder& holder) {
  return {{"vm", holder.vm}, {"fault_domain", holder.fault_domain}, {"rack", holder.rack}};
}

Result<RoleHolder> role_holder_from_json(std::string_view text) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(text, ec);
  const auto* o = ec ? nullptr : v.if_object();
  const auto* vm = o ? o->if_contains("vm") : nullptr;
  const auto* fd = o ? o->if_contains("fault_domain") : nullptr;
  const auto* rack = o ? o->if_contains("rack") : nullptr;
  if (!vm || !vm->is_string() || !fd || !fd->is_int64() || (rack && !rack->is_string()))
    return make_error("watcher role: not an object with vm, fault_domain and an optional rack");
  return RoleHolder{std::string(vm->get_string()), static_cast<int>(fd->get_int64()),
                    rack ? std::string(rack->get_string()) : std::string()};
}

RoleDecision decide_role(const RoleHolder& self, const std::optional<RoleHolder>& leader,
                         const std::optional<RoleHolder>& secondary) {
  RoleDecision d;
  if (leader && iequals(leader->vm, self.vm))
    d.current = WatcherRole::leader;
  else if (secondary && iequals(secondary->vm, self.vm))
    d.current = WatcherRole::secondary;
  if (d.current == WatcherRole::leader) return d;
  if (!leader) {
    // The secondary goes first; the others only when nobody holds either key.
    if (d.current == WatcherRole::secondary || !secondary) d.try_for = WatcherRole::leader;
    return d;
  }
  const bool elsewhere =
      leader->rack.empty() ? leader->fault_domain != self.fault_domain : leader->rack != self.rack;
  if (!secondary && elsewhere) d.try_for = WatcherRole::secondary;
  return d;
}

WatcherPlan AgentlessWatch::decide(const WatcherInput& in) {
  WatcherPlan plan;
  for (const auto& known : in.known) {
    if (iequals(known.vm, in.self) || find_vm(in.members, known.vm)) continue;
    const DrainRecord* existing = find_vm(in.drains, known.vm);
    // Its agent's own record counts already while the node is down. Once the node shows UN the record is
    // stale (the next admission deletes it: SPEC 9), e.g. an agent gone while its node caught up (SPEC 3.10):
    // the leader takes it over, guarded by its revision.
    const bool stale_own = existing && !existing->agentless && in.up_host_ids.count(existing->host_id);
    if (existing && !existing->agentless && !stale_own) continue;
    DrainRecord record;
    if (stale_own) {
      record = *existing;
      record.agentless = true;
      record.events.clear();
      record.since = in.now;
    } else if (existing) {
      record = *existing;
    } else {
      record.vm = known.vm;
      record.datacenter = known.datacenter;
      record.rack = known.rack;
      record.host_id = known.host_id;
      record.since = in.now;
      record.agentless = true;
    }
    bool changed = !existing || stale_own;
    bool impacted = false;
    for (const auto& event : in.events) {
      if (!names_node(event, known.vm) || !active(event, in)) continue;
      impacted = true;
      if (contains_id(record.events, event.id))
        continue;  // logged when it was written (maybe by another leader)
      record.events.push_back(to_upper(event.id));
      plan.impacts.push_back({known.vm, event.id, event.type, event.not_before_text});
      changed = true;
    }
    if (impacted && changed) plan.put.push_back(std::move(record));
  }

  std::set<std::string> held;
  for (const auto& record : in.drains) {
    if (!record.agentless) continue;
    const std::string key = to_upper(record.vm);
    held.insert(key);
    const bool pending = std::any_of(in.events.begin(), in.events.end(), [&](const ScheduledEvent& e) {
      return names_node(e, record.vm) && (active(e, in) || contains_id(record.events, e.id));
    });
    if (pending) {
      gone_at_.erase(key);
      continue;
    }
    const WallTime gone = gone_at_.try_emplace(key, in.now).first->second;
    if (in.status_taken_at && *in.status_taken_at >= gone && in.up_host_ids.count(record.host_id))
      plan.remove.push_back(record);
    else
      plan.needs_status = true;
  }
  std::erase_if(gone_at_, [&](const auto& entry) { return !held.count(entry.first); });
  return plan;
}

}  // namespace cla
