// End to end: IMDS failing (HTTP 500, slow answers) while an event is Scheduled or Started is logged and
// counted but never read as the event's removal; the HTTP endpoint's /healthz, /metrics and /state.
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>
#include <map>
#include <regex>
#include <sstream>

#include "agent_scenario.hpp"

namespace {

using namespace cla::test::agent_tests;
namespace http = boost::beast::http;

cla::test::HttpReply get(std::uint16_t port, const std::string& target) {
  return cla::test::http_call(port, http::verb::get, target, {}, {}, 2s);
}

// Prometheus text exposition: every line a comment or `name{labels} value`; the samples by full name.
std::map<std::string, double> parse_prometheus(const std::string& text) {
  static const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})?) (\S+)$)");
  static const std::regex comment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .*$)");
  std::map<std::string, double> samples;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || std::regex_match(line, comment)) continue;
    std::smatch m;
    BOOST_TEST_REQUIRE(std::regex_match(line, m, sample), "not Prometheus text: " << line);
    samples[m[1]] = std::stod(m[3]);
  }
  return samples;
}

bool appears(const AgentScenario& s, const std::string& msg) {
  return !s.log(msg).empty();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(agent_outage_test)

// IMDS answers 500 from before the drain time: the pending drain still runs at NotBefore - drain_lead_s,
// the approval waits for IMDS to come back, and nothing is read as a removal meanwhile.
BOOST_AUTO_TEST_CASE(outage_while_scheduled_keeps_the_event_and_its_timer) {
  // The approval's retry comes 2 s after its failure (then at the next poll): drain_lead_s leaves room for
  // it, and for the fault to be cleared first, before NotBefore starts the event without us.
  const auto approval_backoff = 2s;
  AgentScenario s;
  s.write_config({{"policy", {{"drain_lead_s", 7}}}});
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 9}, {"duration_s", 30}});
  s.wait_for("event_seen", s.within_a_poll(), id);
  s.emulator().set_fault({{"status", 500}});
  const auto error = s.wait_for("imds_error", s.within_a_poll());
  BOOST_TEST(error.at("http_status").as_int64() == 500);

  s.wait_for("drain_completed", s.until_drain_due(id), id);
  const auto failed = s.wait_for("approval_failed", s.within_a_poll(), id);
  BOOST_TEST(failed.at("retry_in_s").as_int64() == approval_backoff.count());
  s.wait_for_polls(2);  // polls that fail: none of them is a removal
  BOOST_TEST(!appears(s, "event_removed"));
  BOOST_TEST(!appears(s, "restore_started"));
  BOOST_TEST(!s.running("statusbinary"));
  BOOST_TEST(s.emulator().approvals().empty());
  BOOST_TEST(s.log("imds_error").size() <= 2u, "imds_error is rate-limited");

  const auto cleared_at = cla::WallClock::now();
  s.emulator().set_fault({});
  s.wait_for("imds_recovered", s.within_a_poll());
  s.wait_for("event_approved", approval_backoff + s.within_a_poll(), id);  // the retry, after its backoff
  const auto approvals = s.emulator().approvals();
  BOOST_REQUIRE_EQUAL(approvals.size(), 1u);
  BOOST_TEST(ms_between(cleared_at, cla::test::emulator_time(approvals[0])) >= 0);
  BOOST_TEST(!appears(s, "restore_started"));

  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
}

// The event is Started and the node drained when IMDS stops answering in time; the platform removes the
// event during the outage. The agent restores only once a document shows the removal.
BOOST_AUTO_TEST_CASE(outage_while_started_is_not_a_removal) {
  AgentScenario s;
  s.start_agent();
  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 30}});
  s.approved_and_started(id);

  constexpr auto delay = 3000ms;  // beyond request_timeout_ms (1 s)
  s.emulator().set_fault({{"delay_ms", delay.count()}});
  const auto error = s.wait_for("imds_error", s.request_timeout() + s.within_a_poll());
  BOOST_TEST(error.at("kind").as_string() == "timeout");
  s.emulator().cancel_event(id);
  // Counted on arrival: when the second poll after the removal arrives, the first one has timed out.
  s.wait_for_polls(2);
  BOOST_TEST(!appears(s, "event_removed"));
  BOOST_TEST(!appears(s, "restore_started"));
  BOOST_TEST(!s.running("statusgossip"));

  const auto cleared_at = cla::WallClock::now();
  s.emulator().set_fault({});
  // A poll in flight may still be held by the delay.
  const auto removed = s.wait_for("event_removed", delay + s.within_a_poll(), id);
  BOOST_TEST(ms_between(cleared_at, log_time(removed)) >= 0);
  s.wait_for("restore_completed", s.within_a_poll());
  BOOST_TEST(s.node_restored());
  BOOST_TEST(
      s.agent_mutations() == (Strings{"disablebinary", "disablegossip", "enablegossip", "enablebinary"}),
      boost::test_tools::per_element());
}

