// The shell's life: start-up, the IMDS poll loop, the core's wake-up timer, and a clean stop.
#include "agent/daemon/daemon.hpp"

#include <unistd.h>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "agent/config/config_cassandra.hpp"
#include "agent/daemon/systemd_notify.hpp"
#include "agent/http/http_endpoint.hpp"
#include "agent/http/http_exposure.hpp"
#include "agent/log.hpp"
#include "cassandra/jolokia/jolokia_backend.hpp"
#include "cassandra/nodetool/nodetool_backend.hpp"
#include "state/state_codec.hpp"
#include "state/state_location.hpp"

namespace cla {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using namespace boost::asio::experimental::awaitable_operators;

namespace {
ImdsClientOptions imds_options(const Config& c) {
  ImdsClientOptions o;
  o.endpoint = c.imds.endpoint;
  o.api_version = c.imds.api_version;
  o.request_timeout = c.imds.request_timeout_ms;
  return o;
}
// The poll's GET has no timer of its own: the ticks, which run anyway, end it when it is overdue (SPEC 4, the
// idle poll's system calls). A tick ends a GET whose deadline falls before the middle of the next interval,
// so request_timeout_ms holds to within half a poll interval. Nor does it start an Asio read: the run loop's
// wake-ups read the answer (DaemonDriver).
ImdsClientOptions poll_options(const Config& c) {
  ImdsClientOptions o = imds_options(c);
  o.deadline_watch = DeadlineWatch::caller;
  o.answer_watch = AnswerWatch::caller;
  return o;
}
constexpr auto kImdsErrorLogEvery = 60s;

// The backend cassandra.backend names. The config's load checked the Jolokia options already (the same
// function): failing now means the password file changed since, a fatal error at start.
std::unique_ptr<NodeBackend> make_node_backend(asio::io_context& io, const CassandraConfig& c,
                                               NodeCallObserver observer) {
  if (c.backend == NodeBackendKind::nodetool) {
    // Tests point CLA_PROC_DIR at a process list of their own (the JVMs whose arguments are read).
    const char* proc = std::getenv("CLA_PROC_DIR");
    return std::make_unique<NodetoolBackend>(c.nodetool, c.command_timeout_s, std::move(observer),
                                             proc ? proc : "/proc");
  }
  auto options = jolokia_options(c.jolokia);
  if (!options) throw std::runtime_error("cassandra.jolokia: " + options.error().message);
  return std::make_unique<JolokiaBackend>(io.get_executor(), *options, c.command_timeout_s,
                                          std::move(observer));
}
}  // namespace

Daemon::Daemon(asio::io_context& io, Config config, bool dry_run)
    : io_(io),
      config_(std::move(config)),
      dry_run_(dry_run),
      poll_client_(io.get_executor(), poll_options(config_)),
      compute_client_(std::in_place, io.get_executor(), imds_options(config_)),
      node_(make_node_backend(io, config_.cassandra,
                              [this](const NodeCallRecord& call) { on_node_call(call); })),
      store_(config_.state_file),
      fleet_read_done_(io),
      refresh_done_(io, std::chrono::steady_clock::time_point::max()),
      poll_timer_(io),
      ticker_(io.get_executor(), config_.imds.poll_interval_ms,
              [this](Ticker::Clock::time_point now) {
                poll_client_.expire_overdue(now + config_.imds.poll_interval_ms / 2);
              }),
      wake_timer_(io),
      driver_(ticker_, poll_client_) {}

void Daemon::spawn(asio::awaitable<void> coroutine, const char* what) {
  asio::co_spawn(io_, std::move(coroutine), [what](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      log_line(LogLevel::error, "internal_error", {{"where", what}, {"error", ex.what()}});
    }
  });
}

