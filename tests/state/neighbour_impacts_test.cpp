// NeighbourImpacts: which other VMs' nodes count as unavailable, from the document, the approvals and the
// status reads, each at its time (fake clock).
#include "state/neighbour_impacts.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using namespace std::chrono_literals;
using Time = cla::NeighbourImpacts::Time;
const Time t0{};

cla::ScheduledEvent event(const std::string& id, cla::EventStatus status, std::vector<std::string> vms) {
  cla::ScheduledEvent e;
  e.id = id;
  e.type = "Freeze";
  e.status = status;
  e.resources = std::move(vms);
  return e;
}

std::vector<std::string> vms(const cla::NeighbourImpacts& impacts) {
  std::vector<std::string> out;
  for (const auto& i : impacts.current()) out.push_back(i.vm + " " + i.event_id + " " + i.why);
  return out;
}

using Strings = std::vector<std::string>;
constexpr auto S = cla::EventStatus::scheduled;
constexpr auto Started = cla::EventStatus::started;

}  // namespace

BOOST_AUTO_TEST_SUITE(neighbour_impacts_test)

BOOST_AUTO_TEST_CASE(started_and_approved_events_impact_every_listed_vm_but_this_one) {
  cla::NeighbourImpacts impacts;
  impacts.observe_events(
      {event("e1", Started, {"vm1", "vm0"}), event("e2", S, {"vm2"}), event("e3", S, {"vm3"})}, {"E3"}, "VM0",
      t0);
  BOOST_TEST(vms(impacts) == (Strings{"vm1 e1 Started", "vm3 e3 approved"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_scheduled_event_nobody_approved_impacts_nothing) {
  cla::NeighbourImpacts impacts;
  impacts.observe_events({event("e1", S, {"vm1"})}, {}, "vm0", t0);
  BOOST_TEST(impacts.empty());
}

BOOST_AUTO_TEST_CASE(a_vm_stays_impacted_after_its_event_until_a_later_status_shows_it_up) {
  cla::NeighbourImpacts impacts;
  impacts.observe_events({event("e1", Started, {"vm1"})}, {}, "vm0", t0);
  // While the event is in the document, vm1's node showing UN (a frozen node looks up) releases nothing.
  impacts.observe_up({"vm1"}, t0 + 1s);
  BOOST_TEST(vms(impacts) == (Strings{"vm1 e1 Started"}), boost::test_tools::per_element());
  impacts.observe_events({}, {}, "vm0", t0 + 10s);
  BOOST_TEST(vms(impacts) == (Strings{"vm1 e1 event gone, node not seen UN since"}),
             boost::test_tools::per_element());
  // A status read that began before the removal proves nothing; one without vm1 UN neither.
  impacts.observe_up({"vm1"}, t0 + 9s);
  impacts.observe_up({"vm2"}, t0 + 11s);
  BOOST_TEST(!impacts.empty());
  // A later document without the event keeps the time it left.
  impacts.observe_events({}, {}, "vm0", t0 + 12s);
  impacts.observe_up({"VM1"}, t0 + 11s);
  BOOST_TEST(impacts.empty());
}

BOOST_AUTO_TEST_CASE(a_new_impact_while_gone_starts_over) {
  cla::NeighbourImpacts impacts;
  impacts.observe_events({event("e1", Started, {"vm1"})}, {}, "vm0", t0);
  impacts.observe_events({}, {}, "vm0", t0 + 10s);
  impacts.observe_events({event("e2", Started, {"vm1"})}, {}, "vm0", t0 + 20s);
  impacts.observe_up({"vm1"}, t0 + 21s);
  BOOST_TEST(vms(impacts) == (Strings{"vm1 e2 Started"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_records_are_needed_only_when_a_neighbour_can_be_impacted) {
  using Set = std::set<std::string>;
  struct Case {
    std::vector<cla::ScheduledEvent> events;
    bool possible;
    Set listed, started;  // listed_neighbours: every event's, the Started ones'
  };
  const Case cases[] = {
      {{}, false, {}, {}},
      {{event("e1", S, {"vm0"})}, false, {}, {}},              // this VM's own
      {{event("e1", S, {"vm0", "vm1"})}, false, {"VM1"}, {}},  // shared: not approvable before vm0 drains
      {{event("e1", Started, {"vm0", "vm1"})}, true, {"VM1"}, {"VM1"}},  // vm1 is out now
      {{event("e1", S, {"vm1"})}, true, {"VM1"}, {}},                    // another agent may approve it
      {{event("e1", Started, {"VM0"})}, false, {}, {}},                  // names compare case-insensitively
      {{event("e1", S, {"vm2"}), event("e2", Started, {"vm1", "Vm3"})},
       true,
       {"VM1", "VM2", "VM3"},
       {"VM1", "VM3"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST(cla::neighbours_possible(c.events, "vm0") == c.possible);
    BOOST_TEST(cla::listed_neighbours(c.events, "vm0", false) == c.listed, boost::test_tools::per_element());
    BOOST_TEST(cla::listed_neighbours(c.events, "vm0", true) == c.started, boost::test_tools::per_element());
  }
}

BOOST_AUTO_TEST_SUITE_END()
