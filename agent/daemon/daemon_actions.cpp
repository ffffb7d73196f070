// The shell carries out the core's actions: log, persist, check safety, run steps, approve, notify.
#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <cmath>

#include "agent/daemon/daemon.hpp"
#include "agent/daemon/failpoint.hpp"
#include "agent/daemon/notification.hpp"
#include "agent/log.hpp"
#include "imds/process/process_runner.hpp"

namespace cla {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
LogLevel level_of(Severity s) {
  switch (s) {
    case Severity::debug:
      return LogLevel::debug;
    case Severity::info:
      return LogLevel::info;
    case Severity::warning:
      return LogLevel::warning;
    case Severity::error:
      return LogLevel::error;
  }
  return LogLevel::info;
}

constexpr auto kHookTimeout = 30s;

// The change a core's Step makes to the node; nullopt for the restart command and the reads.
std::optional<NodeChange> node_change_of(Step step) {
  switch (step) {
    case Step::disable_binary:
      return NodeChange::disable_binary;
    case Step::disable_gossip:
      return NodeChange::disable_gossip;
    case Step::flush:
      return NodeChange::drain;
    case Step::enable_gossip:
      return NodeChange::enable_gossip;
    case Step::enable_binary:
      return NodeChange::enable_binary;
    case Step::check_serving:
    case Step::restart_cassandra:
    case Step::confirm_restored:
      return std::nullopt;
  }
  return std::nullopt;
}
}  // namespace

namespace {
double ms_between(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}
double rounded(double ms) {
  return std::round(ms * 100) / 100;
}
}  // namespace

void Daemon::execute(Actions actions) {
  const SteadyTime issued = std::chrono::steady_clock::now();  // the core has just decided these
  bool persist_failed = false;
  bool persisted = false;
  double persist_ms = 0;
  for (auto& action : actions) {
    if (auto* line = std::get_if<LogAction>(&action)) {
      log_core(*line);
    } else if (std::holds_alternative<Persist>(action)) {
      // Every Persist of one list writes the same state (the core has already moved on): one write serves.
      if (dry_run_ || persisted) continue;
      persisted = true;
      const auto persist_started = std::chrono::steady_clock::now();
      auto saved = store_.save(core_->state());
      persist_ms = ms_between(persist_started, std::chrono::steady_clock::now());
      persist_failed = !saved.ok();
      if (persist_failed)
        log_line(LogLevel::error, "state_write_failed",
                 {{"path", store_.path()}, {"error", saved.error().message}});
    } else if (auto* approve_action = std::get_if<Approve>(&action)) {
      if (persist_failed) {
        // Never approve what is not on disk: report a retryable failure; the core asks again later.
        execute(core_->on_approval_done(approve_action->event_id,
                                        {ApprovalResult::retryable_failure, "state file not written"},
                                        clock_.now()));
        continue;
      }
      spawn(approve(approve_action->event_id, persist_ms), "approve");
    } else if (std::holds_alternative<CheckSafety>(action)) {
      spawn(check_safety(), "check_safety");
    } else if (std::holds_alternative<RefreshSchema>(action)) {
      maybe_refresh_schema("event_seen");
    } else if (auto* step = std::get_if<RunStep>(&action)) {
      spawn(run_step(*step, issued), "run_step");
    } else if (auto* n = std::get_if<Notify>(&action)) {
      notify(*n);
    } else if (auto* a = std::get_if<Admit>(&action)) {
      spawn(admit(*a), a->awaited ? "admit" : "record_drain");
    } else if (std::holds_alternative<AbandonReads>(action)) {
      abandon_reads();
    } else if (auto* abandoned = std::get_if<AbandonStep>(&action)) {
      abandon_step(abandoned->step);
    } else if (auto* c = std::get_if<CheckSharedApproval>(&action)) {
      spawn(check_shared(c->event_id), "check_shared_approval");
    } else if (std::holds_alternative<ReadStages>(action)) {
      spawn(read_stages(), "read_stages");
    } else if (std::holds_alternative<ReadCatchUp>(action)) {
      spawn(read_catch_up(), "read_catch_up");
    } else if (std::holds_alternative<ReleaseDrain>(action)) {
      if (coordinator_) spawn(coordinator_->release(), "release_drain");
    }
  }
  sync_member();
  metrics_.set_node_drained(core_->state().node.out_of_service);
  metrics_.set_repair_needed(core_->state().repair_needed);
  rearm_timer();
}

