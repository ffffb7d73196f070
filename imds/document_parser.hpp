// Parses a Scheduled Events document (GET /metadata/scheduledevents) into an EventsDocument, tolerantly.
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <string_view>

#include "state/result.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

inline constexpr std::size_t kMaxEventsPerDocument = 1000;
inline constexpr std::size_t kMaxResourcesPerEvent = 1000;
inline constexpr std::size_t kMaxDocumentString = 4096;

// Never throws. Tolerant where IMDS versions differ: unknown fields are ignored; Description, EventSource,
// ResourceType, EventType, EventStatus and NotBefore may be absent (or null); DurationInSeconds absent or
// null means -1; NotBefore "" means none; EventStatus/EventSource map case-insensitively to enums and keep
// their text; an unknown EventType is kept as text. DocumentIncarnation and DurationInSeconds are JSON
// integers, or strings of decimal digits (accepted because every other IMDS primitive is a string).
// Errors name the field, e.g. "Events[1].Resources: expected an array of strings". Wrong shapes are errors:
// a non-object, missing or non-array Events, missing/non-integer/negative DocumentIncarnation, an event
// without EventId or Resources, a field of the wrong type, a NotBefore that is not a date, more than
// kMaxEventsPerDocument events, more than kMaxResourcesPerEvent resources, or a string longer than
// kMaxDocumentString characters.
Result<EventsDocument> parse_scheduled_events(std::string_view body);

// The same on already-parsed JSON (the client uses it to tell invalid JSON from a wrong shape).
Result<EventsDocument> scheduled_events_from_json(const boost::json::value& json);

}  // namespace cla
