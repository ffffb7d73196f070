// Ticker: ticks on a fixed grid from the run loop (no timer), resumes a waiting consumer inside fire()
// itself, keeps one tick for a busy consumer and reports it, resumes the grid from now after a stall, and
// ends a waiting async_next on stop().
#include "agent/daemon/ticker.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/test/unit_test.hpp>
#include <optional>
#include <vector>

namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using Clock = cla::Ticker::Clock;
constexpr auto kInterval = 100ms;
constexpr auto kCeiling = 5s;  // a generous bound on the whole test: only reached when ticks stop coming

// Runs the loop as the daemon does, until the consumer stops `io` or the ceiling passes.
void run(asio::io_context& io, cla::TickSource& ticks) {
  asio::steady_timer ceiling(io, kCeiling);
  ceiling.async_wait([&](boost::system::error_code ec) {
    if (!ec) io.stop();
  });
  cla::run_with_ticks(io, ticks);
}

// The next tick's scheduled instant, or nullopt once the ticker is stopped.
asio::awaitable<std::optional<Clock::time_point>> next_tick(cla::Ticker& ticker) {
  auto [ec, due] = co_await ticker.async_next(asio::as_tuple(asio::use_awaitable));
  if (ec) co_return std::nullopt;
  co_return due;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ticker_test)

BOOST_AUTO_TEST_CASE(ticks_come_on_the_grid_one_interval_apart) {
  asio::io_context io;
  cla::Ticker ticker(io.get_executor(), kInterval);
  std::vector<Clock::time_point> dues;
  std::vector<Clock::time_point> seen_at;
  const auto started = Clock::now();
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        ticker.start();
        while (dues.size() < 4) {
          const auto due = co_await next_tick(ticker);
          if (!due) break;
          dues.push_back(*due);
          seen_at.push_back(Clock::now());
        }
        io.stop();
      },
      asio::detached);
  run(io, ticker);
  BOOST_TEST_REQUIRE(dues.size() == 4u);
  BOOST_TEST((dues[0] >= started + kInterval));
  for (std::size_t i = 0; i < dues.size(); ++i) {
    BOOST_TEST((seen_at[i] >= dues[i]));
    if (i > 0) BOOST_TEST((dues[i] - dues[i - 1] == kInterval));
  }
}

// Nothing goes through the event loop between the tick and the consumer: it has run when fire() returns.
BOOST_AUTO_TEST_CASE(a_tick_resumes_the_waiting_consumer_inside_fire) {
  asio::io_context io;
  cla::Ticker ticker(io.get_executor(), kInterval);
  std::vector<Clock::time_point> dues;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        ticker.start();
        for (;;) {
          const auto due = co_await next_tick(ticker);
          if (!due) break;
          dues.push_back(*due);
        }
      },
      asio::detached);
  io.poll();  // the consumer starts the ticker and waits in next()
  const auto due = ticker.due();
  ticker.fire(due - 1ms);  // not yet due: nothing
  BOOST_TEST(dues.empty());
  ticker.fire(due);
  BOOST_TEST_REQUIRE(dues.size() == 1u);
  BOOST_TEST((dues[0] == due));
  BOOST_TEST((ticker.due() == due + kInterval));
  ticker.stop();
  io.poll();
}

// The consumer is busy for three intervals: it gets the first tick it missed at once, with its grid instant,
// then the grid goes on; every tick that found it busy was reported.
BOOST_AUTO_TEST_CASE(a_busy_consumer_gets_one_kept_tick_and_each_missed_tick_is_reported) {
  asio::io_context io;
  std::vector<Clock::time_point> reported;
  cla::Ticker ticker(io.get_executor(), kInterval, [&](Clock::time_point now) { reported.push_back(now); });
  std::vector<Clock::time_point> dues;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        ticker.start();
        const auto first = co_await next_tick(ticker);
        dues.push_back(*first);
        asio::steady_timer busy(io, 3 * kInterval + kInterval / 2);
        co_await busy.async_wait(asio::use_awaitable);
        for (int i = 0; i < 2; ++i) dues.push_back(*co_await next_tick(ticker));
        io.stop();
      },
      asio::detached);
  run(io, ticker);
  BOOST_TEST_REQUIRE(dues.size() == 3u);
  BOOST_TEST((dues[1] == dues[0] + kInterval));  // kept from while busy
  BOOST_TEST((dues[2] >= dues[0] + 4 * kInterval));
  BOOST_TEST(reported.size() >= 3u);
}

// A tick that comes late (a suspended process) does not start a burst to catch up: the next is one interval
// after it.
BOOST_AUTO_TEST_CASE(after_a_stall_the_grid_resumes_from_now) {
  asio::io_context io;
  cla::Ticker ticker(io.get_executor(), kInterval);
  ticker.start();
  const auto late = ticker.due() + 5 * kInterval + kInterval / 3;
  ticker.fire(late);
  BOOST_TEST((ticker.due() == late + kInterval));
}

BOOST_AUTO_TEST_CASE(stop_ends_a_waiting_next_with_nullopt_and_the_ticks) {
  asio::io_context io;
  cla::Ticker ticker(io.get_executor(), 1h);
  std::optional<std::optional<Clock::time_point>> got;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        ticker.start();
        got = co_await next_tick(ticker);
        io.stop();
      },
      asio::detached);
  asio::steady_timer stopper(io, 0ms);
  stopper.async_wait([&](boost::system::error_code) { ticker.stop(); });
  run(io, ticker);
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(!got->has_value());
  BOOST_TEST((ticker.due() == Clock::time_point::max()));
}

BOOST_AUTO_TEST_SUITE_END()
