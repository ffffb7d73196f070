// Metrics: the exposition parses as Prometheus text, values move, external label values stay bounded.
#include "agent/http/metrics.hpp"

#include <boost/test/unit_test.hpp>
#include <map>
#include <regex>
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

double value_of(const cla::Metrics& metrics, const std::string& series) {
  auto samples = parse_exposition(metrics.serialize());
  auto it = samples.find(series);
  BOOST_REQUIRE_MESSAGE(it != samples.end(), "missing series " << series);
  return std::stod(it->second);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(metrics_test)

BOOST_AUTO_TEST_CASE(exposition_parses_and_holds_every_family) {
  cla::Metrics metrics;
  metrics.nodetool_duration("status", 0.2);
  const std::string text = metrics.serialize();
  auto samples = parse_exposition(text);
  for (const char* type :
       {"# TYPE cla_imds_requests_total counter", "# TYPE cla_events_seen_total counter",
        "# TYPE cla_drains_total counter", "# TYPE cla_approvals_total counter",
        "# TYPE cla_restores_total counter", "# TYPE cla_node_drained gauge",
        "# TYPE cla_unsafe_blocks_total counter", "# TYPE cla_nodetool_duration_seconds histogram",
        "# TYPE cla_last_successful_poll_timestamp_seconds gauge"})
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

BOOST_AUTO_TEST_SUITE_END()
