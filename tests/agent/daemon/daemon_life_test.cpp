// Process life without signals: agent_started/agent_stopped around the work, stop hooks, fatal errors, and
// the ticks the run loop fires.
#include "agent/daemon/daemon_life.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>
#include <stdexcept>
#include <vector>

#include "agent/cli.hpp"
#include "agent/log.hpp"

namespace {

cla::Config test_config() {
  cla::Config config;
  config.imds.endpoint = "http://127.0.0.1:1";
  config.node = {"vm-3", 1};
  config.http.listen = "";
  return config;
}

// Ticks every 10 ms, records when each came, and asks for a stop after the third.
class CountingTicks : public cla::TickSource {
 public:
  explicit CountingTicks(cla::DaemonLife& life) : life_(life) {}
  Clock::time_point due() const override { return due_; }
  void fire(Clock::time_point now) override {
    fired_.push_back({due_, now});
    due_ = now + std::chrono::milliseconds(10);
    if (fired_.size() == 3) life_.request_stop("ticked");
  }
  struct Fired {
    Clock::time_point due, now;
  };
  const std::vector<Fired>& fired() const { return fired_; }

 private:
  cla::DaemonLife& life_;
  Clock::time_point due_ = Clock::now() + std::chrono::milliseconds(10);
  std::vector<Fired> fired_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(daemon_life_test)

BOOST_AUTO_TEST_CASE(a_requested_stop_runs_hooks_and_logs_started_then_stopped) {
  cla::LogCapture capture;
  cla::DaemonLife life(test_config(), true);
  int hook_calls = 0;
  life.on_stop([&] { ++hook_calls; });
  life.spawn([](cla::DaemonLife& l) -> boost::asio::awaitable<void> {
    l.request_stop("test");
    l.request_stop("again");  // a second request changes nothing
    co_return;
  }(life));
  BOOST_TEST(life.run() == cla::kExitClean);
  BOOST_TEST(hook_calls == 1);

  const auto lines = capture.lines();
  BOOST_TEST_REQUIRE(lines.size() == 2u);
  const auto& started = lines[0];
  BOOST_TEST(started.at("msg").as_string() == "agent_started");
  BOOST_TEST(started.at("version").as_string() == CLA_VERSION);
  BOOST_TEST(started.at("dry_run").as_bool());
  BOOST_TEST(started.at("imds_endpoint").as_string() == "http://127.0.0.1:1");
  BOOST_TEST(started.at("resource_name").as_string() == "vm-3");
  BOOST_TEST(started.at("fault_domain").as_int64() == 1);
  BOOST_TEST(started.at("replication_factor").as_int64() == 3);
  BOOST_TEST(started.at("drain_lead_s").as_int64() == 30);
  BOOST_TEST(started.at("unsafe_drain_lead_s").as_int64() == 10);
  BOOST_TEST(started.at("state_file").as_string() == "/var/lib/cassandra-lifecycle-agent/state.json");
  BOOST_TEST(started.at("config") == boost::json::value(cla::config_to_json(test_config())));
  BOOST_TEST(lines[1].at("msg").as_string() == "agent_stopped");
  BOOST_TEST(lines[1].at("reason").as_string() == "test");
}

// A stop cancels work in flight (a nodetool child, a request); what that work logs as it ends comes before
// agent_stopped, which is the last line.
BOOST_AUTO_TEST_CASE(work_the_stop_cancelled_logs_before_agent_stopped) {
  cla::LogCapture capture;
  cla::DaemonLife life(test_config(), false);
  boost::asio::steady_timer in_flight(life.io(), std::chrono::hours(1));
  life.on_stop([&] { in_flight.cancel(); });
  life.spawn([](boost::asio::steady_timer& t) -> boost::asio::awaitable<void> {
    boost::system::error_code ec;
    co_await t.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    cla::log_line(cla::LogLevel::info, "work_ended", {{"error", ec.message()}});
  }(in_flight));
  boost::asio::post(life.io(), [&] { life.request_stop("test"); });
  BOOST_TEST(life.run() == cla::kExitClean);
  const auto lines = capture.lines();
  BOOST_TEST_REQUIRE(lines.size() == 3u);
  BOOST_TEST(lines[1].at("msg").as_string() == "work_ended");
  BOOST_TEST(lines[2].at("msg").as_string() == "agent_stopped");
}

BOOST_AUTO_TEST_CASE(an_exception_escaping_the_work_is_a_fatal_error) {
  cla::LogCapture capture;
  cla::DaemonLife life(test_config(), false);
  life.spawn([]() -> boost::asio::awaitable<void> {
    throw std::runtime_error("state store exploded");
    co_return;
  }());
  BOOST_TEST(life.run() == cla::kExitFatal);
  const auto fatal = capture.lines_with_msg("fatal_error");
  BOOST_TEST_REQUIRE(fatal.size() == 1u);
  BOOST_TEST(fatal[0].at("level").as_string() == "error");
  BOOST_TEST(fatal[0].at("error").as_string() == "state store exploded");
  BOOST_TEST(capture.lines_with_msg("agent_stopped").empty());
}

BOOST_AUTO_TEST_CASE(the_run_loop_fires_the_ticks_when_due_until_a_stop) {
  cla::LogCapture capture;
  cla::DaemonLife life(test_config(), false);
  CountingTicks ticks(life);
  boost::asio::steady_timer ceiling(life.io(), std::chrono::seconds(5));  // reached only if ticks never come
  ceiling.async_wait([&](boost::system::error_code ec) {
    if (!ec) life.request_stop("ceiling");
  });
  BOOST_TEST(life.run(&ticks) == cla::kExitClean);
  BOOST_TEST_REQUIRE(ticks.fired().size() == 3u);
  for (const auto& fired : ticks.fired()) BOOST_TEST((fired.now >= fired.due));
  BOOST_TEST(capture.lines_with_msg("agent_stopped").at(0).at("reason").as_string() == "ticked");
}

BOOST_AUTO_TEST_SUITE_END()