asio::awaitable<int> Daemon::run() {
  // Before anything waits on IMDS: a state directory another user can write to is refused (SPEC 2.6).
  if (auto place = check_state_location(store_.path(), ::geteuid()); !place) {
    log_line(LogLevel::error, "state_file_unsafe",
             {{"path", store_.path()}, {"error", place.error().message}});
    co_return 1;
  }
  if (!co_await resolve_identity()) co_return stopping_ ? 0 : 1;

  auto loaded = store_.load(WallClock::now(), !dry_run_);
  if (!loaded) {
    log_line(LogLevel::error, "state_file_unreadable",
             {{"path", store_.path()}, {"error", loaded.error().message}});
    co_return 1;
  }
  if (loaded->kind == LoadedState::Kind::corrupt)
    log_line(LogLevel::error, "state_file_corrupt",
             {{"path", store_.path()}, {"problem", loaded->problem}, {"moved_to", loaded->moved_to}});
  const StateSource source = loaded->kind == LoadedState::Kind::loaded    ? StateSource::loaded
                             : loaded->kind == LoadedState::Kind::corrupt ? StateSource::corrupt
                                                                          : StateSource::missing;
  CorePolicy& policy = policy_;
  policy.resource_name = resource_name_;
  policy.drain_lead = config_.policy.drain_lead_s;
  policy.unsafe_drain_lead = config_.policy.unsafe_drain_lead_s;
  policy.unsafe_recheck = config_.policy.unsafe_recheck_s;
  policy.quiet = config_.policy.quiet_s;
  policy.catch_up_min = config_.policy.catch_up_min_s;
  policy.catch_up_max = config_.policy.catch_up_max_s;
  policy.no_impact_freeze_max_s = config_.policy.no_impact_freeze_max_s.count();
  policy.hold_between_events = config_.policy.hold_between_events_s;
  policy.approve_user_events = config_.policy.approve_user_events;
  policy.approve_shared_events = config_.policy.approve_shared_events;
  policy.flush_before_restart = config_.policy.flush_before_restart;
  policy.has_restart_command = !config_.cassandra.restart_command.empty();
  if (!start_coordination(policy)) co_return 1;
  // Built now, started (Core::start) once the node was observed: until then the endpoint reads the loaded
  // state.
  core_.emplace(policy, std::move(loaded->state));

  // IMDS polling and /healthz start at once (SPEC 3.9): the node's observation runs beside them, so a hung
  // JMX never hides an event; the core starts once it is over, or given up for an event that cannot wait.
  if (!config_.http.listen.empty()) {
    EndpointSources sources;
    sources.poll_interval = config_.imds.poll_interval_ms;
    sources.last_poll_success = [this] { return last_poll_success_; };
    metrics_.set_sources(
        {[this] { return event_series(); }, [this] { return to_string(core_->member_phase()); }});
    sources.metrics_text = [this] { return metrics_.serialize(WallClock::now()); };
    sources.state_json = [this] { return state_json(); };
    auto opened =
        HttpEndpoint::open(io_.get_executor(), config_.http.listen, make_http_handler(std::move(sources)));
    if (!opened) {
      log_line(LogLevel::error, "http_listen_failed",
               {{"listen", config_.http.listen}, {"error", opened.error().message}});
      co_return 1;
    }
    http_ = std::move(opened).value();
    http_->start();
    const auto bound = http_->local_endpoint();
    log_line(LogLevel::info, "http_listening",
             {{"address", bound.address().to_string()}, {"port", bound.port()}});
    if (auto exposed = exposure_warning(config_.http.listen, bound))
      log_line(LogLevel::warning, "http_listen_exposed", std::move(*exposed));
  }

  systemd::ready();
  if (const auto interval = systemd::watchdog_interval()) {
    const auto period = *interval / 2;
    if (period >= config_.imds.poll_interval_ms)
      driver_.ping_watchdog_every(period);
    else
      spawn(watchdog_loop(period), "watchdog_loop");
  }
  spawn(start_core(source), "start_core");
  co_await poll_loop();
  co_return 0;
}

