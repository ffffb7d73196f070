// Metrics: the exposition parses as Prometheus text and follows its naming conventions, values move,
// external label values stay bounded, per-event series follow this VM's pending events, process_* are real.
#include "agent/http/metrics.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

// sample line without its value ("name{labels}") -> value, after checking every line's syntax.
std::map<std::string, std::string> parse_exposition(const std::string& text) {
  static const std::regex comment(R"(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*)");
  static const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")"
      R"((,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})?) ([-+]?([0-9.eE+-]+|Inf|NaN))( -?[0-9]+)?)");
  std::map<std::string, std::string> samples;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::smatch m;
    if (line[0] == '#') {
      BOOST_TEST(std::regex_match(line, comment), "bad comment line: " << line);
    } else if (std::regex_match(line, m, sample)) {
      samples[m[1].str()] = m[4].str();
    } else {
      BOOST_ERROR("bad sample line: " << line);
    }
  }
  return samples;
}

double value_of(const cla::Metrics& metrics, const std::string& series,
                cla::WallTime now = cla::WallClock::now()) {
  auto samples = parse_exposition(metrics.serialize(now));
  auto it = samples.find(series);
  BOOST_REQUIRE_MESSAGE(it != samples.end(), "missing series " << series);
  return std::stod(it->second);
}

// The series of one metric family (sample names that start with `name` followed by '{' or nothing).
std::vector<std::string> series_of(const std::string& text, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& [series, value] : parse_exposition(text))
    if (series == name || series.rfind(name + "{", 0) == 0) out.push_back(series);
  return out;
}

cla::WallTime at_unix(double s) {
  return cla::WallTime(
      std::chrono::duration_cast<cla::WallClock::duration>(std::chrono::duration<double>(s)));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics_test)

BOOST_AUTO_TEST_CASE(exposition_parses_and_holds_every_family) {
  cla::Metrics metrics;
  metrics.nodetool_duration("status", 0.2);
  metrics.set_node_info("vm0", 0, "rack1");  // families without a series print nothing
  const std::string text = metrics.serialize();
  auto samples = parse_exposition(text);
  for (const char* type : {"# TYPE cla_imds_requests_total counter",
                           "# TYPE cla_events_seen_total counter",
                           "# TYPE cla_drains_total counter",
                           "# TYPE cla_approvals_total counter",
                           "# TYPE cla_restores_total counter",
                           "# TYPE cla_node_drained gauge",
                           "# TYPE cla_unsafe_blocks_total counter",
                           "# TYPE cla_nodetool_duration_seconds histogram",
                           "# TYPE cla_last_successful_poll_timestamp_seconds gauge",
                           "# TYPE cla_event_info gauge",
                           "# TYPE cla_event_seconds_to_not_before gauge",
                           "# TYPE cla_event_not_before_timestamp_seconds gauge",
                           "# TYPE cla_node_phase gauge",
                           "# TYPE cla_gate_verdict gauge",
                           "# TYPE cla_gate_last_check_timestamp_seconds gauge",
                           "# TYPE cla_impact_without_drain_total counter",
                           "# TYPE cla_coordination_unavailable_total counter",
                           "# TYPE cla_unprotectable_keyspaces gauge",
                           "# TYPE cla_node_info gauge",
                           "# TYPE cla_build_info gauge",
                           "# TYPE process_cpu_seconds_total counter",
                           "# TYPE process_resident_memory_bytes gauge",
                           "# TYPE process_virtual_memory_bytes gauge",
                           "# TYPE process_start_time_seconds gauge",
                           "# TYPE process_open_fds gauge",
                           "# TYPE process_max_fds gauge"})
    BOOST_TEST(text.find(type) != std::string::npos, type);
  BOOST_TEST(samples.count(R"(cla_imds_requests_total{result="http_429"})") == 1u);
  BOOST_TEST(samples.count(R"(cla_drains_total{result="forced_unsafe"})") == 1u);
  BOOST_TEST(samples.at("cla_node_drained") == "0");
}

