// The Scheduled Events document each emulated VM is served, and its serialized events kept between changes.
#include "imds/emulator/emulator_document.hpp"

#include <boost/json.hpp>

#include "imds/not_before.hpp"

namespace cla {
namespace {

namespace json = boost::json;

json::array events_array(const EventModel& events, const std::string& region,
                         std::chrono::seconds not_before_shift, bool hide_scheduled) {
  json::array list;
  for (const EmulatedEvent& e : events.events()) {
    const bool started = e.status == EventStatus::started;
    if (e.spec.region != region || (hide_scheduled && !started)) continue;
    json::array resources;
    for (const auto& r : e.spec.resources) resources.emplace_back(r);
    list.emplace_back(json::object{
        {"EventId", e.id},
        {"EventStatus", started ? "Started" : "Scheduled"},
        {"EventType", e.spec.type},
        {"ResourceType", "VirtualMachine"},
        {"Resources", std::move(resources)},
        {"NotBefore", started ? std::string() : format_not_before(e.not_before + not_before_shift)},
        {"Description", e.spec.description},
        {"EventSource", e.spec.source},
        {"DurationInSeconds", e.spec.duration_s}});
  }
  return list;
}

}  // namespace

boost::json::object scheduled_events_document(const EventModel& events, std::size_t vm,
                                              std::chrono::seconds not_before_shift, bool hide_scheduled) {
  return json::object{
      {"DocumentIncarnation", events.incarnation(vm)},
      {"Events", events_array(events, events.vms().at(vm).region, not_before_shift, hide_scheduled)}};
}

std::string EventsDocumentCache::body(const EventModel& events, const std::string& region,
                                      std::int64_t incarnation) {
  Serialized& cached = regions_[region];
  if (cached.version != events.version()) {
    cached.events = json::serialize(events_array(events, region, {}, false));
    cached.version = events.version();
  }
  std::string text = "{\"DocumentIncarnation\":";
  text += std::to_string(incarnation);
  text += ",\"Events\":";
  text += cached.events;
  text += '}';
  return text;
}

}  // namespace cla