void Daemon::log_core(const LogAction& line) {
  boost::json::object fields = line.fields;
  if (dry_run_) fields["dry_run"] = true;
  if (line.msg == "drain_started") drain_timing_ = {};
  if (line.msg == "drain_completed") {
    if (drain_timing_.first_exec_ms) fields["overhead_first_exec_ms"] = rounded(*drain_timing_.first_exec_ms);
    fields["overhead_between_max_ms"] = rounded(drain_timing_.between_max_ms);
  }
  if (line.msg == "event_approved" && drain_timing_.to_approval_ms) {
    fields["overhead_to_approval_ms"] = rounded(*drain_timing_.to_approval_ms);
    fields["persist_ms"] = rounded(drain_timing_.persist_ms);
  }
  log_line(level_of(line.severity), line.msg, std::move(fields));
  count_core_line(line);
}

// The metrics that the core's log lines stand for (SPEC 11). event_seen is logged once for every event, this
// VM's or another's: only this VM's are counted. A failing restore logs restore_failed (or restart_required)
// once, then restore_retry_failed at each retry: every failed attempt counts.
void Daemon::count_core_line(const LogAction& line) {
  const std::string& m = line.msg;
  if (m == "event_seen") {
    const auto* affects = line.fields.if_contains("affects_this_node");
    if (affects && affects->is_bool() && affects->get_bool())
      metrics_.event_seen(line.fields.at("event_type").as_string());
  }
  if (m == "drain_completed") metrics_.drain("ok");
  if (m == "nodetool_failed") metrics_.drain("failed");
  if (m == "drain_forced_unsafe") metrics_.drain("forced_unsafe");
  if (m == "impact_without_drain") metrics_.impact_without_drain();
  if (m == "event_approved") metrics_.approval("ok");
  if (m == "approval_failed") metrics_.approval("failed");
  if (m == "approval_rejected") metrics_.approval("rejected");
  if (m == "approval_withheld") metrics_.approval("withheld");
  if (m == "restore_completed") metrics_.restore("ok");
  if (m == "restore_failed" || m == "restart_required" || m == "restore_retry_failed")
    metrics_.restore("failed");
  if (m == "coordination_unavailable") metrics_.coordination_unavailable();
}

void Daemon::on_node_call(const NodeCallRecord& call) {
  metrics_.nodetool_duration(call.name, std::chrono::duration<double>(call.duration).count());
  log_line(LogLevel::debug, "nodetool_ran",
           {{"subcommand", call.name},
            {"ok", call.ok},
            {"duration_ms", call.duration.count()},
            {"timeout", call.timed_out},
            {"abandoned", call.abandoned}});
  if (call.timed_out)
    log_line(LogLevel::warning, "nodetool_timed_out",
             {{"subcommand", call.name}, {"timeout", true}, {"detail", call.detail}});
  if (call.unreachable && config_.cassandra.backend == NodeBackendKind::jolokia) {
    metrics_.jolokia_unreachable();
    const auto now = std::chrono::steady_clock::now();
    if (!jolokia_unreachable_logged_ || now - *jolokia_unreachable_logged_ >= 60s) {
      jolokia_unreachable_logged_ = now;
      log_line(LogLevel::warning, "jolokia_unreachable",
               {{"call", call.name}, {"url", config_.cassandra.jolokia.url}, {"detail", call.detail}});
    }
  }
  if (call.cut_short)  // refused by the backend: a listing cut short must never read as a shorter cluster
    log_line(LogLevel::error, "nodetool_output_truncated",
             {{"subcommand", call.name}, {"detail", call.detail}});
  // What a call costs on this node now: the drain's start is planned by it until a drain was measured.
  if (call.ok && core_) core_->note_nodetool_call(call.duration);
}

void Daemon::abandon_reads() {
  ++reads_generation_;
  const std::size_t killed = node_->abandon_reads();
  if (killed > 0)
    log_line(LogLevel::warning, "reads_killed",
             {{"processes", killed}, {"reason", "a forced or emergency drain waits for no read (SPEC 3.9)"}});
}

void Daemon::abandon_step(Step step) {
  ++steps_generation_;
  const std::size_t ended = node_->abandon_steps() + restart_groups_->kill_all();
  log_line(LogLevel::warning, "step_killed",
           {{"step", to_string(step)}, {"calls", ended}, {"reason", "a drain is due (SPEC 3.9)"}});
}

asio::awaitable<void> Daemon::check_safety() {
  const std::uint64_t generation = reads_generation_;
  SafetyResult result;
  try {
    failpoint("gate_check");
    result = co_await evaluate_gate();
  } catch (const std::exception& e) {
    // The core waits for this answer: without one, every drain would wait for its forced instant. Fail
    // closed.
    log_line(LogLevel::error, "internal_error", {{"where", "check_safety"}, {"error", e.what()}});
    result = SafetyResult{false, "the gate check failed: ", {}, {}};
    result.reason.append(e.what());
  }
  if (abandoned_since(generation)) co_return;  // the core gave this check up for a more urgent drain
  if (!result.safe) metrics_.unsafe_block();
  metrics_.set_gate_verdict(result.safe ? GateVerdict::safe : GateVerdict::unsafe, WallClock::now());
  if (stopping_) co_return;
  execute(core_->on_safety(result, clock_.now()));
}