BOOST_AUTO_TEST_CASE(counters_and_gauges_move) {
  cla::Metrics metrics;
  metrics.imds_request("ok");
  metrics.imds_request("ok");
  metrics.imds_request("timeout");
  metrics.drain("failed");
  metrics.approval("withheld_shared");
  metrics.restore("ok");
  metrics.unsafe_block();
  metrics.set_node_drained(true);
  metrics.set_last_poll_success(1700000000.5);
  BOOST_TEST(value_of(metrics, R"(cla_imds_requests_total{result="ok"})") == 2.0);
  BOOST_TEST(value_of(metrics, R"(cla_imds_requests_total{result="timeout"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_imds_requests_total{result="connect"})") == 0.0);
  BOOST_TEST(value_of(metrics, R"(cla_drains_total{result="failed"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_approvals_total{result="withheld_shared"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_restores_total{result="ok"})") == 1.0);
  BOOST_TEST(value_of(metrics, "cla_unsafe_blocks_total") == 1.0);
  BOOST_TEST(value_of(metrics, "cla_node_drained") == 1.0);
  BOOST_TEST(value_of(metrics, "cla_last_successful_poll_timestamp_seconds") == 1700000000.5);
  metrics.set_node_drained(false);
  BOOST_TEST(value_of(metrics, "cla_node_drained") == 0.0);
}

BOOST_AUTO_TEST_CASE(nodetool_durations_fill_histogram_buckets) {
  cla::Metrics metrics;
  metrics.nodetool_duration("drain", 3.0);
  metrics.nodetool_duration("drain", 0.04);
  const std::string base = R"(cla_nodetool_duration_seconds_bucket{subcommand="drain",le=")";
  BOOST_TEST(value_of(metrics, base + R"(0.05"})") == 1.0);
  BOOST_TEST(value_of(metrics, base + R"(2.5"})") == 1.0);
  BOOST_TEST(value_of(metrics, base + R"(5"})") == 2.0);
  BOOST_TEST(value_of(metrics, base + R"(120"})") == 2.0);
  BOOST_TEST(value_of(metrics, base + R"(+Inf"})") == 2.0);
  BOOST_TEST(value_of(metrics, R"(cla_nodetool_duration_seconds_count{subcommand="drain"})") == 2.0);
  BOOST_TEST(value_of(metrics, R"(cla_nodetool_duration_seconds_sum{subcommand="drain"})") == 3.04,
             boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(unknown_event_types_collapse_to_other) {
  cla::Metrics metrics;
  metrics.event_seen("reboot");
  metrics.event_seen("Meteor");
  metrics.event_seen("Freeze\"} 1\ncla_node_drained 1");
  BOOST_TEST(value_of(metrics, R"(cla_events_seen_total{type="Reboot"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_events_seen_total{type="other"})") == 2.0);
  BOOST_TEST(value_of(metrics, "cla_node_drained") == 0.0);
  BOOST_TEST(metrics.serialize().find("Meteor") == std::string::npos);
  BOOST_TEST(cla::event_type_label("TERMINATE") == "Terminate");
  BOOST_TEST(cla::event_type_label("") == "other");
}

// Prometheus' conventions: counters end in _total, and every family says what it is.
BOOST_AUTO_TEST_CASE(families_follow_prometheus_naming) {
  cla::Metrics metrics;
  metrics.nodetool_duration("status", 0.2);
  metrics.set_node_info("vm0", 0, "rack1");
  std::istringstream in(metrics.serialize());
  std::string line;
  std::map<std::string, std::string> types;
  std::set<std::string> helped;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string hash, kind, name, type;
    words >> hash >> kind >> name >> type;
    if (hash != "#") continue;
    if (kind == "TYPE") types[name] = type;
    if (kind == "HELP") helped.insert(name);
  }
  BOOST_TEST(types.size() >= 25u);
  for (const auto& [name, type] : types) {
    BOOST_TEST(helped.count(name) == 1u, name << " has no HELP");
    const bool total = name.size() > 6 && name.compare(name.size() - 6, 6, "_total") == 0;
    BOOST_TEST(total == (type == "counter"), name << " is a " << type);
    BOOST_TEST((name.rfind("cla_", 0) == 0 || name.rfind("process_", 0) == 0), name);
    BOOST_TEST(name.find("_ms") == std::string::npos, name << ": base units (seconds)");
  }
}

