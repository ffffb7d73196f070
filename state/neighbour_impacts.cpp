// Other VMs of this cluster whose maintenance has begun: see the header.
#include "state/neighbour_impacts.hpp"

#include "state/event_plan.hpp"

namespace cla {

bool neighbours_possible(const std::vector<ScheduledEvent>& events, const std::string& self) {
  for (const auto& e : events) {
    if (!is_shared(e, self)) continue;
    if (e.status == EventStatus::started || !names_node(e, self)) return true;
  }
  return false;
}

std::set<std::string> listed_neighbours(const std::vector<ScheduledEvent>& events, const std::string& self,
                                        bool started_only) {
  std::set<std::string> out;
  for (const auto& e : events) {
    if (started_only && e.status != EventStatus::started) continue;
    for (const auto& vm : e.resources)
      if (!iequals(vm, self)) out.insert(to_upper(vm));
  }
  return out;
}

void NeighbourImpacts::observe_events(const std::vector<ScheduledEvent>& events,
                                      const std::set<std::string>& approved, const std::string& self,
                                      Time now) {
  std::set<std::string> impacted_now;
  for (const auto& event : events) {
    const bool started = event.status == EventStatus::started;
    if (!started && !approved.count(to_upper(event.id))) continue;
    for (const auto& vm : event.resources) {
      if (iequals(vm, self)) continue;
      const std::string key = to_upper(vm);
      impacted_now.insert(key);
      by_vm_[key] = Entry{vm, event.id, started ? "Started" : "approved", std::nullopt};
    }
  }
  for (auto& [key, entry] : by_vm_) {
    if (impacted_now.count(key) || entry.gone_at) continue;
    entry.gone_at = now;
    entry.why = "event gone, node not seen UN since";
  }
}

void NeighbourImpacts::observe_up(const std::set<std::string>& up_vms, Time taken_at) {
  for (const auto& vm : up_vms) {
    const auto it = by_vm_.find(to_upper(vm));
    if (it != by_vm_.end() && it->second.gone_at && *it->second.gone_at <= taken_at) by_vm_.erase(it);
  }
}

std::vector<NeighbourImpact> NeighbourImpacts::current() const {
  std::vector<NeighbourImpact> out;
  for (const auto& [key, entry] : by_vm_) out.push_back({entry.vm, entry.event_id, entry.why});
  return out;
}

}  // namespace cla
