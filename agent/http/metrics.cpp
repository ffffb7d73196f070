// Prometheus metrics of the agent: families registered once, series created on first use.
#include "agent/http/metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <array>
#include <initializer_list>

namespace cla {
namespace {

using prometheus::Counter;
using prometheus::Family;

Family<Counter>& counter_family(prometheus::Registry& registry, const std::string& name,
                                const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
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

}  // namespace

std::string_view event_type_label(std::string_view type) {
  static constexpr std::array<std::string_view, 5> known{"Freeze", "Reboot", "Redeploy", "Preempt",
                                                         "Terminate"};
  for (std::string_view k : known)
    if (ascii_iequals(k, type)) return k;
  return "other";
}

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      imds_requests_(
          counter_family(*registry_, "cla_imds_requests_total", "IMDS Scheduled Events requests by result")),
      events_seen_(
          counter_family(*registry_, "cla_events_seen_total", "Scheduled events first seen, by type")),
      drains_(counter_family(*registry_, "cla_drains_total", "Node drains by result")),
      approvals_(counter_family(*registry_, "cla_approvals_total", "Event approvals by result")),
      restores_(counter_family(*registry_, "cla_restores_total", "Node restores by result")),
      node_drained_(prometheus::BuildGauge()
                        .Name("cla_node_drained")
                        .Help("1 while the agent holds the Cassandra node out of service")
                        .Register(*registry_)
                        .Add({})),
      unsafe_blocks_(counter_family(*registry_, "cla_unsafe_blocks_total",
                                    "Drains held back because the replication-safety gate said unsafe")
                         .Add({})),
      unprotectable_keyspaces_(prometheus::BuildGauge()
                                   .Name("cla_unprotectable_keyspaces")
                                   .Help("Keyspaces that cannot meet the consistency level without this "
                                         "node, left out of the safety gate's verdict")
                                   .Register(*registry_)
                                   .Add({})),
      nodetool_seconds_(prometheus::BuildHistogram()
                            .Name("cla_nodetool_duration_seconds")
                            .Help("Duration of nodetool commands by subcommand")
                            .Register(*registry_)),
      last_poll_success_(prometheus::BuildGauge()
                             .Name("cla_last_successful_poll_timestamp_seconds")
                             .Help("Unix time of the last successful IMDS poll")
                             .Register(*registry_)
                             .Add({})),
      imds_ok_(imds_requests_.Add({{"result", "ok"}})) {
  preset(imds_requests_, "result",
         {"ok", "connect", "timeout", "http_429", "http_5xx", "http_status", "invalid_json", "wrong_shape"});
  preset(events_seen_, "type", {"Freeze", "Reboot", "Redeploy", "Preempt", "Terminate", "other"});
  preset(drains_, "result", {"ok", "failed", "forced_unsafe"});
  preset(approvals_, "result", {"ok", "failed"});
  preset(restores_, "result", {"ok", "failed"});
}

Metrics::~Metrics() = default;

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

void Metrics::unsafe_block() {
  unsafe_blocks_.Increment();
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

std::string Metrics::serialize() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace cla
