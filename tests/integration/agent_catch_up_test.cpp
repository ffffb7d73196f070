// Back in service, end to end (SPEC 3.10), uncoordinated, on nodetool-sim's hints model: the restored node
// is catching_up (log, /state, metrics) for catch_up_min_s; a peer this node's Cassandra still holds hints
// for counts as unavailable in the gate (`reason: "catching_up"`) until its hints are delivered; a node out
// longer than max_hint_window is restored with repair_needed, NodeRepairNeeded and the gauge, after
// hint_window_closing while it was out.
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"

using namespace cla::test::agent_tests;

namespace {

constexpr const char* kPeer = "127.0.1.2";  // rack2's node

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

cla::test::HttpReply get(std::uint16_t port, const std::string& target) {
  return cla::test::http_call(port, boost::beast::http::verb::get, target, {}, {}, 2s);
}

std::uint16_t http_port(const AgentScenario& s) {
  return static_cast<std::uint16_t>(s.wait_for("http_listening", cla::test::kMargin).at("port").as_int64());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_catch_up_test)

BOOST_AUTO_TEST_CASE(the_restored_node_catches_up_for_catch_up_min_s_and_shows_it) {
  constexpr int kMinS = 3;
  AgentScenario s;
  s.write_config({{"policy", {{"catch_up_min_s", kMinS}, {"catch_up_max_s", 60}}},
                  {"http", {{"listen", "127.0.0.1:0"}}}});
  s.start_agent();
  const auto port = http_port(s);
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 2}});
  s.wait_for("drain_completed", s.until_drain_due(id), id);
  const auto restored = s.wait_for("restore_completed", s.until_removed(id) + s.within_a_poll());
  const auto catching = s.wait_for("catching_up", cla::test::kMargin);
  BOOST_TEST(catching.at("out_s").as_int64() == restored.at("out_s").as_int64());
  BOOST_TEST(catching.at("catch_up_min_s").as_int64() == kMinS);
  const auto state = get(port, "/state").json().as_object();
  BOOST_TEST(state.at("phase").as_string() == "catching_up");
  BOOST_TEST(state.at("catch_up").is_object());
  BOOST_TEST(get(port, "/metrics").body.find("cla_node_phase{phase=\"catching_up\"} 1") != std::string::npos);
  // catch_up_min_s, then the next read (the core reads every 5 s: it waits for the minimum exactly).
  const auto caught = s.wait_for("caught_up", std::chrono::seconds(kMinS) + s.within_a_poll());
  BOOST_TEST(caught.at("catch_up_s").as_int64() == kMinS);
  BOOST_TEST(caught.at("out_s").as_int64() == restored.at("out_s").as_int64());
  BOOST_TEST(get(port, "/state").json().at("phase").as_string() == "serving");
  BOOST_TEST(get(port, "/state").json().at("catch_up").is_null());
}

// nodetool-sim: rack2's node came back from a 40 s outage just now, and every peer lists its hints for it
// (listpendinghints) until kReplayS later. vm0's drain comes due meanwhile (drain_lead_s 18 of NotBefore 20:
// at once): its gate counts rack2 out, so with this node out too no LOCAL_QUORUM is left: unsafe,
// `catching_up`, until the peer's hints are delivered, before the forced instant (NotBefore - 1 s).
BOOST_AUTO_TEST_CASE(the_gate_waits_for_a_peer_this_node_still_holds_hints_for) {
  constexpr std::int64_t kReplayS = 16, kOutS = 40;
  AgentScenario s;
  const std::int64_t back_at = unix_now();
  s.set_sim_node(kPeer, "back_at", back_at);
  s.set_sim_node(kPeer, "back_out_s", kOutS);
  s.set_sim_node(kPeer, "hint_replay_s", kReplayS);
  s.write_config({{"policy", {{"drain_lead_s", 18}, {"unsafe_drain_lead_s", 1}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 20}, {"duration_s", 2}});
  const auto unsafe = s.wait_for("unsafe_to_drain", s.until_drain_due(id), id);
  BOOST_TEST(unsafe.at("reason").as_string() == "catching_up");
  const auto& nodes = unsafe.at("catching_up").as_array();
  BOOST_REQUIRE(nodes.size() == 1u);
  BOOST_TEST(nodes[0].at("address").as_string() == kPeer);
  BOOST_TEST(nodes[0].at("hints_files").as_int64() == 1 + kOutS / 10);
  const auto started =
      s.wait_for("drain_started", s.until_drain_due(id) + std::chrono::seconds(kReplayS), id);
  BOOST_TEST(!started.at("forced_unsafe").as_bool(), "drained once the peer caught up, not forced");
  // The simulator lists the hints through second back_at + kReplayS - 1.
  BOOST_TEST((log_time(started) >= cla::WallTime(std::chrono::seconds(back_at + kReplayS))));
}

// max_hint_window of 2 s (nodetool-sim's getmaxhintwindow): a Freeze keeps the node out longer.
BOOST_AUTO_TEST_CASE(a_node_out_past_the_hint_window_needs_a_repair) {
  constexpr std::int64_t kWindowMs = 2000;
  AgentScenario s;
  s.set_sim_node(cla::test::kAgentNode, "max_hint_window_ms", kWindowMs);
  s.write_config({{"http", {{"listen", "127.0.0.1:0"}}}});
  s.start_agent();
  const auto port = http_port(s);
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 3}});
  const auto drained = s.wait_for("drain_started", s.until_drain_due(id), id);
  const auto closing =
      s.wait_for("hint_window_closing", std::chrono::milliseconds(kWindowMs) + s.within_a_poll());
  BOOST_TEST(closing.at("window_s").as_int64() == kWindowMs / 1000);
  BOOST_TEST(closing.at("out_s").as_int64() == kWindowMs * 4 / 5 / 1000, "at 80 % of the window, once");
  BOOST_TEST((log_time(closing) > log_time(drained)));
  const auto repair = s.wait_for("repair_needed", s.until_removed(id) + s.within_a_poll());
  BOOST_TEST(repair.at("level").as_string() == "error");
  BOOST_TEST(repair.at("window_s").as_int64() == kWindowMs / 1000);
  BOOST_TEST(repair.at("out_s").as_int64() * 1000 >= kWindowMs);
  BOOST_TEST(get(port, "/metrics").body.find("cla_repair_needed 1") != std::string::npos);
  BOOST_TEST(get(port, "/state").json().at("repair_needed").as_bool());
  bool notified = false;
  BOOST_REQUIRE(cla::test::wait_until(
      [&] {
        for (const auto& run : s.hook_runs())
          if (run.at("CLA_NOTIFICATION") == "NodeRepairNeeded") notified = true;
        return notified;
      },
      cla::test::kMargin));
}

BOOST_AUTO_TEST_SUITE_END()
