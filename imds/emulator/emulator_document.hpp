// The Scheduled Events document each emulated VM is served, and its serialized events kept between changes.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "imds/emulator/emulator_events.hpp"

namespace cla {

// The Scheduled Events document as vms()[vm] sees it, its region's events (api-version 2020-07-01 fields);
// faults may serve NotBefore shifted and leave the Scheduled events out.
boost::json::object scheduled_events_document(const EventModel& events, std::size_t vm,
                                              std::chrono::seconds not_before_shift = {},
                                              bool hide_scheduled = false);

// Every VM of a region sees the same events; only DocumentIncarnation differs. Each region's events are
// serialized once per change of the model instead of once per request: N VMs polling an event that lists N/3
// of them would otherwise cost O(N^2) work per second.
class EventsDocumentCache {
 public:
  // The compact document of the region's events with this DocumentIncarnation, byte for byte what
  // serializing scheduled_events_document (no shift, nothing hidden) for a VM of that region gives.
  std::string body(const EventModel& events, const std::string& region, std::int64_t incarnation);

 private:
  struct Serialized {
    std::optional<std::uint64_t> version;  // the model version `events` was serialized at
    std::string events;                    // the region's "Events" array, serialized
  };
  std::map<std::string, Serialized> regions_;
};

}  // namespace cla
