// The SPEC 3.2 classification of scheduled events.
#include "state/event_plan.hpp"

#include <algorithm>

namespace cla {

std::string_view to_string(EventPlan plan) {
  switch (plan) {
    case EventPlan::other_vm:
      return "other_vm";
    case EventPlan::no_impact:
      return "no_impact";
    case EventPlan::user_drain:
      return "user_drain";
    case EventPlan::platform_drain:
      return "platform_drain";
  }
  return "unknown";
}

bool names_node(const ScheduledEvent& event, const std::string& resource_name) {
  return std::any_of(event.resources.begin(), event.resources.end(),
                     [&](const std::string& r) { return iequals(r, resource_name); });
}

EventPlan plan_for(const ScheduledEvent& event, const CorePolicy& policy) {
  if (!names_node(event, policy.resource_name)) return EventPlan::other_vm;
  if (event.source == EventSource::user) return EventPlan::user_drain;
  if (iequals(event.type, "Freeze") && event.duration_s >= 0 &&
      event.duration_s < policy.no_impact_freeze_max_s)
    return EventPlan::no_impact;
  return EventPlan::platform_drain;
}

bool expects_restart(const std::string& event_type) {
  for (const char* t : {"Reboot", "Redeploy", "Preempt", "Terminate"})
    if (iequals(event_type, t)) return true;
  return false;
}

bool needs_flush(const std::string& event_type, const CorePolicy& policy) {
  return policy.flush_before_restart && expects_restart(event_type);
}

bool is_shared(const ScheduledEvent& event, const std::string& resource_name) {
  return std::any_of(event.resources.begin(), event.resources.end(),
                     [&](const std::string& r) { return !iequals(r, resource_name); });
}

bool drains_without_waiting(const ScheduledEvent& event, const CorePolicy& policy, WallTime now) {
  const EventPlan plan = plan_for(event, policy);
  if (plan != EventPlan::user_drain && plan != EventPlan::platform_drain) return false;
  if (event.status == EventStatus::started || plan == EventPlan::user_drain) return true;
  if (event.status != EventStatus::scheduled) return false;
  return !event.not_before || now >= *event.not_before - policy.unsafe_drain_lead;
}

}  // namespace cla
