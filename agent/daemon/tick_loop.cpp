// The event loop with a tick driven by its own wait: io_context::run_one_until the tick's instant, no timer.
#include "agent/daemon/tick_loop.hpp"

namespace cla {

// run_one_until waits at most a second at a time (Asio caps each wait), so an interval over a second costs
// an extra wake-up a second; the tick itself still comes on time.
void run_with_ticks(boost::asio::io_context& io, TickSource& ticks) {
  while (!io.stopped()) {
    const bool ran = io.run_one_until(ticks.due()) > 0;
    if (io.stopped()) break;
    if (ran) ticks.woke();
    if (const auto now = TickSource::Clock::now(); now >= ticks.due()) ticks.fire(now);
  }
}

}  // namespace cla
