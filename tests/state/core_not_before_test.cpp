// The decision core when a pending event's NotBefore moves (Azure reschedules, or the VM's wall clock is
// stepped): the drain's due time follows the new value, and the move is logged.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

BOOST_AUTO_TEST_SUITE(core_not_before_test)

BOOST_AUTO_TEST_CASE(the_drain_follows_a_moved_not_before_either_way) {
  Core core = started_core();
  Driver d{core};
  const auto drain_lead = test_policy().drain_lead;
  Actions a = d.feed(doc(2, {{.type = "Freeze", .not_before_in = 15min, .duration_s = 30}}));
  BOOST_TEST(!logged(a, "not_before_changed"));
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 15min - drain_lead));

  a = d.feed(doc(3, {{.type = "Freeze", .not_before_in = 60min, .duration_s = 30}}));
  BOOST_TEST(logged(a, "not_before_changed"));
  BOOST_TEST((*core.next_wakeup(d.now) == T0 + 60min - drain_lead));
  a = d.at(T0 + 15min - drain_lead);
  BOOST_TEST(steps(a).empty(), "drained at the old NotBefore's lead");

  a = d.feed(doc(4, {{.type = "Freeze", .not_before_in = 60min, .duration_s = 30}}));
  BOOST_TEST(!logged(a, "not_before_changed"), "logged once per move");

  a = d.feed(doc(5, {{.type = "Freeze", .not_before_in = 14min + 45s, .duration_s = 30}}));
  BOOST_TEST(logged(a, "not_before_changed"));
  BOOST_TEST(logged(a, "drain_started"), "the new NotBefore's lead is past: at once");
}

BOOST_AUTO_TEST_SUITE_END()
