// Fault matrix: nodetool misbehaving under the real agent. Hanging past command_timeout_s, printing garbage,
// exiting 0 with an error text, killed by a signal, JMX refusing after a reboot: each gets a clear log line,
// the drain is never approved before it really happened, and the node is back once the event is gone.
#include <sys/stat.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "cassandra/nodetool/nodetool_runner.hpp"
#include "cassandra_support.hpp"
#include "tests/support/proc_state.hpp"

namespace {

using namespace cla::test::agent_tests;
using cla::test::process_running;

const char* const kRefused =
    "nodetool: Failed to connect to '127.0.0.1:7199' - ConnectException: 'Connection refused'.\n";

// What the agent's retries of a failed nodetool step sleep, by NodetoolRunner's default backoff: before
// retries 1..n.
std::chrono::milliseconds retries_sleep(int n) {
  std::chrono::milliseconds total{0};
  for (int i = 1; i <= n; ++i) total += cla::retry_delay(i, cla::Backoff{});
  return total;
}

// A platform Freeze due at once (NotBefore within drain_lead_s), with room for the step's retries before it.
std::string add_freeze(AgentScenario& s) {
  return s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 20}, {"duration_s", 30}});
}

void configure(AgentScenario& s, int command_timeout_s = 10) {
  s.write_config(
      {{"policy", {{"drain_lead_s", 60}}}, {"cassandra", {{"command_timeout_s", command_timeout_s}}}});
}

// The failed attempt of `subcommand` the agent logged, its detail checked for `expected`.
void expect_failed_attempt(const AgentScenario& s, const std::string& subcommand, const std::string& expected,
                           std::chrono::milliseconds limit) {
  BOOST_REQUIRE(cla::test::wait_until(
      [&] {
        for (const auto& line : s.log("nodetool_attempt_failed"))
          if (line.at("subcommand").as_string() == subcommand) return true;
        return false;
      },
      limit));
  for (const auto& line : s.log("nodetool_attempt_failed"))
    if (line.at("subcommand").as_string() == subcommand) {
      BOOST_TEST(line.at("level").as_string() == "warning");
      const std::string detail(line.at("detail").as_string());
      BOOST_TEST(detail.find(expected) != std::string::npos, detail);
      return;
    }
}

// The drain went through after the fault: approved only after it, then restored once the event is gone.
void expect_drained_approved_restored(AgentScenario& s, const std::string& id,
                                      std::chrono::milliseconds limit) {
  const auto drained = s.wait_for("drain_completed", limit, id);
  const auto approved = s.wait_for("event_approved", s.within_a_poll(), id);
  BOOST_TEST(cla::test::ms_between(cla::test::log_time(drained), cla::test::log_time(approved)) >= 0);
  BOOST_TEST(!s.running("statusbinary"));
  BOOST_TEST(!s.running("statusgossip"));
  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_nodetool_test)

BOOST_AUTO_TEST_CASE(hanging_nodetool_is_killed_at_the_timeout_and_retried) {
  const auto timeout = 1s;
  AgentScenario s;
  configure(s, static_cast<int>(timeout.count()));
  s.add_sim_fault(cla::test::kAgentNode, "disablegossip", {{"latency_ms", 30000}, {"times", 1}});
  s.start_agent();
  const std::string id = add_freeze(s);
  expect_failed_attempt(s, "disablegossip", "timed out after", timeout + s.within_a_poll());
  expect_drained_approved_restored(s, id, retries_sleep(1) + kMargin);
}

// SPEC 3.9: nodetool behind a wrapper that forks (as `sudo -u cassandra nodetool` or a script without exec
// does), whose child ignores SIGTERM and hangs in the first disablegossip: the timeout kills the whole
// process group, nothing outlives it by more than 1 s (SPEC 4), the failure says timeout: true, and the retry
// drains.
BOOST_AUTO_TEST_CASE(a_forking_wrapper_that_hangs_leaves_nothing_after_its_timeout) {
  const auto timeout = 1s;
  constexpr auto outlives_at_most = 1s;  // SPEC 4
  AgentScenario s;
  const std::string wrapper = (s.dir() / "nodetool-wrapper.sh").string();
  const std::string pid_file = (s.dir() / "hung.pid").string(), mark = (s.dir() / "hung.once").string();
  cla::test::write_text(wrapper,
                        "#!/bin/sh\n"
                        "for arg; do last=$arg; done\n"
                        "if [ \"$last\" = disablegossip ] && [ ! -e " +
                            mark + " ]; then\n  touch " + mark + "\n  sh -c 'trap \"\" TERM; echo $$ > " +
                            pid_file + "; exec sleep 60' &\n  wait\nfi\nexec \"$@\"\n");
  ::chmod(wrapper.c_str(), 0755);
  std::vector<std::string> nodetool{wrapper};
  for (auto& part : cla::test::sim_prefix(s.cluster_file(), cla::test::kAgentNode)) nodetool.push_back(part);
  s.write_config(
      {{"policy", {{"drain_lead_s", 60}}},
       {"cassandra", {{"command_timeout_s", timeout.count()}, {"nodetool", argv_json(nodetool)}}}});
  s.start_agent();
  const std::string id = add_freeze(s);
  expect_failed_attempt(s, "disablegossip", "its process group killed", timeout + s.within_a_poll());
  for (const auto& line : s.log("nodetool_attempt_failed"))
    if (line.at("subcommand").as_string() == "disablegossip") BOOST_TEST(line.at("timeout").as_bool());
  const int hung = std::stoi(cla::test::read_text(pid_file));
  BOOST_TEST(cla::test::wait_until([&] { return !process_running(hung); }, outlives_at_most),
             "the wrapper's child outlived the timeout");
  expect_drained_approved_restored(s, id, retries_sleep(1) + kMargin);
}

