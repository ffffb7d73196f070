// The fleet command's view: members with age, drain records with whether their agent lives, known VMs with
// whether an agent runs for them, the watcher's leader and secondary with the agentless records its leader
// wrote, and per event which listed VMs are drained, from IMDS's events or, without
// them, from the records.
#include "state/fleet_view.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace {

const cla::WallTime kNow = cla::WallTime{} + std::chrono::seconds(1'800'000'000);

cla::MemberRecord member(std::string vm, cla::MemberPhase phase, std::vector<std::string> events) {
  cla::MemberRecord m;
  m.vm = std::move(vm);
  m.phase = phase;
  m.datacenter = "dc1";
  m.rack = "rack1";
  m.events = std::move(events);
  m.since = kNow - std::chrono::seconds(42);
  return m;
}

cla::FleetInput input() {
  cla::FleetInput in;
  in.now = kNow;
  in.members = {member("vm0", cla::MemberPhase::drained, {"E1"}),
                member("vm1", cla::MemberPhase::draining, {"E1"})};
  cla::DrainRecord gone;
  gone.vm = "vm7";
  gone.datacenter = "dc1";
  gone.rack = "rack2";
  gone.events = {"E0"};
  gone.since = kNow - std::chrono::seconds(600);
  in.drains = {gone};
  return in;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fleet_view_test)

BOOST_AUTO_TEST_CASE(events_from_imds_show_drained_not_drained_and_unregistered_vms) {
  auto in = input();
  cla::ScheduledEvent e;
  e.id = "E1";
  e.type = "Reboot";
  e.status_text = "Scheduled";
  e.resources = {"vm0", "vm1", "vm2"};
  in.events = std::vector<cla::ScheduledEvent>{e};
  const auto view = cla::fleet_view(in);
  BOOST_TEST(view.at("members").as_array()[0].at("age_s").as_int64() == 42);
  BOOST_TEST(view.at("drains").as_array()[0].at("member_alive").as_bool() == false);
  const auto& event = view.at("events").as_array().at(0).as_object();
  BOOST_TEST(event.at("drained") == boost::json::array{"vm0"});
  BOOST_TEST(event.at("not_drained") == boost::json::array{"vm1"});
  BOOST_TEST(event.at("without_member_key") == boost::json::array{"vm2"});
  const std::string text = cla::fleet_text(view);
  BOOST_TEST(text.find("vm7  dc dc1  rack rack2  age 600 s  events E0  (agent gone)") != std::string::npos,
             text);
}

BOOST_AUTO_TEST_CASE(without_imds_the_events_come_from_the_records) {
  const auto view = cla::fleet_view(input());
  BOOST_TEST(view.at("events_source").as_string() == "etcd records");
  const auto& events = view.at("events").as_array();
  BOOST_TEST_REQUIRE(events.size() == 2u);  // E0 (vm7's record), E1 (the members')
  BOOST_TEST(events[0].at("event_id").as_string() == "E0");
  BOOST_TEST(events[0].at("without_member_key") == boost::json::array{"vm7"});
  BOOST_TEST(events[1].at("drained") == boost::json::array{"vm0"});
}

BOOST_AUTO_TEST_CASE(known_vms_are_listed_and_those_without_a_live_agent_marked) {
  auto in = input();
  in.known = {{"vm1", 0, "dc1", "rack1", "10.0.0.2", "h1"}, {"vm7", 1, "dc1", "rack2", "10.0.0.8", "h7"}};
  const auto view = cla::fleet_view(in);
  const auto& known = view.at("known").as_array();
  BOOST_TEST_REQUIRE(known.size() == 2u);
  BOOST_TEST(known[0].at("agent").as_bool());
  BOOST_TEST(!known[1].at("agent").as_bool());
  BOOST_TEST(known[1].at("address").as_string() == "10.0.0.8");
  const std::string text = cla::fleet_text(view);
  BOOST_TEST(text.find("known VMs (2):\n  vm1  dc dc1  rack rack1  fd 0  10.0.0.2\n  vm7  dc dc1  rack rack2 "
                       " fd 1  10.0.0.8 "
                       " (no agent)\n") != std::string::npos,
             text);
}

BOOST_AUTO_TEST_CASE(the_watchers_roles_are_shown_and_agentless_records_marked) {
  auto in = input();
  in.drains[0].agentless = true;
  in.watchers["dc1"].leader = cla::RoleHolder{"vm0", 0, "rack1"};
  auto view = cla::fleet_view(in);
  BOOST_TEST(view.at("drains").as_array()[0].at("agentless").as_bool());
  BOOST_TEST(view.at("watcher").at("dc1").at("leader").at("vm").as_string() == "vm0");
  BOOST_TEST(view.at("watcher").at("dc1").at("secondary").is_null());
  std::string text = cla::fleet_text(view);
  BOOST_TEST(
      text.find("vm7  dc dc1  rack rack2  age 600 s  events E0  (agentless: written by the watcher)\n") !=
          std::string::npos,
      text);
  BOOST_TEST(
      text.find("watcher of dc1: leader vm0 (rack rack1, fd 0), secondary none\n") != std::string::npos,
      text);
  in.watchers["dc1"].secondary = cla::RoleHolder{"vm1", 1, "rack2"};
  in.watchers["dc2"].leader = cla::RoleHolder{"vm0", 0, "rack1"};  // the same VM name, another region
  text = cla::fleet_text(cla::fleet_view(in));
  BOOST_TEST(text.find("watcher of dc1: leader vm0 (rack rack1, fd 0), secondary vm1 (rack rack2, fd 1)\n") !=
                 std::string::npos,
             text);
  BOOST_TEST(
      text.find("watcher of dc2: leader vm0 (rack rack1, fd 0), secondary none\n") != std::string::npos,
      text);
}

// SPEC 3.10: a member catching up, and the hints another member's node holds for it, by the target's VM.
BOOST_AUTO_TEST_CASE(a_member_catching_up_and_the_hints_held_for_it_are_shown) {
  auto in = input();
  in.members[0].phase = cla::MemberPhase::catching_up;
  in.members[0].host_id = "h0";
  in.members[1].hints_for = {{"h0", 3}, {"h9", 1}};
  const auto view = cla::fleet_view(in);
  BOOST_TEST(view.at("members").as_array()[0].at("phase").as_string() == "catching_up");
  const auto& hints = view.at("members").as_array()[1].at("hints").as_array();
  BOOST_TEST_REQUIRE(hints.size() == 2u);
  BOOST_TEST(hints[0].at("for").as_string() == "vm0");
  BOOST_TEST(hints[1].at("for").as_string() == "h9", "a host no member names: its host id");
  const std::string text = cla::fleet_text(view);
  BOOST_TEST(text.find("vm0  catching_up  dc dc1  rack rack1") != std::string::npos, text);
  BOOST_TEST(text.find("events E1  holds hints for vm0 (3 files)  holds hints for h9 (1 files)\n") !=
                 std::string::npos,
             text);
}

BOOST_AUTO_TEST_SUITE_END()
