// Case-insensitive comparison helpers for Azure names and EventIds.
#include "state/scheduled_event.hpp"

#include <algorithm>
#include <cctype>

namespace cla {

bool iequals(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

std::string to_upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

const char* status_name(EventStatus s) {
  switch (s) {
    case EventStatus::scheduled:
      return "Scheduled";
    case EventStatus::started:
      return "Started";
    case EventStatus::unknown:
      break;
  }
  return "unknown";
}

const char* source_name(EventSource s) {
  switch (s) {
    case EventSource::platform:
      return "Platform";
    case EventSource::user:
      return "User";
    case EventSource::unknown:
      break;
  }
  return "unknown";
}

}  // namespace cla
