// The replication-safety gate across racks on real Cassandra: while rack2's node is out of service, the
// agent on rack3 with an event due logs unsafe_to_drain and waits; once rack2 is back it drains and approves.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

using namespace std::chrono_literals;
using namespace cla::test::real;

BOOST_AUTO_TEST_SUITE(real_gate_test)

BOOST_FIXTURE_TEST_CASE(rack2_out_blocks_rack3_until_it_is_back, RealCase) {
  touched = {2, 3};
  const std::string rack2 = node_address(2), rack3 = node_address(3);
  take_out(rack2, rack3);

  auto emulator = start_emulator();
  // Due at once; the forced drain comes only at NotBefore - 5 s, long after rack2 is back.
  constexpr int notice_s = 600, lead_s = 595, duration_s = 5, complete_after_s = 3;
  RealAgent agent(*emulator, 3, {{"drain_lead_s", lead_s}, {"unsafe_drain_lead_s", 5}});
  agent.start();
  const std::string id = add_freeze(*emulator, "vm3", notice_s, duration_s, complete_after_s);
  const auto unsafe = agent.wait_for("unsafe_to_drain", 180s, id);
  BOOST_TEST_MESSAGE("unsafe_to_drain: " << boost::json::serialize(unsafe));
  BOOST_TEST(boost::json::serialize(unsafe).find("rack2") != std::string::npos);
  BOOST_TEST(!agent.find("drain_started", id));
  BOOST_TEST(emulator->approvals().empty());

  require_ok(nodetool(rack2, "enablegossip"));
  require_ok(nodetool(rack2, "enablebinary"));
  const auto back = cla::WallClock::now();
  agent.wait_for("drain_completed", 300s, id);
  const auto approved = agent.wait_for("event_approved", 60s, id);
  BOOST_TEST_MESSAGE("rack3 approved " << cla::test::ms_between(back, cla::test::log_time(approved))
                                       << " ms after rack2 was enabled again");
  BOOST_TEST(agent.log("drain_forced_unsafe").empty());
  BOOST_TEST(agent.log("unsafe_to_drain", id).size() == 1u, "logged once, re-checked at every poll");

  agent.wait_for("restore_completed", std::chrono::seconds(duration_s + complete_after_s) + 240s);
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s));
  agent.report_timings("gate across racks");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
