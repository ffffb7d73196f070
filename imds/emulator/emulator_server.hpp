// imds-emulator's network side: one HTTP listener per VM plus the admin listener, on one io_context.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "imds/emulator/emulator_events.hpp"
#include "imds/emulator/emulator_options.hpp"

namespace cla {

struct EmulatorConfig {
  std::vector<VmOption> vms;
  ListenAddress admin;
  std::chrono::milliseconds first_call_delay{0};
  std::string impact_hook;  // empty: none; else run for each listed VM at each impact transition
  SharedApproval shared_approval = SharedApproval::any;
  bool close_after_answer = false;  // VM listeners end each connection after one answer
};

// Binds every listener, writes one JSON line per listener to `announce` (then flushes):
//   {"listening":"vm","vm":"vm0","region":"","address":"127.0.0.1:41234"}
//   {"listening":"admin","address":"..."}
// and serves until SIGTERM or SIGINT. Returns 0 after a signal, 1 when a listener cannot be bound (the
// reason is written to `errors`). Events advance every 100 ms and before every request. The impact hook's
// runs are logged to `errors`, one JSON line each.
int run_emulator(const EmulatorConfig& config, std::ostream& announce, std::ostream& errors);

}  // namespace cla
