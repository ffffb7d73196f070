// Fuzzes parse_scheduled_events: an accepted document, written back with every field as received, parses to
// the same document (the texts kept for logs, the NotBefore instants and the enums derived from them).
#include <boost/json/serialize.hpp>

#include "imds/document_parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

namespace json = boost::json;

std::string write_document(const cla::EventsDocument& doc) {
  json::array events;
  for (const auto& e : doc.events) {
    events.push_back(json::object{{"EventId", e.id},
                                  {"EventType", e.type},
                                  {"ResourceType", e.resource_type},
                                  {"Resources", json::array(e.resources.begin(), e.resources.end())},
                                  {"EventStatus", e.status_text},
                                  {"NotBefore", e.not_before_text},
                                  {"Description", e.description},
                                  {"EventSource", e.source_text},
                                  {"DurationInSeconds", e.duration_s}});
  }
  return json::serialize(
      json::object{{"DocumentIncarnation", doc.incarnation}, {"Events", std::move(events)}});
}

bool same_event(const cla::ScheduledEvent& a, const cla::ScheduledEvent& b) {
  return a.id == b.id && a.type == b.type && a.resource_type == b.resource_type &&
         a.resources == b.resources && a.status == b.status && a.status_text == b.status_text &&
         a.not_before == b.not_before && a.not_before_text == b.not_before_text &&
         a.description == b.description && a.source == b.source && a.source_text == b.source_text &&
         a.duration_s == b.duration_s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto parsed = cla::parse_scheduled_events(cla::fuzz::as_text(data, size));
  if (!parsed) {
    FUZZ_CHECK(!parsed.error().message.empty());
    return 0;
  }
  FUZZ_CHECK(parsed->incarnation >= 0 && parsed->events.size() <= cla::kMaxEventsPerDocument);
  for (const auto& e : parsed->events) {
    FUZZ_CHECK(!e.id.empty() && e.resources.size() <= cla::kMaxResourcesPerEvent);
    FUZZ_CHECK(e.not_before.has_value() == !e.not_before_text.empty());
  }
  const auto again = cla::parse_scheduled_events(write_document(*parsed));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(again->incarnation == parsed->incarnation && again->events.size() == parsed->events.size());
  for (std::size_t i = 0; i < parsed->events.size(); ++i)
    FUZZ_CHECK(same_event(parsed->events[i], again->events[i]));
  return 0;
}
