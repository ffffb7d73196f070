// imds-emulator's event model: the Scheduled Events of each region's availability set, advanced by injected
// time.
#include "imds/emulator/emulator_events.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <utility>

namespace cla {

EventSpec default_event_spec(std::string type, std::vector<std::string> resources, std::string source) {
  EventSpec spec;
  const bool user = iequals(source, "User");
  if (iequals(type, "Freeze")) {
    spec.duration_s = 5;
    spec.description =
        "Virtual machine is being paused because of a memory-preserving Live Migration operation.";
  } else if (iequals(type, "Reboot")) {
    spec.description = user ? "Virtual machine is going to be restarted as requested by authorized user."
                            : "Host server is undergoing maintenance.";
  } else if (iequals(type, "Redeploy")) {
    spec.not_before_in_s = 600;
    spec.description = user ? "Virtual machine is going to be redeployed as requested by authorized user."
                            : "Virtual machine is being redeployed due to a host degradation.";
  } else if (iequals(type, "Terminate")) {
    spec.not_before_in_s = 300;
  } else if (iequals(type, "Preempt")) {
    spec.not_before_in_s = 30;
  }
  spec.type = std::move(type);
  spec.resources = std::move(resources);
  spec.source = std::move(source);
  return spec;
}

WallTime EmulatedEvent::removal_time() const {
  const auto after = std::chrono::seconds(std::max<std::int64_t>(spec.duration_s, 0) + spec.complete_after_s);
  return started_at.value_or(not_before) + after;
}

EventModel::EventModel(std::vector<ModelVm> vms, std::uint64_t seed, SharedApproval shared)
    : vms_(std::move(vms)), shared_(shared), incarnations_(vms_.size(), 1), random_(seed) {}

void EventModel::changed(const std::string& region) {
  for (std::size_t i = 0; i < vms_.size(); ++i)
    if (vms_[i].region == region) ++incarnations_[i];
  ++version_;
}

std::string random_guid(std::mt19937_64& random) {
  const std::uint64_t hi = random(), lo = random();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08X-%04X-4%03X-%04X-%012llX", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0x0FFF),
                static_cast<unsigned>(0x8000 | ((lo >> 48) & 0x3FFF)),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

std::string EventModel::new_id() {
  return random_guid(random_);
}

std::string EventModel::add(EventSpec spec, WallTime now) {
  EmulatedEvent event;
  do {
    event.id = new_id();
  } while (find(event.id));
  event.created_at = now;
  event.not_before = now + std::chrono::seconds(spec.not_before_in_s);
  if (spec.started) {
    event.status = EventStatus::started;
    event.started_at = now;
  }
  std::set<std::string> names;  // approve() records each listed VM once, whatever its spelling
  for (const auto& r : spec.resources) names.insert(to_upper(r));
  event.distinct_resources = names.size();
  event.spec = std::move(spec);
  events_.push_back(std::move(event));
  if (events_.back().status == EventStatus::started) record(ImpactTransition::Phase::start, events_.back());
  changed(events_.back().spec.region);
  return events_.back().id;
}

bool EventModel::cancel(std::string_view id) {
  const auto it = std::find_if(events_.begin(), events_.end(),
                               [&](const EmulatedEvent& e) { return ids_equal(e.id, std::string(id)); });
  if (it == events_.end()) return false;
  if (it->status == EventStatus::started) record(ImpactTransition::Phase::end, *it);
  const std::string region = it->spec.region;
  events_.erase(it);
  changed(region);
  return true;
}

const EmulatedEvent* EventModel::find(std::string_view id) const {
  for (const auto& e : events_)
    if (ids_equal(e.id, std::string(id))) return &e;
  return nullptr;
}

const EmulatedEvent* EventModel::find_for(std::size_t vm, std::string_view id) const {
  const EmulatedEvent* event = find(id);
  return event && event->spec.region == vms_.at(vm).region ? event : nullptr;
}

bool EventModel::approve(std::size_t vm, std::string_view id, WallTime now) {
  auto* event = const_cast<EmulatedEvent*>(find_for(vm, id));
  if (!event) return false;
  const std::string& name = vms_[vm].name;
  const auto listed = std::find_if(event->spec.resources.begin(), event->spec.resources.end(),
                                   [&](const std::string& r) { return iequals(r, name); });
  const bool already = std::any_of(event->approved_by.begin(), event->approved_by.end(),
                                   [&](const std::string& r) { return iequals(r, name); });
  if (listed != event->spec.resources.end() && !already) event->approved_by.push_back(*listed);
  advance(now);
  return true;
}

void EventModel::advance(WallTime now) {
  for (auto& e : events_) {
    if (e.status != EventStatus::scheduled) continue;
    if (shared_ == SharedApproval::any ? e.approved_by_any() : e.approved_by_all()) {
      e.started_at = now;
    } else if (now >= e.not_before) {
      e.started_at = e.not_before;  // Azure starts it at NotBefore, however late we look
    } else {
      continue;
    }
    e.status = EventStatus::started;
    record(ImpactTransition::Phase::start, e);
    changed(e.spec.region);
  }
  const auto removed = std::stable_partition(events_.begin(), events_.end(), [&](const EmulatedEvent& e) {
    return !(e.status == EventStatus::started && now >= e.removal_time());
  });
  for (auto it = removed; it != events_.end(); ++it) {
    record(ImpactTransition::Phase::end, *it);
    changed(it->spec.region);
  }
  events_.erase(removed, events_.end());
}

void EventModel::record(ImpactTransition::Phase phase, const EmulatedEvent& event) {
  transitions_.push_back(ImpactTransition{phase, event.id, event.spec.type, event.spec.source,
                                          event.spec.duration_s, event.spec.resources, event.spec.region});
}

std::vector<ImpactTransition> EventModel::take_transitions() {
  return std::exchange(transitions_, {});
}

const char* phase_name(ImpactTransition::Phase phase) {
  return phase == ImpactTransition::Phase::start ? "start" : "end";
}

}  // namespace cla
