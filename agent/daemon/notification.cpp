// Maintenance notifications: formatting only; the shell logs them and runs the hooks.
#include "agent/daemon/notification.hpp"

#include "agent/log.hpp"

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
  return format_rfc3339_ms(t).substr(0, 19);  // 2021-10-20T16:35:57.123Z -> 2021-10-20T16:35:57
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
