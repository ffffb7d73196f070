// SPEC 3.9 on real Cassandra: the gate's `nodetool status` answers only after ten minutes (a wrapper that
// sleeps before it, as a loaded or wedged JVM does, and forks to do so). The forced drain does not wait for
// it: at NotBefore - unsafe_drain_lead_s the check is killed, its whole process group with it, and
// disablebinary is issued within 1 s; the drain is never approved, and the node is restored after the Freeze.
#include <sys/stat.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

using namespace std::chrono_literals;
using namespace cla::test::real;

namespace {

// How long the wrapper holds `status`: far beyond the whole case, so only pre-emption ends it in time.
constexpr int kStatusDelayS = 600;
// SPEC 4: a forced drain issues disablebinary within 1 s of its instant, whatever read is in flight.
constexpr long long kPreemptBoundMs = 1000;

std::string slow_status_wrapper(const cla::test::TempDir& dir) {
  const std::string path = dir.file("slow-status.sh");
  cla::test::write_text(path,
                        "#!/bin/sh\n"
                        "# `nodetool ... status` answers after " +
                            std::to_string(kStatusDelayS) +
                            " s; every other subcommand at once. Not exec'd: the sleep is a child.\n"
                            "for arg; do last=$arg; done\n"
                            "if [ \"$last\" = status ]; then sleep " +
                            std::to_string(kStatusDelayS) + "; fi\nexec \"$@\"\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(real_preempt_test)

BOOST_FIXTURE_TEST_CASE(a_forced_drain_does_not_wait_for_a_slow_gate_check, RealCase) {
  touched = {3};
  cla::test::TempDir dir;
  auto emulator = start_emulator();
  constexpr int notice_s = 60, unsafe_lead_s = 10, duration_s = 5, complete_after_s = 3;
  static_assert(notice_s - unsafe_lead_s < kStatusDelayS, "the check must still hang at the forced instant");
  RealAgent agent(*emulator, 3, {{"drain_lead_s", 30}, {"unsafe_drain_lead_s", unsafe_lead_s}}, {},
                  {slow_status_wrapper(dir)});
  agent.start();
  const std::string id = add_freeze(*emulator, "vm3", notice_s, duration_s, complete_after_s);

  const auto forced =
      agent.wait_for("drain_forced_unsafe", std::chrono::seconds(notice_s) + kNodetoolCall, id);
  const auto instant = cla::test::not_before_of(forced) - std::chrono::seconds(unsafe_lead_s);
  const auto late_ms = cla::test::ms_between(instant, cla::test::log_time(forced));
  BOOST_TEST_MESSAGE("drain_forced_unsafe " << late_ms
                                            << " ms after its instant: " << boost::json::serialize(forced));
  BOOST_TEST(late_ms >= 0);
  BOOST_TEST(late_ms <= kPreemptBoundMs);
  const auto abandoned = agent.wait_for("reads_abandoned", 0s, id);
  BOOST_TEST(abandoned.at("for").as_string() == "forced_drain");
  BOOST_TEST(agent.wait_for("reads_killed", 0s).at("processes").as_int64() >= 1);
  const auto step = agent.wait_for("drain_step_done", kNodetoolCall);
  BOOST_TEST(step.at("step").as_string() == "disablebinary");
  BOOST_TEST(
      step.at("overhead_first_exec_ms").as_double() <= kPreemptBoundMs,
      "disablebinary exec'd " << step.at("overhead_first_exec_ms").as_double() << " ms after the decision");
  BOOST_TEST(cla::test::ms_between(instant, cla::test::log_time(step)) >= 0);

  agent.wait_for("drain_completed", kFreezeDrain, id);
  BOOST_TEST(emulator->approvals().empty(), "no verdict came: never approved");
  agent.wait_for("restore_completed", std::chrono::seconds(duration_s + complete_after_s) + kRestore + 60s);
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s));
  agent.report_timings("forced drain beside a slow check");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
