// Coordinated catch-up (SPEC 3.10, 9): a restored node stays catching_up while another agent's node lists
// hints for it (that agent publishes them in its member key); its drain record stays until it caught up, so
// the next rack is admitted only then.
#include <algorithm>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <thread>

#include "agent/daemon/daemon.hpp"
#include "agent_scenario.hpp"
#include "coordinated_fleet.hpp"
#include "etcd_client_support.hpp"
#include "state/event_plan.hpp"

namespace {

using namespace std::chrono_literals;
using cla::test::CoordinatedFleet;
using cla::test::has_key;
using cla::test::log_time;

// nodetool-sim lists vm0's hints on its peers from a second after vm0's node is up again until kReplayS
// after; catch_up_min_s covers a peer's publication (its watcher step, within catch_up_min_s / 2, then an
// etcd put).
constexpr std::int64_t kReplayS = 8;
constexpr std::int64_t kMinS = 5;
constexpr std::int64_t kLeadS = 28;  // both agents' drain_lead_s: vm1's forced instant comes well after

constexpr const char* kMarkerVm0 = "/cassandra-lifecycle-agent/c1/catching_up/dc1/vm0";

boost::json::object freeze(const std::string& vm, std::int64_t not_before_in) {
  return {{"type", "Freeze"},
          {"resources", {vm}},
          {"not_before_in_s", not_before_in},
          {"duration_s", 2},
          {"complete_after_s", 1}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(coordination_catch_up_test)

BOOST_AUTO_TEST_CASE(the_next_rack_waits_until_the_peers_delivered_their_hints) {
  CoordinatedFleet fleet(2, true);
  fleet.configure({{"drain_lead_s", kLeadS}, {"catch_up_min_s", kMinS}, {"catch_up_max_s", 120}});
  fleet.set_sim_node(0, "hint_replay_s", kReplayS);
  fleet.start_all();
  const std::string first = fleet.add_event(freeze("vm0", kLeadS + 2));
  fleet.wait_for(0, "drain_completed", fleet.until_drain_due(first), first);
  fleet.wait_for(0, "restore_completed", fleet.until_restored(first));
  const auto catching = fleet.wait_for(0, "catching_up", cla::test::kMargin);

  // vm0's record stays while it catches up: the next rack's admission counts rack1 out.
  std::string record(CoordinatedFleet::kDrains);  // by append: GCC 12 warns (wrongly) on string + literal
  record.append("vm0");
  BOOST_TEST(has_key(fleet.etcd(), record));
  // And its catching_up/<dc>/<vm> key tells the other agents' watcher steps, written with the member key.
  BOOST_TEST(cla::test::wait_until([&] { return has_key(fleet.etcd(), kMarkerVm0); },
                                   fleet.etcd_request_ceiling() + cla::test::kMargin));
  BOOST_TEST(cla::test::wait_until(
                 [&] {
                   const auto view = fleet.fleet_json(1);
                   for (const auto& m : view.at("members").as_array())
                     if (m.at("vm") == "vm0") return m.at("phase") == "catching_up";
                   return false;
                 },
                 fleet.etcd_request_ceiling() + cla::test::kMargin),
             "fleet shows vm0 catching_up");

  // The next rack's event, due at once: vm1's own node still holds hints for vm0, so its gate says so.
  const std::string next = fleet.add_event(freeze("vm1", kLeadS + 2));
  const auto unsafe = fleet.wait_for(1, "unsafe_to_drain", fleet.until_drain_due(next), next);
  BOOST_TEST(unsafe.at("reason").as_string() == "catching_up");
  BOOST_TEST(unsafe.at("catching_up").as_array().at(0).at("address").as_string() == fleet.node(0));

  // Caught up once vm1's node no longer lists hints for it: after the replay, a watcher step of vm1 and a
  // read of vm0's.
  const auto publish = fleet.idle_watch_interval() +
                       cla::Daemon::hints_read_interval(std::chrono::seconds(kMinS)) +
                       2 * fleet.etcd_request_ceiling();
  const auto caught = fleet.wait_for(0, "caught_up",
                                     std::chrono::seconds(kReplayS) + publish +
                                         cla::CorePolicy{}.catch_up_read_interval + cla::test::kMargin);
  BOOST_TEST(caught.at("hint_files").as_int64() >= 1, "vm1's member key named its hints for vm0");
  BOOST_TEST(caught.at("catch_up_s").as_int64() >= kReplayS - 1);
  BOOST_TEST((log_time(caught) > log_time(catching)));
  BOOST_TEST(
      cla::test::wait_until([&] { return !has_key(fleet.etcd(), record); }, fleet.record_removed_within()));
  // The marker goes in the member key's own write, which the same caught_up asks beside the release: either
  // may land first, each within one etcd request and a retry.
  BOOST_TEST(cla::test::wait_until([&] { return !has_key(fleet.etcd(), kMarkerVm0); },
                                   fleet.record_removed_within()),
             "the catching_up key left with the member key's phase");
  const auto started =
      fleet.wait_for(1, "drain_started",
                     fleet.within_a_poll() + fleet.admission_ceiling() + fleet.record_removed_within(), next);
  BOOST_TEST(!started.at("forced_unsafe").as_bool());
  BOOST_TEST((log_time(started) > log_time(caught)), "vm1 drained before vm0 caught up");
}

// While vm0 catches up, vm1 publishes the hints its node holds for it, reading them at most every
// hints_read_interval (10 s at the default catch_up_min_s) whatever its watcher's pace: with nodetool each
// read is a JVM, and six agents reading at every watcher step kept a 6-node machine's load at 15 in the game
// day. vm1's node holds hints for vm0 through the whole window, and no event is pending meanwhile, so no gate
// check of vm1 reads them.
BOOST_AUTO_TEST_CASE(a_peer_reads_its_hints_at_most_every_read_interval) {
  const std::chrono::seconds min = cla::CorePolicy{}.catch_up_min;
  const auto interval = cla::Daemon::hints_read_interval(min);
  const auto window = 2 * interval + 1s;
  CoordinatedFleet fleet(2, true);
  fleet.configure({{"drain_lead_s", kLeadS}, {"catch_up_min_s", min.count()}, {"catch_up_max_s", 120}});
  const auto replay = std::chrono::duration_cast<std::chrono::seconds>(
      std::max<std::chrono::milliseconds>(window + interval, min + interval));
  fleet.set_sim_node(0, "hint_replay_s", replay.count());
  fleet.start_all();
  const std::string first = fleet.add_event(freeze("vm0", kLeadS + 2));
  fleet.wait_for(0, "restore_completed", fleet.until_restored(first));
  const auto catching = log_time(fleet.wait_for(0, "catching_up", cla::test::kMargin));
  std::this_thread::sleep_for(window);
  BOOST_TEST(fleet.log(0, "caught_up").empty(), "vm0 still catches up: vm1 had to publish all along");
  std::size_t reads = 0;
  for (const auto t : fleet.sim_calls(1, "listpendinghints"))
    if (t >= catching && t <= catching + window) ++reads;
  // A read at once, then one per interval; at least one, or nothing was published.
  BOOST_TEST(reads >= 1u);
  BOOST_TEST(reads <= static_cast<std::size_t>(window / interval) + 1);
}

// Whether another node catches up, every agent learns from the catching_up/ keys (a range of a few keys at
// each watcher step, not every member key: 450 agents each reading the whole prefix every 5 s was the fleet's
// idle cost). A key of another region's namesake (dc2's vm0) is another node: dc1's vm0 reads what its node
// holds for it. Nothing catches up before the key is put, so no read comes before it.
BOOST_AUTO_TEST_CASE(another_dcs_namesake_catching_up_makes_an_agent_read_its_hints) {
  CoordinatedFleet fleet(2, true);
  fleet.configure({{"drain_lead_s", kLeadS}});
  fleet.start_all();
  fleet.wait_for(0, "coordination_lease_granted", cla::test::kMargin);
  const auto put_at = cla::WallClock::now();
  fleet.etcd().put("/cassandra-lifecycle-agent/c1/catching_up/dc2/vm0", R"({"vm":"vm0"})");
  const auto read_since_put = [&] {
    const auto calls = fleet.sim_calls(0, "listpendinghints");
    return std::any_of(calls.begin(), calls.end(), [&](auto t) { return t >= put_at; });
  };
  // A watcher step comes within idle_watch_interval once the DC is known; its read, then nodetool's.
  BOOST_TEST(cla::test::wait_until(read_since_put, fleet.idle_watch_interval() +
                                                       2 * fleet.etcd_request_ceiling() + cla::test::kMargin),
             "vm0 (dc1) read its node's hints for dc2's vm0");
}

// A catching-up node counts every DC's member keys: hints for it are held wherever a coordinator took its
// writes, and another region's VM of the same name (dc2's vm0) is another node. Its member key listing
// hints for dc1's vm0 keeps dc1's vm0 catching up until it goes.
BOOST_AUTO_TEST_CASE(hints_held_by_another_dcs_namesake_keep_the_node_catching_up) {
  CoordinatedFleet fleet(2, true);
  fleet.configure({{"drain_lead_s", kLeadS}, {"catch_up_min_s", kMinS}, {"catch_up_max_s", 120}});
  fleet.start_all();
  std::string own_key(CoordinatedFleet::kMembers);
  own_key.append("vm0");
  std::string host_id;
  BOOST_REQUIRE(cla::test::wait_until(
      [&] {
        for (const auto& [key, value] : fleet.etcd().get_prefix(own_key))
          if (key == own_key) host_id = boost::json::parse(value).at("host_id").as_string().c_str();
        return !host_id.empty();
      },
      fleet.etcd_request_ceiling() + cla::test::kMargin));
  cla::MemberRecord namesake;
  namesake.vm = "vm0";
  namesake.datacenter = "dc2";
  namesake.rack = "rack1";
  namesake.host_id = "00000000-0000-4000-8000-0000000000d2";
  namesake.hints_for = {{host_id, 1}};
  const std::string namesake_key = "/cassandra-lifecycle-agent/c1/members/dc2/vm0";
  fleet.etcd().put(namesake_key, boost::json::serialize(cla::to_json(namesake)));

  const std::string first = fleet.add_event(freeze("vm0", kLeadS + 2));
  fleet.wait_for(0, "restore_completed", fleet.until_restored(first));
  fleet.wait_for(0, "catching_up", cla::test::kMargin);
  // Past catch_up_min and a read: an empty answer would count by now.
  std::this_thread::sleep_for(std::chrono::seconds(kMinS) + cla::CorePolicy{}.catch_up_read_interval +
                              fleet.etcd_request_ceiling());
  BOOST_TEST(fleet.log(0, "caught_up").empty(), "dc2's vm0 still holds hints for dc1's vm0");
  fleet.etcd().del(namesake_key);
  const auto caught = fleet.wait_for(
      0, "caught_up",
      cla::CorePolicy{}.catch_up_read_interval + fleet.etcd_request_ceiling() + cla::test::kMargin);
  BOOST_TEST(caught.at("hint_files").as_int64() >= 1, "the namesake's hints files were counted");
}

BOOST_AUTO_TEST_SUITE_END()
