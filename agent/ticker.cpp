// Ticker: the poll loop's clock, a tick every interval on a fixed grid, at no system call per tick.
#include "agent/ticker.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace cla {

namespace asio = boost::asio;

Ticker::Ticker(asio::any_io_executor ex, std::chrono::milliseconds interval)
    : interval_(interval), timers_{asio::steady_timer(ex), asio::steady_timer(ex)}, ticks_(ex, 1) {}

void Ticker::start() {
  const auto now = Clock::now();
  arm(0, now + interval_);
  arm(1, now + 2 * interval_);
}

void Ticker::stop() {
  stopped_ = true;
  for (auto& timer : timers_) timer.cancel();
  ticks_.close();
}

void Ticker::arm(std::size_t which, Clock::time_point at) {
  auto& timer = timers_[which];
  timer.expires_at(at);
  timer.async_wait([this, which](const boost::system::error_code& ec) {
    if (ec || stopped_) return;
    const auto due = timers_[which].expiry();
    ticks_.try_send(boost::system::error_code(), due);  // dropped when one is already waiting
    // Two ticks on; after a stall (a suspended process) the grid resumes from now rather than catching up.
    auto again = due + 2 * interval_;
    if (const auto now = Clock::now(); again <= now) again = now + interval_;
    arm(which, again);
  });
}

asio::awaitable<std::optional<Ticker::Clock::time_point>> Ticker::next() {
  auto [ec, due] = co_await ticks_.async_receive(asio::as_tuple(asio::use_awaitable));
  if (ec || stopped_) co_return std::nullopt;
  co_return due;
}

}  // namespace cla
