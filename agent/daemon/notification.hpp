// Maintenance notifications (SPEC 3.7): their names, the pipe-delimited message and the hook environment.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/core_io.hpp"
#include "state/scheduled_event.hpp"

namespace cla {

struct Notification {
  MaintenancePhase phase = MaintenancePhase::scheduled;  // named by to_string(MaintenancePhase)
  std::string event_id;
  std::string event_type;
  std::string resource;                // this node's resource name
  std::optional<WallTime> start_time;  // NotBefore when known
  bool dry_run = false;
};

// UTC to the second as the seed writes it: 2021-10-20T16:35:57.
std::string utc_seconds(WallTime t);

// NotificationType|<name>|StartTimeInUTC|<time or empty>|EventId|<id>|EventType|<type>|ResourceName|<name>.
// Values come from IMDS: '|' and control characters (newlines included) inside them become '_', so a value
// can never add a field or a line.
std::string pipe_message(const Notification& n);

// CLA_NOTIFICATION, CLA_EVENT_ID, CLA_EVENT_TYPE, CLA_NOT_BEFORE, CLA_RESOURCE, CLA_MESSAGE (the pipe form),
// and CLA_DRY_RUN=1 in a dry run; values cleaned as in pipe_message.
std::vector<std::pair<std::string, std::string>> hook_environment(const Notification& n);

}  // namespace cla
