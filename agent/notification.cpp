// Maintenance notifications: formatting only; the shell logs them and runs the hooks.
#include "agent/notification.hpp"

#include <chrono>
#include <cstdio>

namespace cla {
namespace {

std::string clean(std::string_view value) {
  std::string out(value);
  for (char& c : out) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '|' || u < 0x20 || u == 0x7f) c = '_';
  }
  return out;
}

std::string start_time_text(const Notification& n) {
  return n.start_time ? utc_seconds(*n.start_time) : "";
}

}  // namespace

std::string utc_seconds(WallTime t) {
  using namespace std::chrono;
  const auto secs = floor<seconds>(t);
  const auto day = floor<days>(secs);
  const year_month_day ymd{day};
  const hh_mm_ss hms{secs - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02uT%02d:%02d:%02d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return text;
}

std::string pipe_message(const Notification& n) {
  std::string out = "NotificationType|";
  out += to_string(n.phase);
  out += "|StartTimeInUTC|" + start_time_text(n);
  out += "|EventId|" + clean(n.event_id);
  out += "|EventType|" + clean(n.event_type);
  out += "|ResourceName|" + clean(n.resource);
  return out;
}

std::vector<std::pair<std::string, std::string>> hook_environment(const Notification& n) {
  std::vector<std::pair<std::string, std::string>> env{
      {"CLA_NOTIFICATION", std::string(to_string(n.phase))},
      {"CLA_EVENT_ID", clean(n.event_id)},
      {"CLA_EVENT_TYPE", clean(n.event_type)},
      {"CLA_NOT_BEFORE", start_time_text(n)},
      {"CLA_RESOURCE", clean(n.resource)},
      {"CLA_MESSAGE", pipe_message(n)},
  };
  if (n.dry_run) env.emplace_back("CLA_DRY_RUN", "1");
  return env;
}

}  // namespace cla
