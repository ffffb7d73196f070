// SPEC 3.3 restore of a flushed node on real Cassandra's terms: a node the impact (or an operator) already
// restarted is not restarted again, and a node still starting after a restart is waited for, not restarted.
#include <boost/test/unit_test.hpp>

#include "core_harness.hpp"
#include "state/core.hpp"

using namespace cla;
using namespace cla::test;

namespace {

const StepOutcome kOk{true, false, ""};
const StepOutcome kNotServing{false, false, "statusgossip: not running, statusbinary: not running"};
const StepOutcome kJmxRefused{false, false,
                              "exit 1: nodetool: Failed to connect to '127.0.0.1:8100' - ConnectException: "
                              "'Connection refused'."};
const StepOutcome kStarting{false, true,
                            "exit 1: Unable to start gossip because the node is not in the normal state."};

CorePolicy restartable() {
  CorePolicy p = test_policy();
  p.has_restart_command = true;
  return p;
}

// A Reboot drained (disable*, flush) and approved; the caller then removes it from the document.
Driver drained_for_reboot(Core& core) {
  Driver d{core};
  d.feed(doc(2, {{.type = "Reboot"}}));
  d.at(T0 + 15min - 30s);
  BOOST_TEST_REQUIRE(core.state().node.flushed);
  d.now = T0 + 16min;
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(core_restore_test)

BOOST_AUTO_TEST_CASE(a_flushed_node_already_serving_is_not_restarted_again) {
  Core core = started_core(restartable());
  Driver d = drained_for_reboot(core);
  d.step = [](Step) { return kOk; };  // the hook (or an operator) started Cassandra: both services run
  Actions a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a) == std::vector{Step::check_serving}));
  const LogAction* done = find_log(a, "restore_completed");
  BOOST_TEST_REQUIRE(done);
  BOOST_TEST(done->fields.at("already_serving").as_bool());
  BOOST_TEST(!done->fields.at("restarted").as_bool());
  BOOST_TEST(done->fields.at("out_s").as_int64() == 90);  // drained at NotBefore - 30 s, back at +1 min
  BOOST_TEST(!core.state().node.out_of_service);
  BOOST_TEST((phases(a) == std::vector{MaintenancePhase::ended}));
}

BOOST_AUTO_TEST_CASE(a_flushed_node_not_serving_is_restarted_then_enabled_and_confirmed) {
  Core core = started_core(restartable());
  Driver d = drained_for_reboot(core);
  d.step = [](Step s) { return s == Step::check_serving ? kNotServing : kOk; };
  Actions a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a) == std::vector{Step::check_serving, Step::restart_cassandra, Step::enable_gossip,
                                      Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(logged(a, "restart_needed"));
  BOOST_TEST(!logged(a, "restore_failed"), "not serving before the restart is expected, not an error");
  const LogAction* done = find_log(a, "restore_completed");
  BOOST_TEST_REQUIRE(done);
  BOOST_TEST(done->fields.at("restarted").as_bool());
  BOOST_TEST(!done->fields.at("already_serving").as_bool());
}

BOOST_AUTO_TEST_CASE(cassandra_down_counts_as_not_serving) {
  Core core = started_core(restartable());
  Driver d = drained_for_reboot(core);
  d.step = [](Step s) { return s == Step::check_serving ? kJmxRefused : kOk; };
  Actions a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a).size() == 5u && steps(a)[1] == Step::restart_cassandra));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_CASE(a_node_still_starting_after_the_restart_is_waited_for_not_restarted) {
  Core core = started_core(restartable());
  Driver d = drained_for_reboot(core);
  int refusals = 1;
  d.step = [&](Step s) {
    if (s == Step::check_serving) return kNotServing;
    if (s == Step::enable_gossip && refusals-- > 0) return kStarting;
    return kOk;
  };
  Actions a = d.feed(doc(3, {}));
  BOOST_TEST((steps(a) == std::vector{Step::check_serving, Step::restart_cassandra, Step::enable_gossip}));
  BOOST_TEST(logged(a, "node_still_starting"));
  BOOST_TEST(!core.state().node.flushed, "a refusal after our restart does not mean drained");
  BOOST_REQUIRE(core.next_wakeup(d.now).has_value());
  BOOST_TEST((*core.next_wakeup(d.now) == d.now + restartable().starting_node_retry));

  a = d.at(d.now + restartable().starting_node_retry);
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_CASE(after_a_vm_reboot_a_starting_node_is_waited_for) {
  Core core = started_core(restartable());
  Driver d = drained_for_reboot(core);
  Core after = started_while_cassandra_starts(restartable(), d.persisted.back());
  Driver d2{after, T0 + 16min};
  int refusals = 2;
  d2.step = [&](Step s) { return s == Step::enable_gossip && refusals-- > 0 ? kStarting : kOk; };
  Actions a = d2.feed(doc(5, {}));
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip}), "no check, no restart: the VM rebooted");
  BOOST_TEST(logged(a, "node_still_starting"));
  a = d2.at(d2.now + 5s);
  a = d2.at(d2.now + 5s);
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(logged(a, "restore_completed"));
}

BOOST_AUTO_TEST_CASE(jmx_refused_on_enable_after_a_reboot_is_a_retried_restore_failure) {
  // The shell retries a refused JMX connection within the step's window; if Cassandra is still not up
  // then, the restore fails and is retried every restore_retry, never given up.
  Core core = started_core();
  Driver d = drained_for_reboot(core);
  Core after = started_while_cassandra_starts(test_policy(), d.persisted.back());
  Driver d2{after, T0 + 16min};
  bool up = false;
  d2.step = [&](Step s) { return s == Step::enable_gossip && !up ? kJmxRefused : kOk; };
  Actions a = d2.feed(doc(5, {}));
  const auto runs = all_of<RunStep>(a);
  BOOST_TEST_REQUIRE(runs.size() == 1u);
  BOOST_TEST((runs[0].deadline == d2.now + test_policy().restore_step_window));
  BOOST_TEST(logged(a, "restore_failed"));
  up = true;
  a = d2.at(d2.now + test_policy().restore_retry);
  BOOST_TEST((steps(a) == std::vector{Step::enable_gossip, Step::enable_binary, Step::confirm_restored}));
  BOOST_TEST(!after.state().node.out_of_service);
}

BOOST_AUTO_TEST_SUITE_END()
