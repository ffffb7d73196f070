// A Freeze on real Cassandra: the agent drains (disablebinary, disablegossip), peers see the node DN, the
// approval starts the event, the hook freezes the JVM for the duration, the agent restores once the event is
// gone, and the node is UN in every view again.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;

}  // namespace

BOOST_AUTO_TEST_SUITE(real_freeze_test)

BOOST_FIXTURE_TEST_CASE(freeze_lifecycle, RealCase) {
  touched = {1};
  auto emulator = start_emulator();
  // Drain lead 5 s short of the notice: the drain begins a few seconds after the event appears.
  constexpr int notice_s = 120, lead_s = 115, duration_s = 20, complete_after_s = 5;
  RealAgent agent(*emulator, 1, {{"drain_lead_s", lead_s}});
  agent.start();
  JvmWatcher jvm(1);
  const std::string id = add_freeze(*emulator, "vm1", notice_s, duration_s, complete_after_s);

  // Gate (status, info) and two steps: a handful of nodetool JVMs, seconds each.
  agent.wait_for("drain_started", std::chrono::seconds(notice_s - lead_s) + 120s, id);
  boost::json::object gossip_off;
  BOOST_TEST_REQUIRE(cla::test::wait_until(
      [&] {
        for (const auto& line : agent.log("nodetool_ran"))
          if (line.at("subcommand") == "disablegossip") return (gossip_off = line), true;
        return false;
      },
      180s));
  // Peers learn it at once (disablegossip announces the shutdown); one status call bounds what we can see.
  const auto off_at = cla::test::log_time(gossip_off);
  std::string peer_view;
  BOOST_TEST(cla::test::wait_until(
                 [&] { return (peer_view = seen_as(node_address(2), agent.address())) == "DN"; }, 120s),
             "peer view of the drained node: " << peer_view);
  const auto dn_seen = cla::WallClock::now();
  BOOST_TEST_MESSAGE("peer " << node_address(2) << " showed " << agent.address() << " DN at most "
                             << cla::test::ms_between(off_at, dn_seen) << " ms after disablegossip returned");

  const auto drained = agent.wait_for("drain_completed", 120s, id);
  const auto approved = agent.wait_for("event_approved", 60s, id);
  BOOST_TEST(cla::test::ms_between(cla::test::log_time(drained), cla::test::log_time(approved)) >= 0);
  const auto approvals = emulator->approvals();
  BOOST_TEST_REQUIRE(approvals.size() == 1u);
  BOOST_TEST(approvals[0].at("vm") == "vm1");
  // Started at approval: the hook freezes the JVM for the duration (seen in /proc, not taken on trust).
  require_impact(jvm, "frozen", cla::test::emulator_time(approvals[0]), cla::test::kMargin,
                 std::chrono::seconds(duration_s) - 500ms);

  // Removed duration + completion after the start.
  const auto restored =
      agent.wait_for("restore_completed", std::chrono::seconds(duration_s + complete_after_s) + 240s);
  BOOST_TEST(!restored.at("restarted").as_bool());
  BOOST_TEST(agent.log("restore_failed").empty());
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s), "node UN in every view again");
  BOOST_TEST(agent.log("impact_without_drain").empty());
  agent.report_timings("freeze lifecycle");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
