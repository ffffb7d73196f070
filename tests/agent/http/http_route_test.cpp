// Routing of the HTTP endpoint with an injected clock: health at the 5-interval boundary, 404, 405, bodies.
#include "agent/http/http_route.hpp"

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

namespace {

using namespace std::chrono_literals;

const cla::WallTime kPoll = cla::WallTime{} + 1'700'000'000s;

cla::EndpointSources sources(std::optional<cla::WallTime> last) {
  cla::EndpointSources s;
  s.last_poll_success = [last] { return last; };
  s.poll_interval = 1000ms;
  s.metrics_text = [] { return std::string("cla_node_drained 1\n"); };
  s.state_json = [] { return std::string(R"({"out_of_service":true,"drained_for":["E1"]})"); };
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(http_route_test)

BOOST_AUTO_TEST_CASE(healthz_is_ok_within_five_poll_intervals) {
  auto s = sources(kPoll);
  auto at_limit = cla::route_request("GET", "/healthz", s, kPoll + 5000ms);
  BOOST_TEST(at_limit.status == 200u);
  BOOST_TEST(at_limit.body == "ok\n");
  BOOST_TEST(cla::route_request("GET", "/healthz", s, kPoll).status == 200u);
  auto late = cla::route_request("GET", "/healthz", s, kPoll + 5001ms);
  BOOST_TEST(late.status == 503u);
  BOOST_TEST(late.body.find("5.0 s ago") != std::string::npos, late.body);
}

BOOST_AUTO_TEST_CASE(healthz_limit_follows_the_poll_interval) {
  auto s = sources(kPoll);
  s.poll_interval = 250ms;
  BOOST_TEST(cla::route_request("GET", "/healthz", s, kPoll + 1250ms).status == 200u);
  BOOST_TEST(cla::route_request("GET", "/healthz", s, kPoll + 1300ms).status == 503u);
}

BOOST_AUTO_TEST_CASE(healthz_is_unavailable_before_the_first_successful_poll) {
  auto r = cla::route_request("GET", "/healthz", sources(std::nullopt), kPoll);
  BOOST_TEST(r.status == 503u);
  BOOST_TEST(r.body == "no successful IMDS poll yet\n");
}

BOOST_AUTO_TEST_CASE(metrics_are_prometheus_text) {
  auto r = cla::route_request("GET", "/metrics", sources(kPoll), kPoll);
  BOOST_TEST(r.status == 200u);
  BOOST_TEST(r.content_type.starts_with("text/plain; version=0.0.4"));
  BOOST_TEST(r.body == "cla_node_drained 1\n");
}

BOOST_AUTO_TEST_CASE(state_is_json) {
  auto r = cla::route_request("GET", "/state?pretty=1", sources(kPoll), kPoll);
  BOOST_TEST(r.status == 200u);
  BOOST_TEST(r.content_type == "application/json");
  boost::system::error_code ec;
  auto doc = boost::json::parse(r.body, ec);
  BOOST_REQUIRE(!ec);
  BOOST_TEST(doc.at("out_of_service").as_bool());
}

BOOST_AUTO_TEST_CASE(unknown_paths_are_404_and_other_methods_405) {
  auto s = sources(kPoll);
  BOOST_TEST(cla::route_request("GET", "/", s, kPoll).status == 404u);
  BOOST_TEST(cla::route_request("GET", "/healthz/x", s, kPoll).status == 404u);
  BOOST_TEST(cla::route_request("GET", "/HEALTHZ", s, kPoll).status == 404u);
  BOOST_TEST(cla::route_request("POST", "/nope", s, kPoll).status == 404u);
  for (const char* method : {"POST", "PUT", "DELETE", "HEAD", "get"})
    for (const char* path : {"/healthz", "/metrics", "/state"})
      BOOST_TEST(cla::route_request(method, path, s, kPoll).status == 405u, method << ' ' << path);
}

BOOST_AUTO_TEST_SUITE_END()
