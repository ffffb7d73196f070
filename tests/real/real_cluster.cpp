// The real suite's Cassandra: one cluster for the whole binary, views read with the agent's own parser.
#include "real_cluster.hpp"

#include <signal.h>
#include <stdlib.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "agent_scenario.hpp"
#include "cassandra/nodetool_output/running_parser.hpp"
#include "cassandra/nodetool_output/status_parser.hpp"
#include "cassandra_support.hpp"
#include "state/text.hpp"
#include "tests/support/proc_state.hpp"

namespace cla::test::real {
namespace {

using namespace std::chrono_literals;

// A node restart waits until it is UN in every view: ~20 s alone, minutes on a loaded 2-core machine.
constexpr auto kNodeStartLimit = 600s;
// nodetool is a JVM: ~2 s per call alone; a frozen node makes it hang until this.
constexpr auto kNodetoolLimit = 60s;

std::string describe(const CommandOutcome& out) {
  return out.summary() + "\n--- stdout:\n" + out.out + "\n--- stderr:\n" + out.err;
}

}  // namespace

int first_host() {
  static const int host = [] {
    const char* text = ::getenv("CLA_REAL_FIRST_HOST");
    const int value = text ? std::atoi(text) : 0;
    return value >= 1 && value <= 250 ? value : 11;
  }();
  return host;
}

int datacenters() {
  static const int dcs = [] {
    const char* text = ::getenv("CLA_REAL_DCS");
    return text && std::string(text) == "2" ? 2 : 1;
  }();
  return dcs;
}

int nodes() {
  return 3 * datacenters();
}

std::string node_address(int k) {
  return "127.0.0." + std::to_string(first_host() - 1 + k);
}
std::string cluster_script() {
  return (std::filesystem::path(CLA_SOURCE_DIR) / "scripts" / "cassandra-cluster.sh").string();
}
std::string impact_hook_script() {
  return (std::filesystem::path(CLA_SOURCE_DIR) / "scripts" / "cluster" / "impact-hook.sh").string();
}

boost::json::object status_line(int k) {
  const auto out = cluster({"status"});
  require_ok(out);
  for (auto line : cla::split_lines(out.out))
    if (!cla::trim(line).empty()) {
      auto node = boost::json::parse(line).as_object();
      if (node.at("address").as_string() == node_address(k)) return node;
    }
  BOOST_FAIL("no status line for " << node_address(k));
  return {};
}

CommandOutcome cluster(std::vector<std::string> args, std::chrono::seconds limit) {
  args.insert(args.begin(), cluster_script());
  return run_blocking(run_command(std::move(args), limit));
}

CommandOutcome nodetool(const std::string& address, const std::string& subcommand) {
  return cluster({"nodetool", address, subcommand}, kNodetoolLimit);
}

ClusterFixture::ClusterFixture() {
  ::setenv("CASSANDRA_CLUSTER_DIR", CLA_REAL_CLUSTER_DIR, 1);
  ::setenv("CASSANDRA_FIRST_HOST", std::to_string(first_host()).c_str(), 1);
  cluster({"stop"});  // a crashed run's JVMs
  std::error_code ignored;
  const std::filesystem::path dir(CLA_REAL_CLUSTER_DIR);
  // The nodes' data: the largest cluster's 6, and a joiner's (real_pending_test's 4th node) that a crashed
  // run left.
  for (int k = 1; k <= 7; ++k) std::filesystem::remove_all(dir / ("node" + std::to_string(k)), ignored);
  std::filesystem::remove(dir / "cluster.env", ignored);
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::string> start{"start", "--jolokia"};
  if (datacenters() == 2)
    for (const char* arg : {"--nodes", "6", "--dcs", "2"}) start.push_back(arg);
  const CommandOutcome out = cluster(std::move(start), kNodeStartLimit * 2);
  if (!out.ok())
    throw std::runtime_error("the real suite needs a Cassandra cluster: cassandra-cluster.sh start failed: " +
                             describe(out));
  BOOST_TEST_MESSAGE(
      "real cluster: "
      << out.out << " (test saw "
      << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
      << " s)");
}

ClusterFixture::~ClusterFixture() {
  cluster({"stop"});
}

std::string seen_as(const std::string& viewer, const std::string& node) {
  const CommandOutcome out = nodetool(viewer, "status");
  if (!out.ok()) return "";
  const auto status = parse_nodetool_status(out.out);
  if (!status) return "";
  for (const auto& row : status->rows)
    if (row.address == node) return std::string{row.status, row.state};
  return "";
}

bool up_in_every_view() {
  for (int viewer = 1; viewer <= nodes(); ++viewer) {
    const CommandOutcome out = nodetool(node_address(viewer), "status");
    if (!out.ok()) return false;
    const auto status = parse_nodetool_status(out.out);
    if (!status || status->rows.size() != static_cast<std::size_t>(nodes())) return false;
    for (const auto& row : status->rows)
      if (!row.up_normal()) return false;
  }
  return true;
}

bool serving(const std::string& address) {
  for (const char* sub : {"statusgossip", "statusbinary"}) {
    const CommandOutcome out = nodetool(address, sub);
    const auto running = out.ok() ? parse_running(out.out) : Result<bool>(make_error(out.summary()));
    if (!running || !*running) return false;
  }
  return true;
}

std::string cql_opened_by(int k) {
  std::ifstream log(std::filesystem::path(CLA_REAL_CLUSTER_DIR) / ("node" + std::to_string(k)) / "logs" /
                    "system.log");
  std::string line, thread;
  // "INFO  [main] 2026-11-27 00:00:16,177 PipelineConfigurator.java:148 - Starting listening for CQL clients"
  while (std::getline(log, line))
    if (line.find("Starting listening for CQL clients") != std::string::npos)
      if (const auto open = line.find('['), close = line.find(']', open);
          open != std::string::npos && close != std::string::npos)
        thread = line.substr(open + 1, close - open - 1);
  return thread;
}

void require_ok(const CommandOutcome& out) {
  BOOST_TEST_REQUIRE(out.ok(), out.summary());
}

void take_out(const std::string& address, const std::string& observer) {
  require_ok(nodetool(address, "disablebinary"));
  require_ok(nodetool(address, "disablegossip"));
  BOOST_TEST_REQUIRE(wait_until([&] { return seen_as(observer, address) == "DN"; }, 120s),
                     address << " not DN in " << observer << "'s view");
}

namespace {

// Brings the node back to serving without waiting for the others' views (bring_back waits for them).
void revive(const std::string& address) {
  // Continue a frozen JVM, start a stopped one (status: one JSON line per node).
  const CommandOutcome status = cluster({"status"});
  BOOST_TEST_REQUIRE(status.ok(), describe(status));
  for (auto line : split_lines(status.out)) {
    if (trim(line).empty()) continue;
    const auto node = boost::json::parse(line).as_object();
    if (node.at("address").as_string() != address) continue;
    const std::string state(node.at("state").as_string());
    if (state == "frozen") ::kill(static_cast<pid_t>(node.at("pid").to_number<std::int64_t>()), SIGCONT);
    if (state == "stopped") {
      const CommandOutcome started = cluster({"start", address}, kNodeStartLimit);
      BOOST_TEST_REQUIRE(started.ok(), describe(started));
    }
  }
  if (!serving(address)) {
    // Disabled services come back with enable*; a drained node refuses them and must be restarted.
    const bool enabled = nodetool(address, "enablegossip").ok() && nodetool(address, "enablebinary").ok();
    if (!enabled || !serving(address)) {
      BOOST_TEST_REQUIRE(cluster({"kill", address}).ok());
      const CommandOutcome started = cluster({"start", address}, kNodeStartLimit);
      BOOST_TEST_REQUIRE(started.ok(), describe(started));
    }
  }
}

}  // namespace

void bring_back(const std::string& address) {
  revive(address);
  BOOST_TEST_REQUIRE(wait_until(up_in_every_view, kNodeStartLimit), address << " not UN in every view again");
}

namespace {

constexpr auto kSampleEvery = std::chrono::milliseconds(20);

// "running", "frozen" or "gone", as cassandra-cluster.sh's process_state reads it.
std::string jvm_state(const std::string& pid_file) {
  std::ifstream pid_in(pid_file);
  pid_t pid = 0;
  if (!(pid_in >> pid)) return "gone";
  const auto state = process_state(pid);
  if (!state || *state == 'Z' || *state == 'X') return "gone";
  if (*state == 'T' || *state == 't') return "frozen";
  return "running";
}

}  // namespace

JvmWatcher::JvmWatcher(int k)
    : pid_file_(
          (std::filesystem::path(CLA_REAL_CLUSTER_DIR) / ("node" + std::to_string(k)) / "pid").string()),
      thread_([this] {
        while (!stop_) {
          sample();
          std::this_thread::sleep_for(kSampleEvery);
        }
      }) {}

JvmWatcher::~JvmWatcher() {
  stop_ = true;
  thread_.join();
}

void JvmWatcher::sample() {
  const std::string state = jvm_state(pid_file_);
  const WallTime now = WallClock::now();
  std::lock_guard lock(mutex_);
  if (!spans_.empty() && spans_.back().state == state) {
    spans_.back().to = now;
  } else {
    spans_.push_back({state, now, now});
  }
}

std::vector<JvmWatcher::Span> JvmWatcher::spans() const {
  std::lock_guard lock(mutex_);
  return spans_;
}

std::optional<JvmWatcher::Span> JvmWatcher::first(const std::string& state, WallTime after) const {
  for (const auto& span : spans())
    if (span.state == state && span.from + kSampleEvery >= after) return span;
  return std::nullopt;
}

std::string JvmWatcher::describe() const {
  std::ostringstream text;
  const auto all = spans();
  if (all.empty()) return "no sample";
  for (const auto& span : all)
    text << span.state << " " << ms_between(all.front().from, span.from) << "+" << span.length().count()
         << " ms; ";
  return text.str();
}

JvmWatcher::Span require_impact(const JvmWatcher& watcher, const std::string& state, WallTime started,
                                std::chrono::milliseconds within, std::chrono::milliseconds at_least) {
  // Spans are closed by a later sample: wait until the one sought has lasted long enough (or never came).
  std::optional<JvmWatcher::Span> span;
  wait_until(
      [&] {
        span = watcher.first(state, started);
        return span && span->length() >= at_least;
      },
      std::chrono::duration_cast<std::chrono::milliseconds>(until(started + within) + at_least));
  BOOST_TEST_REQUIRE(span.has_value(), "the JVM was never " << state
                                                            << " after the event started (the impact did "
                                                            << "not land): " << watcher.describe());
  BOOST_TEST(ms_between(started, span->from) <= within.count(),
             "the JVM became " << state << " " << ms_between(started, span->from) << " ms after the start");
  BOOST_TEST(span->length() >= at_least,
             "the JVM was " << state << " for " << span->length().count() << " ms");
  BOOST_TEST_MESSAGE("impact landed: JVM " << state << " " << ms_between(started, span->from)
                                           << " ms after the event started, for " << span->length().count()
                                           << " ms");
  return *span;
}

}  // namespace cla::test::real

namespace cla::test::real {

void RealCase::teardown() {
  // Every node first, then the views: a case that took out two nodes has no view with all UN until both
  // serve.
  for (int k : touched) revive(node_address(k));
  BOOST_TEST_REQUIRE(wait_until(up_in_every_view, kNodeStartLimit), "not every node UN in every view");
}

}  // namespace cla::test::real

using RealClusterFixture = cla::test::real::ClusterFixture;
BOOST_TEST_GLOBAL_FIXTURE(RealClusterFixture);
