// imds-emulator's event model with injected time: approvals, NotBefore, completion, cancel, incarnations.
#include "imds/emulator/emulator_events.hpp"

#include <boost/test/unit_test.hpp>
#include <regex>

namespace {

using namespace std::chrono_literals;

const cla::WallTime t0 = cla::WallTime{} + std::chrono::seconds(1700000000);

cla::EventSpec spec(std::vector<std::string> resources, std::int64_t notice = 60, std::int64_t duration = 5,
                    std::int64_t complete_after = 10) {
  cla::EventSpec s = cla::default_event_spec("Freeze", std::move(resources));
  s.not_before_in_s = notice;
  s.duration_s = duration;
  s.complete_after_s = complete_after;
  return s;
}

struct Fixture {
  cla::EventModel model{{{"vm0"}, {"vm1"}, {"vm2"}}, 42};
  std::int64_t inc(std::size_t vm = 0) const { return model.incarnation(vm); }
  const cla::EmulatedEvent& only() const {
    BOOST_TEST_REQUIRE(model.events().size() == 1u);
    return model.events()[0];
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(emulator_events_test)

BOOST_FIXTURE_TEST_CASE(new_event_is_scheduled_with_a_guid_and_raises_every_incarnation, Fixture) {
  BOOST_TEST(inc(0) == 1);
  const std::string id = model.add(spec({"vm0"}), t0);
  BOOST_TEST(
      std::regex_match(id, std::regex("[0-9A-F]{8}-[0-9A-F]{4}-4[0-9A-F]{3}-[89AB][0-9A-F]{3}-[0-9A-F]{12}")),
      id);
  BOOST_TEST((only().status == cla::EventStatus::scheduled));
  BOOST_TEST((only().not_before == t0 + 60s));
  for (std::size_t vm = 0; vm < 3; ++vm) BOOST_TEST(inc(vm) == 2);
  BOOST_TEST(model.add(spec({"vm1"}), t0) != id);
  BOOST_TEST(inc(2) == 3);
}

BOOST_FIXTURE_TEST_CASE(shared_event_under_all_starts_only_when_every_listed_vm_approved, Fixture) {
  cla::EventModel model{{{"vm0"}, {"vm1"}, {"vm2"}}, 42, cla::SharedApproval::all};
  const std::string id = model.add(spec({"vm0", "vm1"}), t0);
  auto status = [&] { return model.events().at(0).status; };
  BOOST_TEST(model.approve(0, id, t0 + 1s));
  BOOST_TEST((status() == cla::EventStatus::scheduled));
  BOOST_TEST(model.approve(0, id, t0 + 2s));  // again: accepted, changes nothing
  BOOST_TEST(model.approve(2, id, t0 + 2s));  // not listed: accepted, does not count
  BOOST_TEST((status() == cla::EventStatus::scheduled));
  BOOST_TEST(model.incarnation(0) == 2);
  BOOST_TEST(model.approve(1, cla::to_upper(id), t0 + 3s));
  BOOST_TEST((status() == cla::EventStatus::started));
  BOOST_TEST((*model.events().at(0).started_at == t0 + 3s));
  BOOST_TEST(model.incarnation(0) == 3);
  BOOST_TEST(model.approve(0, id, t0 + 4s));  // approving a started event is still fine
  BOOST_TEST(model.incarnation(0) == 3);
}

BOOST_FIXTURE_TEST_CASE(shared_event_under_any_starts_at_the_first_listed_approval, Fixture) {
  const std::string id = model.add(spec({"vm0", "vm1"}), t0);
  BOOST_TEST(model.approve(2, id, t0 + 1s));  // not listed: accepted, counts for nothing
  BOOST_TEST((only().status == cla::EventStatus::scheduled));
  BOOST_TEST(only().approved_by.empty());
  BOOST_TEST(inc() == 2);
  BOOST_TEST(model.approve(1, id, t0 + 2s));
  BOOST_TEST((only().status == cla::EventStatus::started));
  BOOST_TEST((*only().started_at == t0 + 2s));
  BOOST_TEST(only().approved_by == std::vector<std::string>{"vm1"});
  BOOST_TEST(inc(0) == 3);  // started for vm0 too, which never approved
}

BOOST_FIXTURE_TEST_CASE(approval_ids_are_case_insensitive_and_unknown_ids_fail, Fixture) {
  std::string id = model.add(spec({"vm0"}), t0);
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  BOOST_TEST(!model.approve(0, "00000000-0000-4000-8000-000000000000", t0));
  BOOST_TEST(model.approve(0, id, t0));
  BOOST_TEST((only().status == cla::EventStatus::started));
  BOOST_TEST(only().approved_by == std::vector<std::string>{"vm0"});
}

BOOST_AUTO_TEST_CASE(event_listing_a_vm_that_is_not_emulated_waits_for_not_before_under_all) {
  cla::EventModel model{{{"vm0"}, {"vm1"}}, 42, cla::SharedApproval::all};
  const std::string id = model.add(spec({"vm0", "other-tenant"}), t0);
  model.approve(0, id, t0 + 1s);
  model.advance(t0 + 59s);
  BOOST_TEST((model.events().at(0).status == cla::EventStatus::scheduled));
  model.advance(t0 + 60s);
  BOOST_TEST((model.events().at(0).status == cla::EventStatus::started));
}

BOOST_FIXTURE_TEST_CASE(not_before_passing_starts_the_event_at_not_before, Fixture) {
  model.add(spec({"vm0"}), t0);
  model.advance(t0 + 59s + 999ms);
  BOOST_TEST((only().status == cla::EventStatus::scheduled));
  BOOST_TEST(inc() == 2);
  model.advance(t0 + 60s + 300ms);
  BOOST_TEST((only().status == cla::EventStatus::started));
  BOOST_TEST((*only().started_at == t0 + 60s));
  BOOST_TEST(inc() == 3);
  model.advance(t0 + 61s);
  BOOST_TEST(inc() == 3);  // nothing changed, nothing counted
}

BOOST_FIXTURE_TEST_CASE(started_event_is_removed_after_duration_plus_completion_delay, Fixture) {
  const std::string id = model.add(spec({"vm0"}, 60, 5, 10), t0);
  model.approve(0, id, t0 + 10s);
  BOOST_TEST((only().removal_time() == t0 + 25s));
  model.advance(t0 + 24s);
  BOOST_TEST(model.events().size() == 1u);
  model.advance(t0 + 25s);
  BOOST_TEST(model.events().empty());
  BOOST_TEST(inc() == 4);  // added, started, removed
}

BOOST_FIXTURE_TEST_CASE(unknown_duration_counts_as_zero, Fixture) {
  model.add(spec({"vm0"}, 0, -1, 7), t0);
  model.advance(t0);
  BOOST_TEST((only().status == cla::EventStatus::started));
  model.advance(t0 + 6s);
  BOOST_TEST(model.events().size() == 1u);
  model.advance(t0 + 7s);
  BOOST_TEST(model.events().empty());
}

BOOST_FIXTURE_TEST_CASE(late_advance_plays_every_step_and_counts_each, Fixture) {
  model.add(spec({"vm0"}, 60, 5, 10), t0);
  model.advance(t0 + 1h);
  BOOST_TEST(model.events().empty());
  BOOST_TEST(inc() == 4);
}

BOOST_FIXTURE_TEST_CASE(hardware_failure_skips_the_scheduled_phase, Fixture) {
  cla::EventSpec s = cla::default_event_spec("Reboot", {"vm1"});
  s.started = true;
  s.complete_after_s = 30;
  model.add(s, t0);
  BOOST_TEST((only().status == cla::EventStatus::started));
  BOOST_TEST((*only().started_at == t0));
  BOOST_TEST(inc() == 2);
  model.advance(t0 + 29s);
  BOOST_TEST(model.events().size() == 1u);
  model.advance(t0 + 30s);
  BOOST_TEST(model.events().empty());
}

BOOST_FIXTURE_TEST_CASE(cancel_removes_the_event_and_counts, Fixture) {
  const std::string keep = model.add(spec({"vm0"}), t0);
  const std::string drop = model.add(spec({"vm1"}), t0);
  BOOST_TEST(!model.cancel("no-such-event"));
  BOOST_TEST(inc() == 3);
  BOOST_TEST(model.cancel(cla::to_upper(drop)));
  BOOST_TEST(inc() == 4);
  BOOST_TEST(model.find(drop) == nullptr);
  BOOST_TEST(only().id == keep);
  BOOST_TEST(!model.approve(1, drop, t0));
}

BOOST_AUTO_TEST_CASE(incarnations_are_kept_per_vm) {
  cla::EventModel model({{"a"}, {"b"}}, 1);
  model.add(spec({"a"}), t0);
  BOOST_TEST(model.incarnation(0) == 2);
  BOOST_TEST(model.incarnation(1) == 2);
  BOOST_CHECK_THROW(model.incarnation(2), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(a_vm_sees_approves_and_counts_only_the_events_of_its_region) {
  cla::EventModel model{{{"vm0", "east"}, {"vm0", "west"}, {"vm1", "west"}}, 42};
  cla::EventSpec east = spec({"vm0"});
  east.region = "east";
  const std::string id = model.add(east, t0);
  BOOST_TEST(model.incarnation(0) == 2);
  BOOST_TEST(model.incarnation(1) == 1);  // west's document did not change
  BOOST_TEST(model.incarnation(2) == 1);
  BOOST_TEST(model.find_for(0, id) == model.find(id));
  BOOST_TEST(model.find_for(1, id) == nullptr);
  BOOST_TEST(!model.approve(1, id, t0 + 1s));  // west's vm0 is not the vm0 the event lists
  BOOST_TEST(model.find(id)->approved_by.empty());
  BOOST_TEST((model.find(id)->status == cla::EventStatus::scheduled));
  BOOST_TEST(model.approve(0, id, t0 + 2s));
  BOOST_TEST((model.find(id)->status == cla::EventStatus::started));
  model.advance(t0 + 1h);
  BOOST_TEST(model.events().empty());
  BOOST_TEST(model.incarnation(0) == 4);  // added, started, removed
  BOOST_TEST(model.incarnation(1) == 1);
  const std::string nowhere = model.add(spec({"vm1"}), t0 + 1h);  // the default region: no VM here sees it
  BOOST_TEST(model.incarnation(2) == 1);
  BOOST_TEST(model.cancel(nowhere));
  BOOST_TEST(model.incarnation(0) == 4);
}

BOOST_AUTO_TEST_CASE(shared_approval_all_waits_for_the_listed_vms_of_the_events_region_only) {
  cla::EventModel model{{{"vm0", "east"}, {"vm1", "east"}, {"vm1", "west"}}, 42, cla::SharedApproval::all};
  cla::EventSpec east = spec({"vm0", "vm1"});
  east.region = "east";
  const std::string id = model.add(east, t0);
  BOOST_TEST(model.approve(0, id, t0 + 1s));
  BOOST_TEST(!model.approve(2, id, t0 + 2s));  // west's vm1: an unknown EventId there
  BOOST_TEST((model.find(id)->status == cla::EventStatus::scheduled));
  BOOST_TEST(model.approve(1, id, t0 + 3s));
  BOOST_TEST((model.find(id)->status == cla::EventStatus::started));
  BOOST_TEST((*model.find(id)->started_at == t0 + 3s));
}

BOOST_AUTO_TEST_CASE(defaults_follow_the_documented_notice_and_texts) {
  BOOST_TEST(cla::default_event_spec("Freeze", {"vm0"}).not_before_in_s == 900);
  BOOST_TEST(cla::default_event_spec("Freeze", {"vm0"}).duration_s == 5);
  BOOST_TEST(cla::default_event_spec("Reboot", {"vm0"}).not_before_in_s == 900);
  BOOST_TEST(cla::default_event_spec("Reboot", {"vm0"}).duration_s == -1);
  BOOST_TEST(cla::default_event_spec("Redeploy", {"vm0"}).not_before_in_s == 600);
  BOOST_TEST(cla::default_event_spec("Terminate", {"vm0"}).not_before_in_s == 300);
  BOOST_TEST(cla::default_event_spec("Preempt", {"vm0"}).not_before_in_s == 30);
  BOOST_TEST(cla::default_event_spec("Preempt", {"vm0"}).description.empty());
  BOOST_TEST(cla::default_event_spec("Reboot", {"vm0"}, "User").description ==
             "Virtual machine is going to be restarted as requested by authorized user.");
  BOOST_TEST(cla::default_event_spec("Reboot", {"vm0"}).complete_after_s == 10);
  BOOST_TEST(cla::default_event_spec("Reboot", {"vm0"}).source == "Platform");
}

BOOST_AUTO_TEST_CASE(shared_approval_all_waits_for_every_spelling_of_a_listed_vm) {
  cla::EventModel model{{{"vm0"}, {"vm1"}}, 1, cla::SharedApproval::all};
  const std::string id = model.add(cla::default_event_spec("Freeze", {"vm0", "VM0", "vm1"}), t0);
  model.approve(0, id, t0 + 1s);
  model.approve(0, id, t0 + 2s);  // twice by the same VM counts once
  BOOST_TEST((model.find(id)->status == cla::EventStatus::scheduled));
  model.approve(1, id, t0 + 3s);
  BOOST_TEST((model.find(id)->status == cla::EventStatus::started));
}

BOOST_AUTO_TEST_SUITE_END()
