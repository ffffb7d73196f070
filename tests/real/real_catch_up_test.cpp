// Catching up, uncoordinated (SPEC 3.10, "The next rack waits for it"), on real Cassandra with the Jolokia
// backend: writes during vm1's Freeze leave hints for node 1 on node 2, its coordinator. Cassandra lists that
// hints file only once it has closed it, and closes it only once node 1 is alive again, at its next dispatch
// trigger (every 10 s): right after vm1's restore node 2's list can be empty while the hints wait. The case
// holds that window open (`nodetool pausehandoff` on node 2: no trigger, so the file stays open and unlisted)
// until vm2's gate, due the moment vm1 is restored, has refused with `catching_up` (seen through the
// HintsService counters), shows that nodetool lists nothing then, and resumes handoff: vm2 must drain only
// after node 2 has delivered the hints. A sampler of node 2's hints directory (open files included) is the
// independent witness. Jolokia only: nodetool has no such counter (tests/CMakeLists.txt runs this suite with
// that backend).
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <map>

#include "agent_scenario.hpp"
#include "real_agent.hpp"
#include "real_cluster.hpp"

namespace {

using namespace std::chrono_literals;
using namespace cla::test::real;
using cla::WallClock;
using cla::WallTime;
using cla::test::kMargin;
using cla::test::log_time;
using cla::test::ms_between;
using cla::test::until;

// Node K's hints directory, sampled every 100 ms: per target host id, the first and the last instant a hints
// file for it (`<host id>-<time>-<version>.hints`, open or closed) was there.
class HintsDirWatcher {
 public:
  struct Seen {
    WallTime first, last;
  };
  explicit HintsDirWatcher(int k)
      : dir_(std::filesystem::path(CLA_REAL_CLUSTER_DIR) / ("node" + std::to_string(k)) / "data" / "hints"),
        thread_([this] {
          while (!stop_) {
            sample();
            std::this_thread::sleep_for(100ms);
          }
        }) {}
  ~HintsDirWatcher() {
    stop_ = true;
    thread_.join();
  }
  std::optional<Seen> seen(const std::string& host_id) const {
    std::lock_guard lock(mutex_);
    const auto it = seen_.find(host_id);
    if (it == seen_.end()) return std::nullopt;
    return it->second;
  }

 private:
  void sample() {
    std::error_code ec;
    const WallTime now = WallClock::now();
    for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".hints") || name.size() < 36) continue;
      std::lock_guard lock(mutex_);
      auto [it, fresh] = seen_.try_emplace(name.substr(0, 36), Seen{now, now});
      it->second.last = now;
    }
  }
  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  std::map<std::string, Seen> seen_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// 100 rows in one unlogged batch through node 2 at the driver's LOCAL_ONE: node 2 acknowledges them and keeps
// a hint for each replica that cannot take its write (node 1, frozen and drained).
void write_through_node2() {
  std::string batch = "BEGIN UNLOGGED BATCH ";
  for (int k = 0; k < 100; ++k)
    batch += "INSERT INTO lifecycle.catch_up (k, v) VALUES (" + std::to_string(k) +
             ", 'written while vm1 froze'); ";
  batch += "APPLY BATCH";
  require_ok(cluster({"cql", node_address(2), batch}));
}