BOOST_AUTO_TEST_CASE(event_series_are_this_vms_pending_events_at_the_scrape) {
  cla::Metrics metrics;
  std::vector<cla::EventSeries> events{
      {"C7061BAC-AFDC-4513-B24B-AA5F13A16123", "Reboot", cla::EventStatus::scheduled,
       cla::EventSource::platform, at_unix(1700000100)},
      {"0F6B1E4E-6B1E-4E6B-9B1E-4E6B1E4E6B1E", "freeze", cla::EventStatus::started, cla::EventSource::user,
       std::nullopt}};
  metrics.set_sources({[&] { return events; }, [] { return std::string_view("drained"); }});
  const auto now = at_unix(1700000040);
  const std::string text = metrics.serialize(now);
  BOOST_TEST(value_of(metrics,
                      R"(cla_event_info{event_id="C7061BAC-AFDC-4513-B24B-AA5F13A16123",source="Platform",)"
                      R"(status="Scheduled",type="Reboot"})",
                      now) == 1.0);
  BOOST_TEST(value_of(metrics,
                      R"(cla_event_info{event_id="0F6B1E4E-6B1E-4E6B-9B1E-4E6B1E4E6B1E",source="User",)"
                      R"(status="Started",type="Freeze"})",
                      now) == 1.0);
  BOOST_TEST(value_of(metrics,
                      R"(cla_event_seconds_to_not_before{event_id="C7061BAC-AFDC-4513-B24B-AA5F13A16123"})",
                      now) == 60.0);
  BOOST_TEST(value_of(metrics,
                      R"(cla_event_seconds_to_not_before{event_id="C7061BAC-AFDC-4513-B24B-AA5F13A16123"})",
                      at_unix(1700000130)) == -30.0);
  BOOST_TEST(
      value_of(metrics,
               R"(cla_event_not_before_timestamp_seconds{event_id="C7061BAC-AFDC-4513-B24B-AA5F13A16123"})",
               now) == 1700000100.0);
  // A Started event has no NotBefore: no series of its time.
  BOOST_TEST(series_of(text, "cla_event_seconds_to_not_before").size() == 1u);
  BOOST_TEST(value_of(metrics, R"(cla_node_phase{phase="drained"})", now) == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_node_phase{phase="serving"})", now) == 0.0);
  BOOST_TEST(series_of(text, "cla_node_phase").size() == 5u);

  // The event goes: its series go with it.
  events.erase(events.begin());
  const std::string after = metrics.serialize(now);
  BOOST_TEST(after.find("C7061BAC") == std::string::npos);
  BOOST_TEST(series_of(after, "cla_event_info").size() == 1u);
  events.clear();
  BOOST_TEST(series_of(metrics.serialize(now), "cla_event_info").empty());
}

BOOST_AUTO_TEST_CASE(event_labels_stay_bounded_whatever_imds_sends) {
  cla::Metrics metrics;
  std::vector<cla::EventSeries> events;
  events.push_back({std::string(500, 'A') + "\"} 1\ncla_node_drained 1", "Meteor", cla::EventStatus::unknown,
                    cla::EventSource::unknown, std::nullopt});
  for (int i = 0; i < 200; ++i)
    events.push_back({"id-" + std::to_string(i), "Freeze", cla::EventStatus::scheduled,
                      cla::EventSource::platform, at_unix(1700000000 + i)});
  metrics.set_sources({[&] { return events; }, {}});
  const std::string text = metrics.serialize(at_unix(1700000000));
  const auto info = series_of(text, "cla_event_info");
  BOOST_TEST(info.size() == cla::Metrics::kMaxEventSeries);
  BOOST_TEST(info[0].find(R"(event_id=")" + std::string(64, 'A') + R"(")") != std::string::npos, info[0]);
  BOOST_TEST(info[0].find(R"(type="other")") != std::string::npos);
  BOOST_TEST(info[0].find(R"(status="unknown")") != std::string::npos);
  BOOST_TEST(value_of(metrics, "cla_node_drained") == 0.0);
  BOOST_TEST(cla::event_id_label("a b\"c/d") == "a_b_c_d");
}

