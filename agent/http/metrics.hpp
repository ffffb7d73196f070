// Prometheus metrics of the agent (cla_*), kept in a prometheus-cpp registry and exposed as text.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace prometheus {
class Registry;
class Counter;
class Gauge;
class Histogram;
template <typename T>
class Family;
}  // namespace prometheus

namespace cla {

// Every method is thread-safe (prometheus-cpp locks families and updates values atomically). Label values
// that can come from IMDS (event types) are mapped onto a fixed set, so a hostile or changing document
// cannot grow the number of series; the other label values are chosen by the agent's own code.
class Metrics {
 public:
  Metrics();
  ~Metrics();
  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;

  // result: ok, connect, timeout, http_429, http_5xx, http_status, invalid_json, wrong_shape, ...
  void imds_request(std::string_view result);
  // type: EventType as received; anything but the five documented types counts as "other".
  void event_seen(std::string_view type);
  // result: ok, failed, forced_unsafe
  void drain(std::string_view result);
  // result: ok, failed, withheld_shared, withheld_unsafe, ...
  void approval(std::string_view result);
  // result: ok, failed, restart_required, ...
  void restore(std::string_view result);
  void set_node_drained(bool drained);
  void unsafe_block();
  // Keyspaces left out of the gate's verdict because they cannot meet the consistency level without this
  // node (SPEC 3.4); 0 until the gate reports them.
  void set_unprotectable_keyspaces(std::size_t count);
  void nodetool_duration(std::string_view subcommand, double seconds);
  void set_last_poll_success(double unix_s);

  // The Prometheus text exposition format (version 0.0.4) of every metric.
  std::string serialize() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& imds_requests_;
  prometheus::Family<prometheus::Counter>& events_seen_;
  prometheus::Family<prometheus::Counter>& drains_;
  prometheus::Family<prometheus::Counter>& approvals_;
  prometheus::Family<prometheus::Counter>& restores_;
  prometheus::Gauge& node_drained_;
  prometheus::Counter& unsafe_blocks_;
  prometheus::Gauge& unprotectable_keyspaces_;
  prometheus::Family<prometheus::Histogram>& nodetool_seconds_;
  prometheus::Gauge& last_poll_success_;
  prometheus::Counter& imds_ok_;
};

// The event type label for an EventType as received: Freeze, Reboot, Redeploy, Preempt, Terminate
// (matched case-insensitively, spelled canonically), otherwise "other".
std::string_view event_type_label(std::string_view type);

}  // namespace cla
