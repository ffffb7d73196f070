// One nodetool-sim call over a cluster file: read-only calls do not wait for the file lock, faults still
// apply.
#include "cassandra/sim/sim_call.hpp"

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <future>

#include "cassandra/sim/sim_cluster_json.hpp"
#include "cassandra/sim/sim_store.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

struct Fixture {
  fs::path dir = fs::temp_directory_path() /
                 ("cla-sim-call-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  std::string file = (dir / "cluster.json").string();

  Fixture() {
    fs::create_directories(dir);
    cla::SimInitOptions init;
    init.call_log = "calls.jsonl";
    BOOST_REQUIRE(
        cla::write_file_atomically(file, cla::serialize_sim_cluster(cla::make_sim_cluster(init, 1))));
  }
  ~Fixture() { fs::remove_all(dir); }

  cla::SimReply call(const std::string& subcommand, const std::string& address = "127.0.1.1") {
    return cla::run_sim_call(file, address, "", subcommand, {});
  }
  cla::SimCluster model() { return cla::read_cluster_snapshot(file).value(); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(sim_call_test)

BOOST_FIXTURE_TEST_CASE(read_only_calls_do_not_wait_for_the_lock, Fixture) {
  BOOST_TEST(call("disablegossip", "127.0.1.4").exit_code == 0);
  {
    auto held = cla::LockedClusterFile::open(file);  // a writer in the middle of its read-modify-write
    BOOST_REQUIRE(held);
    for (const std::string subcommand : {"status", "info", "statusbinary", "statusgossip"}) {
      auto answer = std::async(std::launch::async, [&] { return call(subcommand); });
      // Waiting for the lock would block until `held` is gone; the ceiling only bounds a failing run.
      BOOST_TEST_REQUIRE((answer.wait_for(30s) == std::future_status::ready), subcommand << " waited");
      const cla::SimReply reply = answer.get();
      BOOST_TEST(reply.exit_code == 0, subcommand << ": " << reply.err);
      if (subcommand == "status") BOOST_TEST(reply.out.find("DN  127.0.1.4") != std::string::npos);
    }
  }
  const std::string log = (dir / "calls.jsonl").string();
  BOOST_TEST(fs::exists(log));  // read-only calls are logged like the others
}

BOOST_FIXTURE_TEST_CASE(a_counted_fault_on_a_read_only_call_is_used_up, Fixture) {
  {
    auto locked = cla::LockedClusterFile::open(file);
    BOOST_REQUIRE(locked);
    cla::SimFault fault;
    fault.exit_code = 2;
    fault.times = 1;
    cla::find_node(locked->cluster(), "127.0.1.1")->node->faults["status"] = fault;
    BOOST_REQUIRE(locked->save());
  }
  BOOST_TEST(call("status").exit_code == 2);
  BOOST_TEST(call("status").exit_code == 0);
  auto cluster = model();
  BOOST_TEST(cla::find_node(cluster, "127.0.1.1")->node->faults.empty());
  BOOST_TEST(call("status", "127.0.1.2").exit_code == 0);  // other nodes were never affected
}

BOOST_FIXTURE_TEST_CASE(writes_are_seen_by_the_next_read, Fixture) {
  BOOST_TEST(call("disablebinary").exit_code == 0);
  BOOST_TEST(call("statusbinary").out == "not running\n");
  BOOST_TEST(call("enablebinary").exit_code == 0);
  BOOST_TEST(call("statusbinary").out == "running\n");
}

BOOST_AUTO_TEST_SUITE_END()
