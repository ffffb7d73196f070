// imds-emulator --impact-hook PATH: plays each VM's impact on the machine by running PATH (argv, never a
// shell).
#include "imds/emulator/emulator_impact_hook.hpp"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "imds/process/process_runner.hpp"
#include "state/scheduled_event.hpp"

namespace cla {
namespace {

namespace asio = boost::asio;

constexpr std::size_t kOutputLimit = 4096;  // per stream, logged with the exit status
constexpr std::chrono::minutes kTimeoutBeyondDuration{5};

void log_outcome(std::ostream& log, const ImpactTransition& t, const std::string& vm,
                 const CommandOutcome& outcome) {
  boost::json::object line{{"impact_hook", phase_name(t.phase)},
                           {"vm", vm},
                           {"region", t.region},
                           {"event_id", t.event_id},
                           {"event_type", t.type},
                           {"exit_code", outcome.exit_code},
                           {"ok", outcome.ok()},
                           {"result", outcome.summary()},
                           {"duration_ms", outcome.duration.count()},
                           {"stdout", outcome.out},
                           {"stderr", outcome.err}};
  log << boost::json::serialize(line) << std::endl;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> impact_hook_environment(const ImpactTransition& t,
                                                                         const std::string& vm) {
  return {{"IMDS_PHASE", phase_name(t.phase)},
          {"IMDS_VM", vm},
          {"IMDS_REGION", t.region},
          {"IMDS_EVENT_ID", t.event_id},
          {"IMDS_EVENT_TYPE", t.type},
          {"IMDS_EVENT_SOURCE", t.source},
          {"IMDS_DURATION_S", std::to_string(t.duration_s)}};
}

std::chrono::milliseconds impact_hook_timeout(const ImpactTransition& t) {
  return std::chrono::seconds(std::max<std::int64_t>(t.duration_s, 0)) + kTimeoutBeyondDuration;
}

ImpactHook::ImpactHook(asio::any_io_executor executor, std::string path, std::vector<ModelVm> vms,
                       std::ostream& log)
    : executor_(std::move(executor)), path_(std::move(path)), vms_(std::move(vms)), log_(log) {}

void ImpactHook::play(const std::vector<ImpactTransition>& transitions) {
  for (const auto& t : transitions)
    for (const auto& vm : vms_) {
      const bool listed = std::any_of(t.resources.begin(), t.resources.end(),
                                      [&](const std::string& r) { return iequals(r, vm.name); });
      if (vm.region != t.region || !listed) continue;
      queues_[vm].pending.push_back(t);
      if (!queues_[vm].running) run_next(vm);
    }
}

void ImpactHook::run_next(const ModelVm& vm) {
  VmQueue& queue = queues_[vm];
  if (queue.pending.empty()) {
    queue.running = false;
    return;
  }
  queue.running = true;
  ImpactTransition t = std::move(queue.pending.front());
  queue.pending.pop_front();
  asio::co_spawn(executor_, run(std::move(t), vm), [this, vm](std::exception_ptr error) {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      log_ << boost::json::serialize(boost::json::object{
                  {"impact_hook", "error"}, {"vm", vm.name}, {"region", vm.region}, {"error", e.what()}})
           << std::endl;
    }
    run_next(vm);
  });
}

// Parameters by value: the coroutine frame owns them.
asio::awaitable<void> ImpactHook::run(ImpactTransition t, ModelVm vm) {
  std::vector<std::string> argv{path_};  // built before the co_await (GCC 12, see docs/design.md)
  auto env = impact_hook_environment(t, vm.name);
  const auto outcome =
      co_await run_command(std::move(argv), impact_hook_timeout(t), std::move(env), kOutputLimit);
  log_outcome(log_, t, vm.name, outcome);
  run_next(vm);
}

}  // namespace cla
