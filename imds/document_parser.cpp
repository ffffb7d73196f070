// Parses a Scheduled Events document (GET /metadata/scheduledevents) into an EventsDocument, tolerantly.
#include "imds/document_parser.hpp"

#include <boost/json.hpp>

#include "imds/json_read.hpp"
#include "imds/not_before.hpp"

namespace cla {
namespace {

namespace json = boost::json;

Error field_error(const std::string& path, std::string_view what) {
  return make_error(path + ": " + std::string(what));
}

const json::value* find(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && !v->is_null() ? v : nullptr;  // null is read as absent: tolerant of serializers that emit it
}

// Reads an optional string field into `out` (left unchanged when absent).
std::optional<Error> read_string(const json::object& o, std::string_view key, const std::string& path,
                                 std::string& out) {
  const json::value* v = find(o, key);
  if (!v) return std::nullopt;
  if (!v->is_string()) return field_error(path, "expected a string, found " + std::string(kind_name(*v)));
  if (v->get_string().size() > kMaxDocumentString)
    return field_error(path, "string longer than " + std::to_string(kMaxDocumentString) + " characters");
  out = std::string(v->get_string());
  return std::nullopt;
}

std::optional<Error> read_resources(const json::object& o, const std::string& path, ScheduledEvent& event) {
  const json::value* v = find(o, "Resources");
  if (!v) return field_error(path, "missing");
  if (!v->is_array()) return field_error(path, "expected an array of strings");
  const json::array& items = v->get_array();
  if (items.size() > kMaxResourcesPerEvent)
    return field_error(path, "more than " + std::to_string(kMaxResourcesPerEvent) + " resources");
  for (const json::value& item : items) {
    if (!item.is_string()) return field_error(path, "expected an array of strings");
    if (item.get_string().size() > kMaxDocumentString)
      return field_error(path, "string longer than " + std::to_string(kMaxDocumentString) + " characters");
    event.resources.emplace_back(item.get_string());
  }
  return std::nullopt;
}

EventStatus status_from(const std::string& text) {
  if (iequals(text, "Scheduled")) return EventStatus::scheduled;
  if (iequals(text, "Started")) return EventStatus::started;
  return EventStatus::unknown;
}

EventSource source_from(const std::string& text) {
  if (iequals(text, "Platform")) return EventSource::platform;
  if (iequals(text, "User")) return EventSource::user;
  return EventSource::unknown;
}

Result<ScheduledEvent> read_event(const json::value& v, const std::string& path) {
  if (!v.is_object()) return field_error(path, "expected an object, found " + std::string(kind_name(v)));
  const json::object& o = v.get_object();
  ScheduledEvent event;
  if (!find(o, "EventId")) return field_error(path + ".EventId", "missing");
  for (auto [key, out] : {std::pair<std::string_view, std::string*>{"EventId", &event.id},
                          {"EventType", &event.type},
                          {"ResourceType", &event.resource_type},
                          {"EventStatus", &event.status_text},
                          {"NotBefore", &event.not_before_text},
                          {"Description", &event.description},
                          {"EventSource", &event.source_text}}) {
    if (auto e = read_string(o, key, path + "." + std::string(key), *out)) return *e;
  }
  if (event.id.empty()) return field_error(path + ".EventId", "empty");
  if (auto e = read_resources(o, path + ".Resources", event)) return *e;
  event.status = status_from(event.status_text);
  event.source = source_from(event.source_text);
  if (!event.not_before_text.empty()) {
    auto when = parse_not_before(event.not_before_text);
    if (!when) return field_error(path + ".NotBefore", when.error().message);
    event.not_before = *when;
  }
  if (const json::value* d = find(o, "DurationInSeconds")) {
    auto seconds = to_int64(*d, true);
    if (!seconds)
      return field_error(path + ".DurationInSeconds",
                         "expected an integer, found " + std::string(kind_name(*d)));
    event.duration_s = *seconds;
  }
  return event;
}

}  // namespace

Result<EventsDocument> scheduled_events_from_json(const json::value& v) {
  if (!v.is_object())
    return make_error("document: expected a JSON object, found " + std::string(kind_name(v)));
  const json::object& o = v.get_object();
  EventsDocument doc;
  const json::value* incarnation = find(o, "DocumentIncarnation");
  if (!incarnation) return make_error("DocumentIncarnation: missing");
  auto n = to_int64(*incarnation, true);
  if (!n || *n < 0)
    return make_error("DocumentIncarnation: expected a non-negative integer, found " +
                      (incarnation->is_string() ? quoted_excerpt(incarnation->get_string())
                                                : std::string(kind_name(*incarnation))));
  doc.incarnation = *n;
  const json::value* events = find(o, "Events");
  if (!events) return make_error("Events: missing");
  if (!events->is_array())
    return make_error("Events: expected an array, found " + std::string(kind_name(*events)));
  const json::array& items = events->get_array();
  if (items.size() > kMaxEventsPerDocument)
    return make_error("Events: " + std::to_string(items.size()) + " events, more than the " +
                      std::to_string(kMaxEventsPerDocument) + " accepted");
  doc.events.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto event = read_event(items[i], "Events[" + std::to_string(i) + "]");
    if (!event) return event.error();
    doc.events.push_back(std::move(*event));
  }
  return doc;
}

Result<EventsDocument> parse_scheduled_events(std::string_view body) {
  auto json = parse_json(body);
  if (!json) return json.error();
  return scheduled_events_from_json(*json);
}

}  // namespace cla
