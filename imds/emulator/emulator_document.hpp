// The Scheduled Events document each emulated VM is served, and its serialized events kept between changes.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "imds/emulator/emulator_events.hpp"

namespace cla {

// The Scheduled Events document as vms()[vm] sees it (api-version 2020-07-01 fields); faults may serve
// NotBefore shifted and leave the Scheduled events out.
boost::json::object scheduled_events_document(const EventModel& events, std::size_t vm,
                                              std::chrono::seconds not_before_shift = {},
                                              bool hide_scheduled = false);

// Every VM sees the same events; only DocumentIncarnation differs. The events are serialized once per change
// of the model instead of once per request: N VMs polling an event that lists N/3 of them would otherwise
// cost O(N^2) work per second.
class EventsDocumentCache {
 public:
  // The compact document with this DocumentIncarnation, byte for byte what serializing
  // scheduled_events_document (no shift, nothing hidden) with that incarnation gives.
  std::string body(const EventModel& events, std::int64_t incarnation);

 private:
  std::optional<std::uint64_t> version_;  // the model version `events_` was serialized at
  std::string events_;                    // the "Events" array, serialized
};

}  // namespace cla
