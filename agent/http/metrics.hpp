// Prometheus metrics of the agent (cla_* and process_*), kept in a prometheus-cpp registry and exposed as
// text.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "state/scheduled_event.hpp"

namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace cla {

// One pending event that lists this VM, as its series show it at a scrape.
struct EventSeries {
  std::string event_id;  // as received; the label keeps [A-Za-z0-9._-], at most 64 characters
  std::string type;      // EventType as received (see event_type_label)
  EventStatus status = EventStatus::unknown;
  EventSource source = EventSource::unknown;
  std::optional<WallTime> not_before;  // absent once Started
};

// What the metrics read at scrape time rather than at every poll (an idle poll must stay cheap): the
// pending events of this VM and the node's phase (serving, draining, drained, restoring, catching_up).
struct MetricsSources {
  std::function<std::vector<EventSeries>()> events;
  std::function<std::string_view()> node_phase;
};

enum class GateVerdict { none, safe, unsafe };

// Every method is thread-safe but set_sources (call it before serving scrapes). Label values that come from
// IMDS are bounded: event types map onto a fixed set (`other`), statuses and sources too, and event ids
// appear only for this VM's pending events (at most kMaxEventSeries), gone with the event. The other label
// values are chosen by the agent's own code.
class Metrics {
 public:
  static constexpr std::size_t kMaxEventSeries = 64;

  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  void set_sources(MetricsSources sources);
  // cla_node_info{vm,fault_domain,rack} 1: who this agent is (rack: the one the config maps its fault domain
  // to).
  void set_node_info(const std::string& vm, int fault_domain, const std::string& rack);

  // result: ok, connect, timeout, http_429, http_5xx, http_status, invalid_json, wrong_shape, ...
  void imds_request(std::string_view result);
  // An event that lists this VM, first seen. type: EventType as received (anything but the five documented
  // types counts as "other"). Other VMs' events are not counted.
  void event_seen(std::string_view type);
  // result: ok, failed, forced_unsafe
  void drain(std::string_view result);
  // result: ok, failed, rejected, withheld
  void approval(std::string_view result);
  // One restore attempt. result: ok, failed (every failed attempt, retries included)
  void restore(std::string_view result);
  void set_node_drained(bool drained);
  // SPEC 3.10: the last restore came after max_hint_window; 0 again after a restore within it.
  void set_repair_needed(bool needed);
  void unsafe_block();
  // The replication-safety gate's last answer and when it was taken.
  void set_gate_verdict(GateVerdict verdict, WallTime at);
  void impact_without_drain();
  void coordination_unavailable();
  void jolokia_unreachable();
  // cla_watcher_role{role}: 1 for this agent's watcher role (leader, secondary, none), 0 for the others;
  // absent until coordinated mode starts.
  void set_watcher_role(std::string_view role);
  // An agentless VM's event recorded by this agent as the watcher's leader (logged agentless_impact).
  void agentless_impact();
  // Keyspaces left out of the gate's verdict because they cannot meet the consistency level without this
  // node (SPEC 3.4); 0 until the gate reports them.
  void set_unprotectable_keyspaces(std::size_t count);
  void nodetool_duration(std::string_view subcommand, double seconds);
  void set_last_poll_success(double unix_s);

  // The Prometheus text exposition format (version 0.0.4) of every metric, with the scrape-time ones
  // (events, phase, process_*) as of `now`.
  std::string serialize(WallTime now = WallClock::now()) const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& imds_requests_;
  prometheus::Family<prometheus::Counter>& events_seen_;
  prometheus::Family<prometheus::Counter>& drains_;
  prometheus::Family<prometheus::Counter>& approvals_;
  prometheus::Family<prometheus::Counter>& restores_;
  prometheus::Gauge& node_drained_;
  prometheus::Gauge& repair_needed_;
  prometheus::Counter& unsafe_blocks_;
  prometheus::Family<prometheus::Gauge>& gate_verdict_;
  prometheus::Gauge& gate_checked_at_;
  prometheus::Counter& impact_without_drain_;
  prometheus::Counter& coordination_unavailable_;
  prometheus::Counter& jolokia_unreachable_;
  prometheus::Family<prometheus::Gauge>& watcher_role_;
  prometheus::Counter& agentless_impacts_;
  prometheus::Gauge& unprotectable_keyspaces_;
  prometheus::Family<prometheus::Histogram>& nodetool_seconds_;
  prometheus::Gauge& last_poll_success_;
  prometheus::Family<prometheus::Gauge>& node_info_;
  prometheus::Counter& imds_ok_;
  MetricsSources sources_;
};

// The event type label for an EventType as received: Freeze, Reboot, Redeploy, Preempt, Terminate
// (matched case-insensitively, spelled canonically), otherwise "other".
std::string_view event_type_label(std::string_view type);
// The event id label: [A-Za-z0-9._-] kept, anything else "_", at most 64 characters (an EventId is a GUID).
std::string event_id_label(std::string_view id);

}  // namespace cla
