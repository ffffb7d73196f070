// LoopWake: a coroutine waits for the event loop's next wake-up; whoever runs the loop resumes it in place.
#include "imds/transport/loop_wake.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

namespace cla {

namespace asio = boost::asio;

LoopWake::LoopWake(asio::any_io_executor ex) : ex_(std::move(ex)) {}

void LoopWake::woke() {
  if (!waiting_) return;
  // Moved out before the call: the resumed reader may wait again and store its new handler.
  Waiting waiting(std::move(*waiting_));
  waiting_.reset();
  std::move(waiting)(boost::system::error_code());
}

void LoopWake::cancel() {
  if (!waiting_) return;
  asio::post(ex_, [waiting = std::move(*waiting_)]() mutable {
    std::move(waiting)(asio::error::operation_aborted);
  });
  waiting_.reset();
}

}  // namespace cla