BOOST_AUTO_TEST_CASE(garbage_from_nodetool_status_fails_closed_until_it_reads_again) {
  AgentScenario s;
  configure(s);
  s.add_sim_fault(cla::test::kAgentNode, "status",
                  {{"exit_code", 0}, {"stdout", "\x01\x02garbage\nUN ?? what\n"}, {"times", 2}});
  s.start_agent();
  const std::string id = add_freeze(s);
  const auto unsafe = s.wait_for("unsafe_to_drain", s.within_a_poll(), id);
  const std::string reason(unsafe.at("reason").as_string());
  BOOST_TEST(reason.find("cannot read nodetool status (fail closed)") != std::string::npos, reason);
  expect_drained_approved_restored(s, id, s.within_a_poll() * 2);  // the next polls ask the gate again
}

BOOST_AUTO_TEST_CASE(exit_0_with_an_error_text_is_a_failed_step) {
  AgentScenario s;
  configure(s);
  s.add_sim_fault(
      cla::test::kAgentNode, "disablebinary",
      {{"exit_code", 0}, {"stderr", "error: JMX connection closed\n-- StackTrace --\n"}, {"times", 1}});
  s.start_agent();
  const std::string id = add_freeze(s);
  expect_failed_attempt(s, "disablebinary", "exit 0 but printed: error: JMX connection closed",
                        s.within_a_poll());
  expect_drained_approved_restored(s, id, retries_sleep(1) + kMargin);
  const auto mutations = s.agent_mutations();
  BOOST_TEST(std::count(mutations.begin(), mutations.end(), "disablebinary") == 2);
}

BOOST_AUTO_TEST_CASE(nodetool_killed_by_a_signal_is_retried) {
  AgentScenario s;
  configure(s);
  s.add_sim_fault(cla::test::kAgentNode, "disablegossip", {{"signal", 9}, {"times", 1}});
  s.start_agent();
  const std::string id = add_freeze(s);
  expect_failed_attempt(s, "disablegossip", "killed by signal 9", s.within_a_poll());
  expect_drained_approved_restored(s, id, retries_sleep(1) + kMargin);
}

// The VM rebooted; Cassandra's JMX refuses the first calls while it starts. The agent restarted with the boot
// retries enablegossip/enablebinary until JMX answers, and says why.
BOOST_AUTO_TEST_CASE(jmx_refusing_after_a_reboot_delays_the_restore_but_does_not_stop_it) {
  const int refusals = 3;
  constexpr std::int64_t complete_after_s = 1;
  AgentScenario s;
  configure(s);
  s.start_agent();
  const std::string id = s.emulator().add_event({{"type", "Reboot"},
                                                 {"resources", {"vm0"}},
                                                 {"not_before_in_s", 20},
                                                 {"complete_after_s", complete_after_s}});
  s.wait_for("event_approved", s.within_a_poll() * 2, id);
  s.kill_agent();
  s.set_boot_id("boot-2");
  BOOST_REQUIRE(s.sim("restart").ok());
  // JMX refuses every call while Cassandra starts: the start-up's observation too, so the agent cannot tell
  // what the node serves and the restore enables both.
  for (const char* call : {"statusgossip", "statusbinary"})
    s.add_sim_fault(cla::test::kAgentNode, call, {{"exit_code", 1}, {"stderr", kRefused}, {"times", 1}});
  s.add_sim_fault(cla::test::kAgentNode, "enablegossip",
                  {{"exit_code", 1}, {"stderr", kRefused}, {"times", refusals}});
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return s.emulator().events().empty(); },
                            std::chrono::seconds(complete_after_s) + kMargin));  // after the approval

  s.start_agent();
  s.wait_for("reboot_detected", kMargin);
  const auto completed = s.wait_for("restore_completed", retries_sleep(refusals) + s.within_a_poll());
  BOOST_TEST(completed.at("restarted").as_bool() == false, "a rebooted VM needs no restart_command");
  const auto attempts = s.log("nodetool_attempt_failed");
  BOOST_TEST(attempts.size() == static_cast<std::size_t>(refusals));
  for (const auto& line : attempts) BOOST_TEST(line.at("jmx_unreachable").as_bool());
  BOOST_TEST(s.node_restored());
}

BOOST_AUTO_TEST_SUITE_END()