// The replica stages' completed tasks for the quiet before an approval (SPEC 3.10). A dry run drained
// nothing: it answers what a drained node shows (no task completing), so that the approval it would send is
// shown after policy.quiet_s.
asio::awaitable<void> Daemon::read_stages() {
  StagesOutcome outcome;
  if (dry_run_) {
    outcome.counts = StageCounts{};
  } else {
    auto counts = co_await node_->stage_counts();
    if (counts)
      outcome.counts = *counts;
    else
      outcome.detail = counts.error().message();
  }
  if (stopping_) co_return;
  execute(core_->on_stages(outcome, clock_.now()));
}

asio::awaitable<void> Daemon::run_step(RunStep step, SteadyTime issued) {
  const std::uint64_t generation = steps_generation_;
  StepOutcome outcome;
  const bool mutating = step.step != Step::confirm_restored && step.step != Step::check_serving;
  if (dry_run_ && step.step == Step::check_serving) {
    // The drain it did not run would have left the node not serving: show the restore that would follow.
    outcome.detail = "dry run: a drained node does not serve";
  } else if (dry_run_ && mutating) {
    log_line(LogLevel::info, "dry_run_skipped", {{"step", to_string(step.step)}, {"dry_run", true}});
    outcome.ok = true;
  } else if (step.step == Step::restart_cassandra) {
    own_host_id_.clear();  // a restarted node may come back under another identity: ask info again
    // Ends with its leader: a Cassandra it started runs on (never killed with its group after a clean exit).
    const CommandOutcome out =
        co_await run_command(config_.cassandra.restart_command, config_.cassandra.command_timeout_s, {},
                             kDefaultOutputLimit, restart_groups_, CommandEnd::leader_exit);
    outcome.ok = out.ok();
    outcome.detail = out.summary();
    outcome.timed_out = out.timed_out;
    if (!out.ok())
      log_line(LogLevel::warning, "restart_command_failed",
               {{"detail", out.summary()}, {"timeout", out.timed_out}});
  } else if (step.step == Step::confirm_restored || step.step == Step::check_serving) {
    outcome = co_await confirm_restored();
  } else if (const auto change = node_change_of(step.step)) {
    NodeChangeAttempt first, last;
    outcome = co_await run_node_step(*change, step.deadline, generation, first, last);
    time_drain_step(step.step, issued, first, last);
  }
  if (stopping_) co_return;                        // what is done is persisted; a restart resumes from there
  if (generation != steps_generation_) co_return;  // abandoned for a drain: the core moved on
  execute(core_->on_step_done(step.step, outcome, clock_.now()));
}

// The gap before a drain command's exec: from the core's decision for the first, from the previous command's
// exit for the next ones (it holds the state write between them). Logged per step, summed up on
// drain_completed.
void Daemon::time_drain_step(Step step, SteadyTime issued, const NodeChangeAttempt& first,
                             const NodeChangeAttempt& last) {
  if (step != Step::disable_binary && step != Step::disable_gossip && step != Step::flush) return;
  if (first.started == SteadyTime{}) return;
  const bool is_first = !drain_timing_.last_exit;
  const double overhead = ms_between(is_first ? issued : *drain_timing_.last_exit, first.started);
  if (is_first)
    drain_timing_.first_exec_ms = overhead;
  else
    drain_timing_.between_max_ms = std::max(drain_timing_.between_max_ms, overhead);
  drain_timing_.last_exit = last.ended;
  log_line(LogLevel::info, "drain_step_done",
           {{"step", to_string(step)},
            {"ok", last.ok},
            {"command_ms", rounded(ms_between(first.started, last.ended))},
            {is_first ? "overhead_first_exec_ms" : "overhead_since_last_exit_ms", rounded(overhead)}});
}

