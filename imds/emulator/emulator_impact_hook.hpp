// imds-emulator --impact-hook PATH: plays each VM's impact on the machine by running PATH (argv, never a
// shell).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "imds/emulator/emulator_events.hpp"

namespace cla {

// The hook's environment for one VM and one transition: IMDS_PHASE (start|end), IMDS_VM (as the emulator
// names it), IMDS_REGION (the VM's and the event's; "" the default region), IMDS_EVENT_ID, IMDS_EVENT_TYPE,
// IMDS_EVENT_SOURCE, IMDS_DURATION_S.
std::vector<std::pair<std::string, std::string>> impact_hook_environment(const ImpactTransition& transition,
                                                                         const std::string& vm);

// How long one run may take before it is killed: a hook may play the impact for the event's duration (a
// Freeze held for DurationInSeconds) and then start a node, so the duration plus five minutes.
std::chrono::milliseconds impact_hook_timeout(const ImpactTransition& transition);

// Runs the hook on the emulator's executor for every emulated VM of the transition's region that it lists
// (other names are other tenants' VMs). Runs for one VM are serialised in transition order (a Reboot's end
// follows its start); VMs run concurrently. Nothing here blocks the caller: each run's exit status and output
// go to `log` as one JSON line ({"impact_hook":"start","vm":...,"region":...,"exit_code":...}) when it ends;
// a failing hook is only logged.
class ImpactHook {
 public:
  ImpactHook(boost::asio::any_io_executor executor, std::string path, std::vector<ModelVm> vms,
             std::ostream& log);
  void play(const std::vector<ImpactTransition>& transitions);

 private:
  struct VmQueue {
    std::deque<ImpactTransition> pending;
    bool running = false;
  };
  void run_next(const ModelVm& vm);
  boost::asio::awaitable<void> run(ImpactTransition transition, ModelVm vm);

  boost::asio::any_io_executor executor_;
  std::string path_;
  std::vector<ModelVm> vms_;
  std::ostream& log_;
  std::map<ModelVm, VmQueue> queues_;
};

}  // namespace cla
