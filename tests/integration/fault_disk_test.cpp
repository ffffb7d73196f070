// Fault matrix: the state directory read-only, or its disk full, from the start or from mid-drain. A state
// write that fails is an error line; the drain goes on but nothing is approved that is not on disk; once the
// disk takes writes again the approval follows, and the node is back after the event.
//
// The state directory is a FaultyDir: a tmpfs as root, so the disk-full case needs root and is skipped
// without it.
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "agent_scenario.hpp"
#include "faulty_dir.hpp"

namespace {

using namespace cla::test::agent_tests;
namespace fs = std::filesystem;

enum class When { at_start, mid_drain };

// One run: the fault from `when`, an event whose drain falls due at once; the write failure logged, no
// approval while the disk refuses; the approval once it takes writes again; the node restored after.
void run_case(When when, const std::function<void(FaultyDir&, bool)>& fault,
              const std::string& expected_error) {
  AgentScenario s;
  s.write_config({{"policy", {{"drain_lead_s", 60}}}});
  FaultyDir disk(s.state_file().parent_path());
  constexpr auto gossip_latency = 500ms;  // the drain is under way while the fault comes
  s.add_sim_fault(cla::test::kAgentNode, "disablegossip",
                  {{"latency_ms", gossip_latency.count()}, {"times", 1}});
  if (when == When::at_start) fault(disk, true);
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 30}, {"duration_s", 30}});
  s.wait_for("drain_started", s.within_a_poll(), id);
  if (when == When::mid_drain) fault(disk, true);  // while disablebinary/disablegossip run

  const auto failed = s.wait_for("state_write_failed", gossip_latency + s.within_a_poll());
  BOOST_TEST(failed.at("level").as_string() == "error");
  const std::string error(failed.at("error").as_string());
  BOOST_TEST(error.find(expected_error) != std::string::npos, error);
  s.wait_for("drain_completed", s.within_a_poll(), id);
  s.wait_for("approval_failed", s.within_a_poll(), id);
  s.wait_for_polls(2);
  BOOST_TEST(s.emulator().approvals().empty(), "approved what is not on disk");
  BOOST_TEST(!s.running("statusbinary"), "the drain goes on");

  fault(disk, false);
  // The approval's retry (2 s, then 4 s) persists first, then approves.
  const auto approved = s.wait_for("event_approved", 4s + s.within_a_poll(), id);
  BOOST_TEST(cla::test::ms_between(cla::test::log_time(failed), cla::test::log_time(approved)) > 0);
  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(fs::exists(s.state_file()));
}

boost::test_tools::assertion_result has_root(boost::unit_test::test_unit_id) {
  boost::test_tools::assertion_result result(FaultyDir::can_fill());
  result.message() << "a full disk is played with a tmpfs, which needs root";
  return result;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fault_disk_test)

BOOST_AUTO_TEST_CASE(state_directory_read_only_at_start_and_mid_drain) {
  for (When when : {When::at_start, When::mid_drain}) {
    BOOST_TEST_CONTEXT((when == When::at_start ? "at start" : "mid-drain")) {
      run_case(
          when, [](FaultyDir& d, bool on) { d.read_only(on); },
          ::geteuid() == 0 ? "Read-only file system" : "Permission denied");
    }
  }
}

BOOST_AUTO_TEST_CASE(disk_full_at_start_and_mid_drain, *boost::unit_test::precondition(has_root)) {
  for (When when : {When::at_start, When::mid_drain}) {
    BOOST_TEST_CONTEXT((when == When::at_start ? "at start" : "mid-drain")) {
      run_case(
          when, [](FaultyDir& d, bool on) { d.full(on); }, "No space left on device");
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
