// Ticker: the poll loop's clock, a tick every interval on a fixed grid, at no system call per tick.
#include "agent/ticker.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

namespace cla {

namespace asio = boost::asio;

namespace {
constexpr auto nothrow = asio::as_tuple(asio::use_awaitable);
}  // namespace

Ticker::Ticker(asio::any_io_executor ex, std::chrono::milliseconds interval,
               std::function<void(Clock::time_point)> while_busy)
    : ex_(std::move(ex)), interval_(interval), while_busy_(std::move(while_busy)) {}

void Ticker::start() {
  if (!stopped_) due_ = Clock::now() + interval_;
}

void Ticker::stop() {
  stopped_ = true;
  due_ = Clock::time_point::max();
  kept_.reset();
  // Completed through the event loop: stop() may be called from inside the consumer.
  if (!waiting_) return;
  asio::post(ex_, [waiting = std::move(*waiting_)]() mutable {
    std::move(waiting)(asio::error::operation_aborted, Clock::time_point{});
  });
  waiting_.reset();
}

void Ticker::fire(Clock::time_point now) {
  if (stopped_ || now < due_) return;
  const auto due = due_;
  // Moved on before the consumer runs, so that whatever it does (stop() included) finds the Ticker whole.
  due_ = due + interval_;
  if (due_ <= now) due_ = now + interval_;
  if (!waiting_) {
    if (!kept_) kept_ = due;
    if (while_busy_) while_busy_(now);
    return;
  }
  // Moved out before the call: the consumer, resumed here, calls next() again and stores its new handler.
  Waiting waiting(std::move(*waiting_));
  waiting_.reset();
  std::move(waiting)(boost::system::error_code(), due);
}

asio::awaitable<std::optional<Ticker::Clock::time_point>> Ticker::next() {
  if (stopped_) co_return std::nullopt;
  if (kept_) co_return std::exchange(kept_, std::nullopt);
  auto [ec, due] =
      co_await asio::async_initiate<decltype(nothrow), void(boost::system::error_code, Clock::time_point)>(
          [this](auto handler) { waiting_.emplace(std::move(handler)); }, nothrow);
  if (ec || stopped_) co_return std::nullopt;
  co_return due;
}

}  // namespace cla