// The start-up's observation (statusgossip and statusbinary; info too when coordinated), then the core with
// the documents polled meanwhile. A document with an event that cannot wait gives the observation up
// (hold_document): the core then starts with the node's status unknown.
asio::awaitable<void> Daemon::start_core(StateSource source) {
  StartupInfo info;
  if (coordinator_)
    info = co_await (observe_node(source) && read_identity());
  else
    info = co_await observe_node(source);
  // Stopped while the node's status was asked: nothing is decided, and nothing logged after agent_stopped.
  if (stopping_) co_return;
  core_started_ = true;
  execute(core_->start(info, clock_.now()));
  if (held_document_) execute(core_->on_document(*held_document_, clock_.now()));
  held_document_.reset();
  maybe_refresh_schema("start");  // after the core: not while a drain it resumed or began is under way
  spawn(timer_loop(), "timer_loop");
  spawn(check_shutdown_announce(), "check_shutdown_announce");
}

// A document polled before the core started: kept for it (the last one wins), and an event that cannot wait
// for the observation ends it.
void Daemon::hold_document(EventsDocument doc) {
  const WallTime now = clock_.now();
  if (!startup_abandoned_)
    for (const ScheduledEvent& event : doc.events) {
      if (!drains_without_waiting(event, policy_, now)) continue;
      startup_abandoned_ = true;
      log_line(LogLevel::warning, "startup_observation_abandoned",
               {{"event_id", event.id},
                {"event_type", event.type},
                {"event_status", event.status_text},
                {"reason", "an event that cannot wait: the core starts with the node's status unknown"}});
      abandon_reads();
      break;
    }
  // Seen within a poll even while the observation hangs: logged, counted, in /state (SPEC 3.9).
  execute(core_->note_before_start(doc, now));
  held_document_ = std::move(doc);
}

void Daemon::stop() {
  if (stopping_) return;
  stopping_ = true;
  systemd::stopping();
  poll_timer_.cancel();
  ticker_.stop();
  wake_timer_.cancel();
  refresh_done_.cancel();
  fleet_read_done_.cancel();
  poll_client_.cancel();
  if (compute_client_) compute_client_->cancel();
  if (http_) http_->stop();
}

asio::awaitable<void> Daemon::poll_loop() {
  ticker_.start();
  while (!stopping_) {
    const auto started = std::chrono::steady_clock::now();
    auto result = co_await poll_client_.get_scheduled_events();
    if (stopping_) break;
    if (result) {
      metrics_.imds_request("ok");
      last_poll_success_ = WallClock::now();
      metrics_.set_last_poll_success(
          std::chrono::duration<double>(last_poll_success_->time_since_epoch()).count());
      if (poll_failures_ > 0) log_line(LogLevel::info, "imds_recovered", {{"failed_polls", poll_failures_}});
      poll_failures_ = 0;
      failures_since_logged_ = 0;
      last_failure_kind_.clear();
      throttle_backoff_ = 0ms;
      EventsDocument doc = std::move(result).value();
      if (const auto step = clock_.observe_step())
        log_line(
            LogLevel::warning, "clock_stepped",
            {{"step_ms", step->count()},
             {"note",
              "the wall clock moved; the core's timers and measured durations run on the monotonic clock, "
              "and NotBefore is read against the new wall clock from now on"}});
      observe_neighbours(doc.events);
      if (coordinator_ && core_started_ && !watching_ && watch_due()) spawn(watch(), "watcher");
      clock_.convert(doc);  // NotBefore into the core's time, at each sighting
      if (core_started_)
        execute(core_->on_document(doc, clock_.now()));
      else
        hold_document(std::move(doc));
    } else {
      on_poll_failed(result.error());
    }
    // Throttled: the ticks within the back-off are skipped.
    const auto resume_at = started + throttle_backoff_;
    for (;;) {
      const auto [ended, tick] = co_await ticker_.async_next(asio::as_tuple(asio::use_awaitable));
      if (ended) co_return;
      if (tick >= resume_at) break;
    }
  }
}

