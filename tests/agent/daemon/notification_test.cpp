// Maintenance notifications: the seed's pipe-delimited form, the hook environment, and forged fields.
#include "agent/daemon/notification.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <map>

namespace {

using namespace std::chrono;

cla::WallTime utc(int y, unsigned mo, unsigned d, int h, int mi, int s) {
  return sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s};
}

cla::Notification scheduled() {
  return cla::Notification{cla::MaintenancePhase::scheduled,
                           "C7061BAC-AFDC-4513-B24B-AA5F13A16123",
                           "Reboot",
                           "cass-eus2-n04",
                           utc(2021, 10, 20, 16, 35, 57),
                           false};
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts{""};
  for (char c : s) {
    if (c == sep)
      parts.emplace_back();
    else
      parts.back().push_back(c);
  }
  return parts;
}

std::map<std::string, std::string> as_map(const std::vector<std::pair<std::string, std::string>>& env) {
  return {env.begin(), env.end()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(notification_test)

BOOST_AUTO_TEST_CASE(phases_have_the_seed_names) {
  BOOST_TEST(cla::to_string(cla::MaintenancePhase::scheduled) == "NodeMaintenanceScheduled");
  BOOST_TEST(cla::to_string(cla::MaintenancePhase::starting) == "NodeMaintenanceStarting");
  BOOST_TEST(cla::to_string(cla::MaintenancePhase::start) == "NodeMaintenanceStart");
  BOOST_TEST(cla::to_string(cla::MaintenancePhase::ended) == "NodeMaintenanceEnded");
}

BOOST_AUTO_TEST_CASE(times_are_utc_to_the_second) {
  BOOST_TEST(cla::utc_seconds(utc(2021, 10, 20, 16, 35, 57)) == "2021-10-20T16:35:57");
  BOOST_TEST(cla::utc_seconds(utc(2024, 2, 29, 23, 59, 59) + milliseconds(999)) == "2024-02-29T23:59:59");
  BOOST_TEST(cla::utc_seconds(cla::WallTime{}) == "1970-01-01T00:00:00");
}

BOOST_AUTO_TEST_CASE(pipe_message_has_the_seed_form) {
  BOOST_TEST(cla::pipe_message(scheduled()) ==
             "NotificationType|NodeMaintenanceScheduled|StartTimeInUTC|2021-10-20T16:35:57"
             "|EventId|C7061BAC-AFDC-4513-B24B-AA5F13A16123|EventType|Reboot|ResourceName|cass-eus2-n04");
  auto start = scheduled();
  start.phase = cla::MaintenancePhase::start;
  start.start_time.reset();
  BOOST_TEST(cla::pipe_message(start) ==
             "NotificationType|NodeMaintenanceStart|StartTimeInUTC|"
             "|EventId|C7061BAC-AFDC-4513-B24B-AA5F13A16123|EventType|Reboot|ResourceName|cass-eus2-n04");
}

BOOST_AUTO_TEST_CASE(hook_environment_names_every_field) {
  auto env = as_map(cla::hook_environment(scheduled()));
  BOOST_TEST(env.size() == 6u);
  BOOST_TEST(env["CLA_NOTIFICATION"] == "NodeMaintenanceScheduled");
  BOOST_TEST(env["CLA_EVENT_ID"] == "C7061BAC-AFDC-4513-B24B-AA5F13A16123");
  BOOST_TEST(env["CLA_EVENT_TYPE"] == "Reboot");
  BOOST_TEST(env["CLA_NOT_BEFORE"] == "2021-10-20T16:35:57");
  BOOST_TEST(env["CLA_RESOURCE"] == "cass-eus2-n04");
  BOOST_TEST(env["CLA_MESSAGE"] == cla::pipe_message(scheduled()));
  BOOST_TEST(env.count("CLA_DRY_RUN") == 0u);
}

BOOST_AUTO_TEST_CASE(dry_run_is_announced_to_hooks) {
  auto n = scheduled();
  n.dry_run = true;
  n.start_time.reset();
  auto env = as_map(cla::hook_environment(n));
  BOOST_TEST(env["CLA_DRY_RUN"] == "1");
  BOOST_TEST(env["CLA_NOT_BEFORE"] == "");
}

BOOST_AUTO_TEST_CASE(values_cannot_forge_fields_or_lines) {
  auto n = scheduled();
  n.event_id = "E1|EventType|Freeze";
  n.event_type = "Reboot\nNotificationType|NodeMaintenanceEnded";
  n.resource = std::string("vm0\r\x1b[2J\x7f|", 10);
  const std::string message = cla::pipe_message(n);
  const auto fields = split(message, '|');
  BOOST_REQUIRE_EQUAL(fields.size(), 10u);
  const char* keys[] = {"NotificationType", "StartTimeInUTC", "EventId", "EventType", "ResourceName"};
  for (std::size_t i = 0; i < 5; ++i) BOOST_TEST(fields[2 * i] == keys[i]);
  BOOST_TEST(fields[5] == "E1_EventType_Freeze");
  BOOST_TEST(fields[7] == "Reboot_NotificationType_NodeMaintenanceEnded");
  BOOST_TEST(fields[9] == "vm0__[2J__");
  auto is_control = [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; };
  for (const auto& [name, value] : cla::hook_environment(n))
    BOOST_TEST(std::none_of(value.begin(), value.end(), is_control), name);
  auto env = as_map(cla::hook_environment(n));
  BOOST_TEST(env["CLA_EVENT_ID"] == "E1_EventType_Freeze");
  BOOST_TEST(env["CLA_MESSAGE"] == message);
}

BOOST_AUTO_TEST_SUITE_END()
