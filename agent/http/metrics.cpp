// Prometheus metrics of the agent: families registered once, series created on first use; the per-event,
// phase and process_* families are built at each scrape from what they describe then.
#include "agent/http/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <initializer_list>

#include "agent/http/process_metrics.hpp"

namespace cla {
namespace {

using prometheus::ClientMetric;
using prometheus::Counter;
using prometheus::Family;
using prometheus::MetricFamily;
using prometheus::MetricType;

Family<Counter>& counter_family(prometheus::Registry& registry, const std::string& name,
                                const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

Family<prometheus::Gauge>& gauge_family(prometheus::Registry& registry, const std::string& name,
                                        const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

// Series that always exist, so dashboards and alerts see a 0 before the first occurrence.
void preset(Family<Counter>& family, const std::string& label, std::initializer_list<const char*> values) {
  for (const char* value : values) family.Add({{label, value}});
}

bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Nodetool runs from a few tens of milliseconds (status flags) to minutes (drain on a busy node).
const prometheus::Histogram::BucketBoundaries kNodetoolBuckets{0.05, 0.1, 0.25, 0.5, 1,  2.5,
                                                               5,    10,  20,   30,  60, 120};

constexpr std::array<const char*, 5> kPhases{"serving", "draining", "drained", "restoring", "catching_up"};

const char* verdict_label(GateVerdict v) {
  switch (v) {
    case GateVerdict::safe:
      return "safe";
    case GateVerdict::unsafe:
      return "unsafe";
    case GateVerdict::none:
      break;
  }
  return "none";
}

double unix_seconds(WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

MetricFamily family(std::string name, std::string help, MetricType type) {
  MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

ClientMetric gauge(double value, std::vector<ClientMetric::Label> labels = {}) {
  ClientMetric m;
  m.label = std::move(labels);
  m.gauge.value = value;
  return m;
}

void add_event_families(const std::vector<EventSeries>& events, WallTime now,
                        std::vector<MetricFamily>& out) {
  auto info =
      family("cla_event_info",
             "1 for each pending scheduled event that lists this VM, with its type, status and source",
             MetricType::Gauge);
  auto not_before =
      family("cla_event_not_before_timestamp_seconds",
             "NotBefore of each pending scheduled event of this VM (Unix time; none once Started)",
             MetricType::Gauge);
  auto to_not_before =
      family("cla_event_seconds_to_not_before",
             "Seconds from the scrape to the NotBefore of each pending scheduled event of this "
             "VM (negative once past; none once Started)",
             MetricType::Gauge);
  std::size_t n = 0;
  for (const EventSeries& e : events) {
    if (n++ == Metrics::kMaxEventSeries) break;
    const std::string id = event_id_label(e.event_id);
    info.metric.push_back(gauge(1, {{"event_id", id},
                                    {"source", source_name(e.source)},
                                    {"status", status_name(e.status)},
                                    {"type", std::string(event_type_label(e.type))}}));
    if (!e.not_before) continue;
    not_before.metric.push_back(gauge(unix_seconds(*e.not_before), {{"event_id", id}}));
    to_not_before.metric.push_back(
        gauge(std::chrono::duration<double>(*e.not_before - now).count(), {{"event_id", id}}));
  }
  out.push_back(std::move(info));
  out.push_back(std::move(not_before));
  out.push_back(std::move(to_not_before));
}

void add_phase_family(std::string_view phase, std::vector<MetricFamily>& out) {
  auto f = family(
      "cla_node_phase",
      "1 for the node's current phase (serving, draining, drained, restoring, catching_up), 0 for the others",
      MetricType::Gauge);
  for (const char* p : kPhases) f.metric.push_back(gauge(phase == p ? 1 : 0, {{"phase", p}}));
  out.push_back(std::move(f));
}

void add_process_families(std::vector<MetricFamily>& out) {
  const ProcessStats s = read_process_stats();
  auto add = [&](const char* name, const char* help, MetricType type, double value) {
    auto f = family(name, help, type);
    ClientMetric m;
    if (type == MetricType::Counter)
      m.counter.value = value;
    else
      m.gauge.value = value;
    f.metric.push_back(m);
    out.push_back(std::move(f));
  };
  add("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", MetricType::Counter,
      s.cpu_seconds);
  add("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
      s.resident_memory_bytes);
  add("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
      s.virtual_memory_bytes);
  add("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
      MetricType::Gauge, s.start_time_seconds);
  if (s.open_fds) add("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, *s.open_fds);
  if (s.max_fds)
    add("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge, *s.max_fds);
}

}  // namespace

std::string_view event_type_label(std::string_view type) {
  static constexpr std::array<std::string_view, 5> known{"Freeze", "Reboot", "Redeploy", "Preempt",
                                                         "Terminate"};
  for (std::string_view k : known)
    if (ascii_iequals(k, type)) return k;
  return "other";
}

std::string event_id_label(std::string_view id) {
  std::string out(id.substr(0, 64));
  for (char& c : out) {
    const bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.';
    if (!keep) c = '_';
  }
  return out;
}

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      imds_requests_(
          counter_family(*registry_, "cla_imds_requests_total", "IMDS Scheduled Events requests by result")),
      events_seen_(counter_family(*registry_, "cla_events_seen_total",
                                  "Scheduled events that list this VM, first seen, by type")),
      drains_(counter_family(*registry_, "cla_drains_total", "Node drains by result")),
      approvals_(counter_family(*registry_, "cla_approvals_total", "Event approvals by result")),
      restores_(counter_family(*registry_, "cla_restores_total",
                               "Node restore attempts by result (every failed attempt, retries included)")),
      node_drained_(gauge_family(*registry_, "cla_node_drained",
                                 "1 while the agent holds the Cassandra node out of service")
                        .Add({})),
      repair_needed_(
          gauge_family(*registry_, "cla_repair_needed",
                       "1 while the node's last restore came after max_hint_window: it lost hints, "
                       "run a repair")
              .Add({})),
      unsafe_blocks_(counter_family(*registry_, "cla_unsafe_blocks_total",
                                    "Safety-gate checks that held a drain back (unsafe), one per check")
                         .Add({})),
      gate_verdict_(gauge_family(*registry_, "cla_gate_verdict",
                                 "1 for the replication-safety gate's last verdict (none before its first "
                                 "check, safe, unsafe), 0 for the others")),
      gate_checked_at_(gauge_family(*registry_, "cla_gate_last_check_timestamp_seconds",
                                    "Unix time of the replication-safety gate's last verdict (0: none yet)")
                           .Add({})),
      impact_without_drain_(counter_family(*registry_, "cla_impact_without_drain_total",
                                           "Events that started while the node was not drained for them")
                                .Add({})),
      coordination_unavailable_(
          counter_family(*registry_, "cla_coordination_unavailable_total",
                         "Times etcd could not be reached for a drain admission or a shared approval "
                         "(coordinated mode; logged coordination_unavailable, at most once a minute)")
              .Add({})),
      jolokia_unreachable_(
          counter_family(
              *registry_, "cla_jolokia_unreachable_total",
              "Calls to the node's Jolokia agent that found no connection (cassandra.backend jolokia; "
              "logged jolokia_unreachable, at most once a minute)")
              .Add({})),
      watcher_role_(
          gauge_family(*registry_, "cla_watcher_role",
                       "1 for this agent's watcher role (leader, secondary, none), 0 for the others "
                       "(coordinated mode)")),
      agentless_impacts_(
          counter_family(*registry_, "cla_agentless_impacts_total",
                         "Events of VMs without a live agent that this agent, as the watcher's "
                         "leader, recorded as agentless drains (logged agentless_impact)")
              .Add({})),
      unprotectable_keyspaces_(gauge_family(*registry_, "cla_unprotectable_keyspaces",
                                            "Keyspaces that cannot meet the consistency level without this "
                                            "node, left out of the safety gate's verdict")
                                   .Add({})),
      nodetool_seconds_(prometheus::BuildHistogram()
                            .Name("cla_nodetool_duration_seconds")
                            .Help("Duration of nodetool commands by subcommand")
                            .Register(*registry_)),
      last_poll_success_(gauge_family(*registry_, "cla_last_successful_poll_timestamp_seconds",
                                      "Unix time of the last successful IMDS poll (0: none yet)")
                             .Add({})),
      node_info_(gauge_family(*registry_, "cla_node_info",
                              "1, labelled with this agent's VM, fault domain and the rack it maps to")),
      imds_ok_(imds_requests_.Add({{"result", "ok"}})) {
  preset(imds_requests_, "result",
         {"ok", "connect", "timeout", "http_429", "http_5xx", "http_status", "invalid_json", "wrong_shape"});
  preset(events_seen_, "type", {"Freeze", "Reboot", "Redeploy", "Preempt", "Terminate", "other"});
  preset(drains_, "result", {"ok", "failed", "forced_unsafe"});
  preset(approvals_, "result", {"ok", "failed", "rejected", "withheld"});
  preset(restores_, "result", {"ok", "failed"});
  for (GateVerdict v : {GateVerdict::none, GateVerdict::safe, GateVerdict::unsafe})
    gate_verdict_.Add({{"verdict", verdict_label(v)}}).Set(v == GateVerdict::none ? 1 : 0);
  gauge_family(*registry_, "cla_build_info", "1, labelled with the agent's version")
      .Add({{"version", CLA_VERSION}})
      .Set(1);
}

Metrics::~Metrics() = default;

void Metrics::set_sources(MetricsSources sources) {
  sources_ = std::move(sources);
}

void Metrics::set_node_info(const std::string& vm, int fault_domain, const std::string& rack) {
  node_info_.Add({{"vm", vm}, {"fault_domain", std::to_string(fault_domain)}, {"rack", rack}}).Set(1);
}

// Every idle poll counts an "ok": that counter is kept rather than looked up by its labels each second.
void Metrics::imds_request(std::string_view result) {
  if (result == "ok") return imds_ok_.Increment();
  imds_requests_.Add({{"result", std::string(result)}}).Increment();
}

void Metrics::event_seen(std::string_view type) {
  events_seen_.Add({{"type", std::string(event_type_label(type))}}).Increment();
}

void Metrics::drain(std::string_view result) {
  drains_.Add({{"result", std::string(result)}}).Increment();
}

void Metrics::approval(std::string_view result) {
  approvals_.Add({{"result", std::string(result)}}).Increment();
}

void Metrics::restore(std::string_view result) {
  restores_.Add({{"result", std::string(result)}}).Increment();
}

void Metrics::set_node_drained(bool drained) {
  node_drained_.Set(drained ? 1 : 0);
}

void Metrics::set_repair_needed(bool needed) {
  repair_needed_.Set(needed ? 1 : 0);
}

void Metrics::unsafe_block() {
  unsafe_blocks_.Increment();
}

void Metrics::set_gate_verdict(GateVerdict verdict, WallTime at) {
  for (GateVerdict v : {GateVerdict::none, GateVerdict::safe, GateVerdict::unsafe})
    gate_verdict_.Add({{"verdict", verdict_label(v)}}).Set(v == verdict ? 1 : 0);
  gate_checked_at_.Set(unix_seconds(at));
}

void Metrics::impact_without_drain() {
  impact_without_drain_.Increment();
}

void Metrics::coordination_unavailable() {
  coordination_unavailable_.Increment();
}

void Metrics::jolokia_unreachable() {
  jolokia_unreachable_.Increment();
}

void Metrics::set_watcher_role(std::string_view role) {
  for (std::string_view r : {"leader", "secondary", "none"})
    watcher_role_.Add({{"role", std::string(r)}}).Set(r == role ? 1 : 0);
}

void Metrics::agentless_impact() {
  agentless_impacts_.Increment();
}

void Metrics::set_unprotectable_keyspaces(std::size_t count) {
  unprotectable_keyspaces_.Set(static_cast<double>(count));
}

void Metrics::nodetool_duration(std::string_view subcommand, double seconds) {
  nodetool_seconds_.Add({{"subcommand", std::string(subcommand)}}, kNodetoolBuckets).Observe(seconds);
}

void Metrics::set_last_poll_success(double unix_s) {
  last_poll_success_.Set(unix_s);
}

std::string Metrics::serialize(WallTime now) const {
  std::vector<MetricFamily> families = registry_->Collect();
  add_event_families(sources_.events ? sources_.events() : std::vector<EventSeries>{}, now, families);
  add_phase_family(sources_.node_phase ? sources_.node_phase() : std::string_view("serving"), families);
  add_process_families(families);
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace cla