BOOST_AUTO_TEST_CASE(gate_verdict_is_one_hot_with_its_time) {
  cla::Metrics metrics;
  BOOST_TEST(value_of(metrics, R"(cla_gate_verdict{verdict="none"})") == 1.0);
  BOOST_TEST(value_of(metrics, "cla_gate_last_check_timestamp_seconds") == 0.0);
  metrics.set_gate_verdict(cla::GateVerdict::unsafe, at_unix(1700000000));
  BOOST_TEST(value_of(metrics, R"(cla_gate_verdict{verdict="none"})") == 0.0);
  BOOST_TEST(value_of(metrics, R"(cla_gate_verdict{verdict="unsafe"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_gate_verdict{verdict="safe"})") == 0.0);
  BOOST_TEST(value_of(metrics, "cla_gate_last_check_timestamp_seconds") == 1700000000.0);
  metrics.set_gate_verdict(cla::GateVerdict::safe, at_unix(1700000001));
  BOOST_TEST(value_of(metrics, R"(cla_gate_verdict{verdict="unsafe"})") == 0.0);
  BOOST_TEST(value_of(metrics, R"(cla_gate_verdict{verdict="safe"})") == 1.0);
}

BOOST_AUTO_TEST_CASE(log_event_counters_identity_and_keyspaces) {
  cla::Metrics metrics;
  BOOST_TEST(value_of(metrics, "cla_impact_without_drain_total") == 0.0);
  BOOST_TEST(value_of(metrics, "cla_coordination_unavailable_total") == 0.0);
  BOOST_TEST(value_of(metrics, "cla_unprotectable_keyspaces") == 0.0);
  BOOST_TEST(value_of(metrics, R"(cla_restores_total{result="failed"})") == 0.0);
  metrics.impact_without_drain();
  metrics.coordination_unavailable();
  metrics.coordination_unavailable();
  metrics.set_unprotectable_keyspaces(2);
  metrics.restore("failed");
  metrics.set_node_info("vm3", 1, "rack2");
  BOOST_TEST(value_of(metrics, "cla_impact_without_drain_total") == 1.0);
  BOOST_TEST(value_of(metrics, "cla_coordination_unavailable_total") == 2.0);
  BOOST_TEST(value_of(metrics, "cla_unprotectable_keyspaces") == 2.0);
  BOOST_TEST(value_of(metrics, R"(cla_restores_total{result="failed"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_node_info{fault_domain="1",rack="rack2",vm="vm3"})") == 1.0);
  BOOST_TEST(value_of(metrics, R"(cla_build_info{version=")" CLA_VERSION R"("})") == 1.0);
}

// Read from /proc/self at the scrape: this very test process.
BOOST_AUTO_TEST_CASE(process_metrics_describe_this_process) {
  cla::Metrics metrics;
  const double started = value_of(metrics, "process_start_time_seconds");
  const double now_s = std::chrono::duration<double>(cla::WallClock::now().time_since_epoch()).count();
  BOOST_TEST(started <= now_s + 1);
  BOOST_TEST(started > now_s - 24 * 3600);
  BOOST_TEST(value_of(metrics, "process_resident_memory_bytes") > 1e6);
  BOOST_TEST(value_of(metrics, "process_virtual_memory_bytes") >=
             value_of(metrics, "process_resident_memory_bytes"));
  BOOST_TEST(value_of(metrics, "process_cpu_seconds_total") >= 0.0);
  const double open = value_of(metrics, "process_open_fds");
  BOOST_TEST(open >= 3.0);  // stdin, stdout, stderr at least
  BOOST_TEST(value_of(metrics, "process_max_fds") >= open);
}

BOOST_AUTO_TEST_SUITE_END()
