// kill -9 of the agent in the middle of a real drain, then its restart: it adopts what the node shows,
// finishes the drain, approves only after it, and restores once the event is gone.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "cassandra_support.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"
#include "state/state_codec.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;

}  // namespace

BOOST_AUTO_TEST_SUITE(real_crash_test)

BOOST_FIXTURE_TEST_CASE(killed_mid_drain_and_restarted, RealCase) {
  touched = {3};
  auto emulator = start_emulator();
  constexpr int notice_s = 600, lead_s = 595, duration_s = 5, complete_after_s = 3;
  RealAgent agent(*emulator, 3, {{"drain_lead_s", lead_s}});
  agent.start();
  const std::string id = add_freeze(*emulator, "vm3", notice_s, duration_s, complete_after_s);
  agent.wait_for("drain_started", 300s, id);
  // The intent reaches the disk right after drain_started is logged and just before disablebinary is spawned
  // (a JVM, hundreds of ms): kill once the state file holds it, while that command runs.
  BOOST_TEST_REQUIRE(cla::test::wait_until(
      [&] {
        const auto state = cla::decode_state(cla::test::read_text(agent.state_file().string()));
        return state.ok() && state.value().node.out_of_service;
      },
      cla::test::kMargin));
  agent.kill();
  BOOST_TEST(emulator->approvals().empty());

  agent.start();
  // It adopted what it left: the state file says the node may be disabled, for this event (persisted before
  // the first mutating command); a first start would have touched nothing.
  const auto loaded =
      agent.wait_for("state_loaded", std::chrono::ceil<std::chrono::seconds>(cla::test::kMargin));
  BOOST_TEST(loaded.at("node_out_of_service").as_bool());
  BOOST_TEST(loaded.at("events").to_number<int>() == 1);
  BOOST_TEST(agent.log("first_start").size() == 1u, "the first run's only");
  const auto drained = agent.wait_for("drain_completed", 300s, id);
  const auto approved = agent.wait_for("event_approved", 60s, id);
  BOOST_TEST(cla::test::ms_between(cla::test::log_time(drained), cla::test::log_time(approved)) >= 0);
  const auto approvals = emulator->approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u);
  BOOST_TEST(cla::test::ms_between(cla::test::log_time(drained), cla::test::emulator_time(approvals[0])) >=
             0);

  agent.wait_for("restore_completed", std::chrono::seconds(duration_s + complete_after_s) + 240s);
  BOOST_TEST(serving(agent.address()));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s));
  agent.report_timings("kill -9 mid-drain, restarted");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
