// Ticker: the poll loop's clock, a tick every interval on a fixed grid, at no system call per tick.
#include "agent/daemon/ticker.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <utility>

namespace cla {

namespace asio = boost::asio;

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
  // Moved out before the call: the consumer, resumed here, calls async_next again and stores its new handler.
  Waiting waiting(std::move(*waiting_));
  waiting_.reset();
  std::move(waiting)(boost::system::error_code(), due);
}

void Ticker::wait(Waiting handler) {
  if (!stopped_ && !kept_) {
    waiting_.emplace(std::move(handler));
    return;
  }
  asio::post(ex_, [this, handler = std::move(handler)]() mutable {
    if (stopped_ || !kept_) return std::move(handler)(asio::error::operation_aborted, Clock::time_point{});
    std::move(handler)(boost::system::error_code(), *std::exchange(kept_, std::nullopt));
  });
}

}  // namespace cla