// One step that changes the node, retried with backoff until `deadline`; a refusal after drain ends at once.
// Each attempt is bounded by the impact too (SPEC 3.9): it is ended at `deadline` if command_timeout_s would
// let it run past it, and the first attempt gets at least kMinAttempt.
// `first` and `last` get the first and the last attempt (their start and end instants).
asio::awaitable<StepOutcome> Daemon::run_node_step(NodeChange change, WallTime deadline,
                                                   std::uint64_t generation, NodeChangeAttempt& first,
                                                   NodeChangeAttempt& last) {
  constexpr auto kMinAttempt = 1s;
  auto backoff = 1s;
  for (int attempt = 1;; ++attempt) {
    const auto to_deadline = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_.now());
    const NodeChangeAttempt out =
        co_await node_->change(change, std::max<std::chrono::milliseconds>(to_deadline, kMinAttempt));
    if (attempt == 1) first = out;
    last = out;
    if (out.ok) co_return StepOutcome{true, false, "", false};
    if (out.refused_after_drain) co_return StepOutcome{false, true, out.detail, false};
    log_line(LogLevel::warning, "nodetool_attempt_failed",
             {{"subcommand", subcommand_of(change)},
              {"attempt", attempt},
              {"detail", out.detail},
              {"timeout", out.timed_out},
              {"jmx_unreachable", out.unreachable}});
    if (stopping_ || generation != steps_generation_ || clock_.now() + backoff >= deadline)
      co_return StepOutcome{false, false, out.detail, out.timed_out};
    asio::steady_timer t(io_, backoff);
    co_await t.async_wait(asio::use_awaitable);
    if (generation != steps_generation_) co_return StepOutcome{false, false, "abandoned", false};
    backoff = std::min<std::chrono::seconds>(backoff * 2, 10s);
  }
}

asio::awaitable<StepOutcome> Daemon::confirm_restored() {
  // Part of a restore, not a read a drain may abandon.
  constexpr auto kStep = NodeBackend::Abandonable::no;
  const auto [g, b] = co_await (node_->gossip_running(kStep) && node_->binary_running(kStep));
  if (g && b && *g && *b) co_return StepOutcome{true, false, ""};
  std::string detail =
      "statusgossip: " + (g ? std::string(*g ? "running" : "not running") : g.error().detail) +
      ", statusbinary: " + (b ? std::string(*b ? "running" : "not running") : b.error().detail);
  StepOutcome failed{false, false, detail};
  if (g) failed.gossip_running = *g;
  if (b) failed.binary_running = *b;
  co_return failed;
}

asio::awaitable<void> Daemon::approve(std::string event_id, double persist_ms) {
  ApprovalOutcome outcome;
  if (drain_timing_.last_exit && !drain_timing_.to_approval_ms) {
    drain_timing_.to_approval_ms = ms_between(*drain_timing_.last_exit, std::chrono::steady_clock::now());
    drain_timing_.persist_ms = persist_ms;
  }
  if (dry_run_) {
    const EventRecord* rec = core_->record_of(event_id);
    boost::json::object fields =
        rec ? core_->event_fields(rec->event) : boost::json::object{{"event_id", event_id}};
    fields["action"] = "approve";
    fields["dry_run"] = true;
    log_line(LogLevel::info, "dry_run_skipped", std::move(fields));
  } else if (auto failure = co_await poll_client_.approve(event_id)) {
    outcome.result = failure->retryable() ? ApprovalResult::retryable_failure : ApprovalResult::rejected;
    outcome.detail = std::string(to_string(failure->kind)) + ": " + failure->detail;
  }
  if (stopping_) co_return;
  execute(core_->on_approval_done(event_id, outcome, clock_.now()));
}

// Announced in the log at once and through hooks.notify in the background; a hook never delays the drain or
// the approval, and hooks run one after another so that a pipeline sees the phases in order.
void Daemon::notify(const Notify& n) {
  Notification note{n.phase, n.event_id, n.event_type, resource_name_, n.start_time, dry_run_};
  boost::json::object fields = n.event_fields;
  fields["notification"] = to_string(n.phase);
  fields["resource"] = resource_name_;
  fields["message"] = pipe_message(note);
  if (dry_run_) fields["dry_run"] = true;  // the hooks get CLA_DRY_RUN=1; the log says it too
  log_line(LogLevel::info, "maintenance_notification", std::move(fields));
  if (config_.hooks.notify.empty()) return;
  hook_queue_.push_back(std::move(note));
  if (hooks_running_) return;
  hooks_running_ = true;
  spawn(run_hooks(), "run_hooks");
}

asio::awaitable<void> Daemon::run_hooks() {
  while (!hook_queue_.empty() && !stopping_) {
    const Notification note = std::move(hook_queue_.front());
    hook_queue_.pop_front();
    const CommandOutcome out =
        co_await run_command(config_.hooks.notify, kHookTimeout, hook_environment(note));
    if (!out.ok())
      log_line(LogLevel::warning, "notify_hook_failed",
               {{"notification", to_string(note.phase)},
                {"event_id", note.event_id},
                {"detail", out.summary()},
                {"timeout", out.timed_out}});
  }
  hooks_running_ = false;
}

}  // namespace cla
