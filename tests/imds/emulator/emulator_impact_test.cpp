// imds-emulator's impact transitions (what --impact-hook plays) with injected time, and the hook's
// environment.
#include <boost/test/unit_test.hpp>

#include "imds/emulator/emulator_events.hpp"
#include "imds/emulator/emulator_impact_hook.hpp"

namespace {

using namespace std::chrono_literals;
using Phase = cla::ImpactTransition::Phase;

const cla::WallTime t0 = cla::WallTime{} + std::chrono::seconds(1700000000);

cla::EventSpec spec(std::string type, std::vector<std::string> resources, std::int64_t notice,
                    std::int64_t duration, std::int64_t complete_after) {
  cla::EventSpec s = cla::default_event_spec(std::move(type), std::move(resources));
  s.not_before_in_s = notice;
  s.duration_s = duration;
  s.complete_after_s = complete_after;
  return s;
}

std::vector<Phase> phases(const std::vector<cla::ImpactTransition>& ts) {
  std::vector<Phase> out;
  for (const auto& t : ts) out.push_back(t.phase);
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(emulator_impact_test)

BOOST_AUTO_TEST_CASE(start_at_not_before_and_end_at_removal) {
  cla::EventModel model({{"vm0"}, {"vm1"}}, 1);
  const auto id = model.add(spec("Freeze", {"vm0", "vm1"}, 30, 20, 5), t0);
  BOOST_TEST(model.take_transitions().empty());
  model.advance(t0 + 29s);
  BOOST_TEST(model.take_transitions().empty());
  model.advance(t0 + 30s);
  const auto started = model.take_transitions();
  BOOST_TEST_REQUIRE(started.size() == 1u);
  BOOST_TEST(
      (started[0] == cla::ImpactTransition{Phase::start, id, "Freeze", "Platform", 20, {"vm0", "vm1"}}));
  BOOST_TEST(model.take_transitions().empty());  // taken once
  model.advance(t0 + 30s + 24s);
  BOOST_TEST(model.take_transitions().empty());
  model.advance(t0 + 30s + 25s);
  const auto ended = model.take_transitions();
  BOOST_TEST_REQUIRE(ended.size() == 1u);
  BOOST_TEST((ended[0].phase == Phase::end && ended[0].event_id == id));
}

BOOST_AUTO_TEST_CASE(approval_and_hardware_failure_start_at_once) {
  cla::EventModel model({{"vm0"}}, 2);
  const auto approved = model.add(spec("Reboot", {"vm0"}, 900, -1, 10), t0);
  model.approve(0, approved, t0 + 1s);
  auto hardware = spec("Redeploy", {"vm0"}, 0, -1, 10);
  hardware.started = true;
  const auto failed = model.add(hardware, t0 + 2s);
  const auto ts = model.take_transitions();
  BOOST_TEST_REQUIRE(ts.size() == 2u);
  BOOST_TEST((ts[0].phase == Phase::start && ts[0].event_id == approved && ts[0].duration_s == -1));
  BOOST_TEST((ts[1].phase == Phase::start && ts[1].event_id == failed && ts[1].type == "Redeploy"));
}

BOOST_AUTO_TEST_CASE(cancel_ends_a_started_event_only) {
  cla::EventModel model({{"vm0"}}, 3);
  const auto scheduled = model.add(spec("Reboot", {"vm0"}, 900, -1, 10), t0);
  BOOST_TEST(model.cancel(scheduled));
  BOOST_TEST(model.take_transitions().empty());  // no impact began, none ends
  const auto started = model.add(spec("Reboot", {"vm0"}, 0, -1, 600), t0);
  model.advance(t0);
  BOOST_TEST(model.cancel(started));
  BOOST_TEST((phases(model.take_transitions()) == std::vector<Phase>{Phase::start, Phase::end}));
}

BOOST_AUTO_TEST_CASE(two_events_completing_together_end_in_order) {
  cla::EventModel model({{"vm0"}}, 4);
  const auto a = model.add(spec("Freeze", {"vm0"}, 1, 5, 5), t0);
  const auto b = model.add(spec("Freeze", {"vm0"}, 1, 5, 5), t0);
  model.advance(t0 + 1s);
  model.advance(t0 + 11s);
  const auto ts = model.take_transitions();
  BOOST_TEST_REQUIRE(ts.size() == 4u);
  BOOST_TEST((ts[2].event_id == a && ts[3].event_id == b && ts[2].phase == Phase::end));
  BOOST_TEST(model.events().empty());
}

BOOST_AUTO_TEST_CASE(transitions_carry_the_events_region) {
  cla::EventModel model({{"vm0", "east"}, {"vm0", "west"}}, 5);
  auto east = spec("Reboot", {"vm0"}, 0, -1, 10);
  east.region = "east";
  east.started = true;
  model.add(east, t0);
  const auto ts = model.take_transitions();
  BOOST_TEST_REQUIRE(ts.size() == 1u);
  BOOST_TEST(ts[0].region == "east");
}

BOOST_AUTO_TEST_CASE(environment_names_the_vm_and_the_event) {
  const cla::ImpactTransition t{Phase::end, "ID-1", "Preempt", "Platform", -1, {"vm0", "VM1"}, "east"};
  const auto env = cla::impact_hook_environment(t, "vm1");
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"IMDS_PHASE", "end"},          {"IMDS_VM", "vm1"},
      {"IMDS_REGION", "east"},        {"IMDS_EVENT_ID", "ID-1"},
      {"IMDS_EVENT_TYPE", "Preempt"}, {"IMDS_EVENT_SOURCE", "Platform"},
      {"IMDS_DURATION_S", "-1"}};
  BOOST_TEST((env == expected));
}

BOOST_AUTO_TEST_CASE(timeout_allows_the_duration_then_five_minutes) {
  cla::ImpactTransition t;
  t.duration_s = 20;
  BOOST_TEST(cla::impact_hook_timeout(t).count() == (20 + 300) * 1000);
  t.duration_s = -1;
  BOOST_TEST(cla::impact_hook_timeout(t).count() == 300 * 1000);
}

BOOST_AUTO_TEST_SUITE_END()
