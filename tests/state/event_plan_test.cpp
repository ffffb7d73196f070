// SPEC 3.2's table as data: which plan each kind of event gets, and which need a flush.
#include "state/event_plan.hpp"

#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"

using namespace cla;
using namespace cla::test;

BOOST_AUTO_TEST_SUITE(event_plan_test)

BOOST_AUTO_TEST_CASE(plan_table) {
  struct Row {
    const char* name;
    EventSpec spec;
    std::int64_t freeze_max;
    EventPlan expected;
  };
  const Row rows[] = {
      {"user reboot", {.type = "Reboot", .source = EventSource::user}, 9, EventPlan::user_drain},
      {"user redeploy", {.type = "Redeploy", .source = EventSource::user}, 9, EventPlan::user_drain},
      {"freeze 5 s", {.type = "Freeze", .duration_s = 5}, 9, EventPlan::no_impact},
      {"freeze 0 s", {.type = "Freeze", .duration_s = 0}, 9, EventPlan::no_impact},
      {"freeze at the limit", {.type = "Freeze", .duration_s = 9}, 9, EventPlan::platform_drain},
      {"freeze of unknown length", {.type = "Freeze", .duration_s = -1}, 9, EventPlan::platform_drain},
      {"freeze with max 0", {.type = "Freeze", .duration_s = 0}, 0, EventPlan::platform_drain},
      {"platform reboot", {.type = "Reboot"}, 9, EventPlan::platform_drain},
      {"preempt", {.type = "Preempt"}, 9, EventPlan::platform_drain},
      {"terminate", {.type = "Terminate"}, 9, EventPlan::platform_drain},
      {"unknown type", {.type = "Hibernate", .duration_s = 1}, 9, EventPlan::platform_drain},
      {"other vm", {.resources = {"vm1", "vm2"}}, 9, EventPlan::other_vm},
      {"name differs in case", {.resources = {"VM0"}}, 9, EventPlan::platform_drain},
      {"name is a prefix only", {.resources = {"vm00"}}, 9, EventPlan::other_vm},
  };
  for (const Row& row : rows) {
    CorePolicy p = test_policy();
    p.no_impact_freeze_max_s = row.freeze_max;
    BOOST_TEST_CONTEXT(row.name) {
      BOOST_TEST(to_string(plan_for(make_event(row.spec), p)) == to_string(row.expected));
    }
  }
}

BOOST_AUTO_TEST_CASE(flush_only_before_restarts_and_only_when_configured) {
  CorePolicy p = test_policy();
  for (const char* t : {"Reboot", "Redeploy", "Preempt", "Terminate"}) BOOST_TEST(needs_flush(t, p), t);
  for (const char* t : {"Freeze", "Hibernate", ""}) BOOST_TEST(!needs_flush(t, p), t);
  p.flush_before_restart = false;
  BOOST_TEST(!needs_flush("Reboot", p));
}

BOOST_AUTO_TEST_CASE(shared_means_naming_another_vm) {
  BOOST_TEST(!is_shared(make_event({.resources = {"vm0"}}), "vm0"));
  BOOST_TEST(!is_shared(make_event({.resources = {"VM0"}}), "vm0"));
  BOOST_TEST(is_shared(make_event({.resources = {"vm0", "vm1"}}), "vm0"));
}

BOOST_AUTO_TEST_SUITE_END()
