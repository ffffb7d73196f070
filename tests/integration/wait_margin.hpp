// What an integration test's wait allows beyond the quantities that set it.
#pragma once

#include <chrono>

namespace cla::test {

// Beyond the quantities that set a wait (NotBefore, poll interval, lead times, timeouts, simulator
// latencies): process starts, nodetool-sim calls and file locks on a machine whose other core is busy. A
// ceiling only: waits end as soon as their condition holds.
inline constexpr std::chrono::milliseconds kMargin{3000};

}  // namespace cla::test
