// The Scheduled Events document model: plain data as IMDS serves it, shared by the parser and the core.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cla {

using WallClock = std::chrono::system_clock;
using WallTime = WallClock::time_point;

enum class EventStatus { scheduled, started, unknown };
enum class EventSource { platform, user, unknown };
// Their names as IMDS spells them ("Scheduled", "Started", "Platform", "User"); "unknown" otherwise.
const char* status_name(EventStatus s);
const char* source_name(EventSource s);

struct ScheduledEvent {
  std::string id;                      // EventId as received; compare with ids_equal()
  std::string type;                    // Freeze, Reboot, Redeploy, Preempt, Terminate, or unknown text kept
  std::string resource_type;           // "VirtualMachine"
  std::vector<std::string> resources;  // VM names; compare case-insensitively
  EventStatus status = EventStatus::unknown;
  std::string status_text;             // EventStatus as received
  std::optional<WallTime> not_before;  // absent when NotBefore is "" (Started) or missing
  std::string not_before_text;         // NotBefore as received, for logs
  std::string description;
  EventSource source = EventSource::unknown;
  std::string source_text;       // EventSource as received ("" before api 2019-08-01)
  std::int64_t duration_s = -1;  // DurationInSeconds; -1 when absent or unknown
};

struct EventsDocument {
  std::int64_t incarnation = 0;
  std::vector<ScheduledEvent> events;
};

// Azure names and EventIds are case-insensitive (ASCII).
bool iequals(const std::string& a, const std::string& b);
inline bool ids_equal(const std::string& a, const std::string& b) {
  return iequals(a, b);
}
std::string to_upper(std::string s);

}  // namespace cla
