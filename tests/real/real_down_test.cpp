// Cassandra down when the agent starts: the agent runs anyway, its gate fails closed (nodetool status fails:
// unsafe_to_drain) and it neither drains nor approves; once the node is up again it drains, approves and
// restores as usual.
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;

}  // namespace

BOOST_AUTO_TEST_SUITE(real_down_test)

BOOST_FIXTURE_TEST_CASE(cassandra_down_at_agent_start, RealCase) {
  touched = {1};
  BOOST_TEST_REQUIRE(cluster({"kill", node_address(1)}).ok());
  auto emulator = start_emulator();
  // The node's start can take minutes on a loaded machine: the forced drain must come after that.
  constexpr int notice_s = 900, lead_s = 895, duration_s = 5, complete_after_s = 3;
  RealAgent agent(*emulator, 1, {{"drain_lead_s", lead_s}, {"unsafe_drain_lead_s", 5}});
  agent.start();
  const auto first = agent.wait_for("first_start", 10s);
  BOOST_TEST(first.at("gossip_running").is_null(), "nodetool could not tell");
  const std::string id = add_freeze(*emulator, "vm1", notice_s, duration_s, complete_after_s);
  agent.wait_for("unsafe_to_drain", 180s, id);
  BOOST_TEST(!agent.find("drain_started", id));
  BOOST_TEST(emulator->approvals().empty());

  const auto started = cluster({"start", node_address(1)}, 600s);
  BOOST_TEST_REQUIRE(started.ok(), started.summary() << "\n" << started.err);
  BOOST_TEST_MESSAGE(started.out);
  agent.wait_for("drain_completed", 300s, id);
  agent.wait_for("event_approved", 60s, id);
  agent.wait_for("restore_completed", std::chrono::seconds(duration_s + complete_after_s) + 240s);
  BOOST_TEST(agent.log("drain_forced_unsafe").empty());
  BOOST_TEST(cla::test::wait_until(up_in_every_view, 300s));
  agent.report_timings("Cassandra down at agent start");
  BOOST_TEST(agent.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