// Node 2's hint dispatch paused for the guard's life (`nodetool pausehandoff`), resumed however the case
// ends.
struct HandoffPaused {
  HandoffPaused() { require_ok(nodetool(node_address(2), "pausehandoff")); }
  ~HandoffPaused() { resume(); }
  void resume() {  // never throws: it also runs while a failed case unwinds
    if (paused)
      BOOST_TEST(nodetool(node_address(2), "resumehandoff").exit_code == 0, "resumehandoff on node 2");
    paused = false;
  }
  bool paused = true;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(real_catch_up_test)

BOOST_FIXTURE_TEST_CASE(the_next_rack_waits_until_its_node_delivered_the_hints_of_the_open_file, RealCase) {
  touched = {1, 2};
  require_ok(cluster(
      {"cql", node_address(2), "CREATE TABLE IF NOT EXISTS lifecycle.catch_up (k int PRIMARY KEY, v text)"}));
  auto emulator = start_emulator();
  constexpr int notice_s = 60, lead_s = 55, freeze_s = 20, complete_after_s = 3;
  RealAgent vm1(*emulator, 1, {{"drain_lead_s", lead_s}});
  // vm2's drain is due the moment its event appears (the lead is its notice).
  constexpr int notice2_s = 90;
  RealAgent vm2(*emulator, 2, {{"drain_lead_s", notice2_s}});
  vm1.start();
  vm2.start();
  HintsDirWatcher node2_hints(2);

  const std::string freeze1 = add_freeze(*emulator, "vm1", notice_s, freeze_s, complete_after_s);
  const WallTime drain1_due = WallClock::now() + std::chrono::seconds(notice_s - lead_s);
  vm1.wait_for("drain_completed", secs(until(drain1_due) + kPoll + kFreezeDrain), freeze1);
  vm1.wait_for("event_approved", secs(kPoll + kMargin), freeze1);
  const WallTime approved = WallClock::now();
  write_through_node2();

  const auto removed_by = approved + std::chrono::seconds(freeze_s + complete_after_s);
  HandoffPaused handoff;
  const auto restored = vm1.wait_for("restore_completed", secs(until(removed_by) + kPoll + kRestore), "");
  const std::string freeze2 = add_freeze(*emulator, "vm2", notice2_s, 5, complete_after_s);
  const WallTime posted2 = WallClock::now();

  // While the file stays open, every check after node 1 is UN again says catching_up (the first may still see
  // it down); one recheck (unsafe_recheck_s, 5 s) after that at most.
  std::string node1_host_id;
  const bool refused = cla::test::wait_until(
      [&] {
        for (const auto& line : vm2.log("unsafe_to_drain", freeze2)) {
          const auto* reason = line.if_contains("reason");  // none when a replica is simply down
          if (!reason || *reason != "catching_up") continue;
          BOOST_TEST_MESSAGE("vm2 refused: " << boost::json::serialize(line));
          BOOST_TEST_REQUIRE(line.at("catching_up").as_array().size() == 1u);
          const auto& node1 = line.at("catching_up").as_array()[0].as_object();
          BOOST_TEST(node1.at("address").as_string() == node_address(1));
          node1_host_id = node1.at("host_id").as_string();
          return true;
        }
        return false;
      },
      kPoll + 2 * (5s + kNodetoolCall) + kMargin);
  if (!refused) {
    std::string seen;
    for (const auto& m : vm2.messages()) seen += m + " ";
    BOOST_FAIL("vm2's gate never said catching_up; its log: " << seen);
  }
  BOOST_TEST(!vm2.find("drain_started", freeze2).has_value(), "vm2 drained while node 2 held the hints");
  const auto listed = nodetool(node_address(2), "listpendinghints");
  require_ok(listed);
  BOOST_TEST(listed.out.find("does not have any pending hints") != std::string::npos,
             "the window: nodetool lists nothing while the hints wait; it said " << listed.out);
  handoff.resume();

  // Node 2 closes the file at its next trigger (10 s) and delivers it; vm2 drains within a recheck after, and
  // before its forced instant (NotBefore - 10 s).
  const auto drain2 = vm2.wait_for(
      "drain_started", secs(until(posted2 + std::chrono::seconds(notice2_s - 10)) + kFreezeDrain), freeze2);
  BOOST_TEST(!drain2.at("forced_unsafe").as_bool(), "drained once safe, not forced");
  const auto hints = node2_hints.seen(node1_host_id);
  BOOST_TEST_REQUIRE(hints.has_value(), "no hints file for node 1 ever on node 2: nothing to catch up");
  BOOST_TEST(ms_between(hints->first, approved) <= 0, "the hints were written during the outage");
  BOOST_TEST(ms_between(log_time(restored), hints->last) > 0, "node 2 still held them after the restore");
  BOOST_TEST(ms_between(hints->last, log_time(drain2)) > 0,
             "vm2 drained while node 2 still held node 1's hints");
  BOOST_TEST_MESSAGE("node 2's hints for node 1: last seen "
                     << ms_between(log_time(restored), hints->last) << " ms after vm1's restore; vm2's drain "
                     << ms_between(log_time(restored), log_time(drain2)) << " ms after it");
  // Approved once quiet, or started at NotBefore without it (the quiet wait is bounded by NotBefore): either
  // way the Freeze is over by NotBefore + its 5 s + complete_after_s, and vm2 restored a restore later.
  const auto removed2_by = posted2 + std::chrono::seconds(notice2_s + 5 + complete_after_s);
  vm2.wait_for("restore_completed", secs(until(removed2_by) + kPoll + kRestore));
  BOOST_TEST(cla::test::wait_until(up_in_every_view, kRestore));
  BOOST_TEST(vm1.stop() == 0);
  BOOST_TEST(vm2.stop() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