// A failed poll is counted and logged (rate-limited); it never reaches the core as "events removed".
void Daemon::on_poll_failed(const ImdsFailure& failure) {
  const std::string kind(to_string(failure.kind));
  metrics_.imds_request(kind);
  ++poll_failures_;
  if (failure.kind == ImdsFailure::Kind::throttled)
    throttle_backoff_ = std::min<std::chrono::milliseconds>(
        std::max<std::chrono::milliseconds>(throttle_backoff_ * 2, 1s), 30s);
  const WallTime now = WallClock::now();
  const bool new_kind = kind != last_failure_kind_;
  if (new_kind || !last_failure_logged_ || now - *last_failure_logged_ >= kImdsErrorLogEvery) {
    log_line(LogLevel::warning, "imds_error",
             {{"kind", kind},
              {"http_status", failure.http_status},
              {"detail", failure.detail},
              {"consecutive_failures", poll_failures_},
              {"suppressed", failures_since_logged_}});
    last_failure_logged_ = now;
    last_failure_kind_ = kind;
    failures_since_logged_ = 0;
  } else {
    ++failures_since_logged_;
  }
}

// When the ticks come more often than WatchdogSec/2 (the usual case), they ping (DaemonDriver). Otherwise
// pinged from its own timer on the event loop: a poll may legitimately wait minutes (the first IMDS call
// after boot), while a wedged loop stops the pings and systemd restarts the agent.
asio::awaitable<void> Daemon::watchdog_loop(std::chrono::microseconds period) {
  asio::steady_timer timer(io_);
  while (!stopping_) {
    systemd::watchdog();
    timer.expires_after(period);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
}

asio::awaitable<void> Daemon::timer_loop() {
  while (!stopping_) {
    wake_timer_.expires_at(wake_at_);
    boost::system::error_code ec;
    co_await wake_timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_) break;
    if (!ec) {
      wake_at_ = std::chrono::steady_clock::time_point::max();
      execute(core_->on_timer(clock_.now()));
    }
  }
}

// The core's time runs with the steady clock (CoreClock): its wake-up converts to a steady instant exactly.
void Daemon::rearm_timer() {
  const WallTime core_now = clock_.now();
  const auto next = core_->next_wakeup(core_now);
  const auto at = next ? std::chrono::steady_clock::now() +
                             std::chrono::duration_cast<std::chrono::steady_clock::duration>(*next - core_now)
                       : std::chrono::steady_clock::time_point::max();
  if (at == wake_at_) return;
  wake_at_ = at;
  wake_timer_.cancel();  // the timer loop wakes with operation_aborted and waits for the new instant
}

// The per-event series (SPEC 11): the pending events that list this VM, read at each scrape.
std::vector<EventSeries> Daemon::event_series() const {
  std::vector<EventSeries> out;
  for (const auto& [key, rec] : core_->state().events)
    if (rec.plan != EventPlan::other_vm)
      out.push_back(
          {rec.event.id, rec.event.type, rec.event.status, rec.event.source,
           rec.event.not_before ? std::optional(clock_.to_wall(*rec.event.not_before)) : std::nullopt});
  return out;
}

std::string Daemon::state_json() const {
  boost::json::object o = encode_state(core_->state()).as_object();
  o["starting"] = !core_started_;  // the start-up observation is under way: the state is as loaded
  o["resource_name"] = resource_name_;
  o["fault_domain"] = fault_domain_;
  o["dry_run"] = dry_run_;
  o["busy"] = core_->busy();
  o["phase"] = to_string(core_->member_phase());
  const auto held = core_->binary_held_since();
  o["binary_held_since"] = held ? boost::json::value(format_rfc3339_ms(clock_.to_wall(*held))) : nullptr;
  o["last_poll_success_ms"] = last_poll_success_
                                  ? boost::json::value(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                           last_poll_success_->time_since_epoch())
                                                           .count())
                                  : boost::json::value(nullptr);
  return boost::json::serialize(o);
}

}  // namespace cla