// IMDS throttles (429): the agent polls less often until it answers again, and logs the throttling once.
BOOST_AUTO_TEST_CASE(throttling_backs_off_and_recovers) {
  AgentScenario s;
  s.start_agent();
  s.wait_for_polls(2);
  s.emulator().set_fault({{"status", 429}});
  const auto throttled_at = cla::WallClock::now();
  s.wait_for("imds_error", s.within_a_poll());
  // Three throttled polls (a condition, not a sleep): the agent backs off 1 s, then 2 s, measured from when
  // each request started; without backoff they would come a poll interval apart.
  std::vector<cla::WallTime> throttled;
  const bool three = cla::test::wait_until(
      [&] {
        throttled.clear();
        for (const auto& r : s.emulator().requests())
          if (r.at("status").as_int64() == 429 && cla::test::emulator_time(r) >= throttled_at)
            throttled.push_back(cla::test::emulator_time(r));
        return throttled.size() >= 3;
      },
      1s + 2s + s.within_a_poll());
  s.emulator().set_fault({});
  BOOST_REQUIRE_MESSAGE(three, "only " << throttled.size() << " throttled polls");
  // At least the backoffs apart, less how much later the first request may have reached the emulator after
  // it started than the next one did (a poll interval allowed).
  BOOST_TEST(ms_between(throttled[0], throttled[1]) >= (1s - s.poll_interval()).count());
  BOOST_TEST(ms_between(throttled[1], throttled[2]) >= (2s - s.poll_interval()).count());
  const auto errors = s.log("imds_error");
  BOOST_TEST(errors.size() == 1u);
  BOOST_TEST(errors.at(0).at("kind").as_string() == "http_429");
  s.wait_for("imds_recovered", 4s + s.within_a_poll());  // after the backoff in force (at most 4 s)
}

BOOST_AUTO_TEST_CASE(http_endpoint_reports_health_metrics_and_state) {
  AgentScenario s;
  s.write_config({{"http", {{"listen", "127.0.0.1:0"}}}});
  s.start_agent();
  const auto listening = s.wait_for("http_listening", cla::test::kMargin);
  BOOST_TEST(listening.at("address").as_string() == "127.0.0.1");
  const auto port = static_cast<std::uint16_t>(listening.at("port").as_int64());
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return get(port, "/healthz").status == 200; }, s.within_a_poll()));

  const std::string id = s.emulator().add_event(
      {{"type", "Freeze"}, {"resources", {"vm0"}}, {"not_before_in_s", 4}, {"duration_s", 30}});
  s.wait_for("event_approved", s.until_drain_due(id), id);

  const auto state_reply = get(port, "/state");
  BOOST_TEST(state_reply.status == 200u);
  const auto state = state_reply.json().as_object();
  BOOST_TEST(state.at("node").at("drained").as_bool());
  BOOST_TEST(state.at("node").at("drained_for").as_array().size() == 1u);
  BOOST_TEST(state.at("resource_name").as_string() == "vm0");

  const auto metrics_reply = get(port, "/metrics");
  BOOST_TEST(metrics_reply.status == 200u);
  BOOST_TEST(metrics_reply.content_type.find("text/plain") == 0u);
  auto metrics = parse_prometheus(metrics_reply.body);
  BOOST_TEST(metrics[R"(cla_events_seen_total{type="Freeze"})"] == 1.0);
  BOOST_TEST(metrics[R"(cla_drains_total{result="ok"})"] == 1.0);
  BOOST_TEST(metrics[R"(cla_approvals_total{result="ok"})"] == 1.0);
  BOOST_TEST(metrics["cla_node_drained"] == 1.0);
  BOOST_TEST(metrics[R"(cla_imds_requests_total{result="ok"})"] >= 2.0);  // before the event, and with it
  BOOST_TEST(metrics["cla_last_successful_poll_timestamp_seconds"] > 1.7e9);
  BOOST_TEST(metrics.count(R"(cla_nodetool_duration_seconds_count{subcommand="disablegossip"})") == 1u);

  // A long outage: unhealthy after 5 poll intervals (1.25 s) without a successful poll, not before; measured
  // from the last poll IMDS answered, whenever the agent's last poll before the outage came.
  s.emulator().set_fault({{"status", 500}});
  cla::WallTime unhealthy_seen{};
  BOOST_REQUIRE(cla::test::wait_until(
      [&] {
        const bool unhealthy = get(port, "/healthz").status == 503;
        unhealthy_seen = cla::WallClock::now();
        return unhealthy;
      },
      s.poll_interval() * 5 + s.within_a_poll()));
  cla::WallTime last_answered{};
  for (const auto& r : s.emulator().requests())
    if (r.at("vm").as_string() == "vm0" && r.at("method").as_string() == "GET" &&
        r.at("status").as_int64() == 200)
      last_answered = std::max(last_answered, cla::test::emulator_time(r));
  BOOST_TEST(ms_between(last_answered, unhealthy_seen) >= (s.poll_interval() * 5).count());
  metrics = parse_prometheus(get(port, "/metrics").body);
  BOOST_TEST(metrics[R"(cla_imds_requests_total{result="http_5xx"})"] >= 3.0);
  BOOST_TEST(metrics["cla_node_drained"] == 1.0, "an outage is no removal");
  BOOST_TEST(get(port, "/state").json().at("node").at("drained").as_bool());

  s.emulator().set_fault({});
  BOOST_REQUIRE(
      cla::test::wait_until([&] { return get(port, "/healthz").status == 200; }, s.within_a_poll()));
  s.emulator().cancel_event(id);
  s.wait_for("restore_completed", s.within_a_poll());
  metrics = parse_prometheus(get(port, "/metrics").body);
  BOOST_TEST(metrics["cla_node_drained"] == 0.0);
  BOOST_TEST(metrics[R"(cla_restores_total{result="ok"})"] == 1.0);
  BOOST_TEST(get(port, "/state").json().at("node").at("drained").as_bool() == false);
}

BOOST_AUTO_TEST_SUITE_END()
