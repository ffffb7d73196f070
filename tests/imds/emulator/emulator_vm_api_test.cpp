// imds-emulator's VM endpoint without sockets: the documented 400s, approvals, compute, faults, request log.
#include "imds/emulator/emulator_vm_api.hpp"

#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "imds/document_parser.hpp"

namespace {

namespace http = boost::beast::http;
using namespace std::chrono_literals;

const cla::WallTime t0 = cla::WallTime{} + std::chrono::seconds(1700000000);
const std::string kEvents = "/metadata/scheduledevents?api-version=2020-07-01";

cla::HttpRequest request(http::verb verb, std::string target, bool metadata = true, std::string body = {}) {
  cla::HttpRequest req{verb, target, 11};
  if (metadata) req.set("Metadata", "true");
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

struct Fixture {
  cla::EmulatorState state{{{"vm0", 0, {}, {}}, {"vm1", 1, {}, {}}}, 0ms, 7};

  cla::HttpResponse call(const cla::HttpRequest& req, std::size_t vm = 0, cla::WallTime now = t0) {
    const auto admission = cla::admit_vm_request(state, vm, req);
    return cla::handle_vm_request(state, vm, req, admission, now);
  }
  std::string error_text(const cla::HttpResponse& res) {
    return std::string(boost::json::parse(res.body()).at("error").as_string());
  }
  std::string approve_body(const std::string& id) {
    return R"({"StartRequests":[{"EventId":")" + id + R"("}]})";
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(emulator_vm_api_test)

BOOST_FIXTURE_TEST_CASE(get_serves_a_compact_2020_07_01_document, Fixture) {
  const std::string id = state.events.add(cla::default_event_spec("Freeze", {"vm0", "vm1"}), t0);
  const auto res = call(request(http::verb::get, kEvents));
  BOOST_TEST(res.result_int() == 200u);
  BOOST_TEST(res[http::field::content_type] == "application/json; charset=utf-8");
  BOOST_TEST(res.body().find("\": ") == std::string::npos);  // compact, like IMDS
  BOOST_TEST(res.body().find(", \"") == std::string::npos);
  const auto doc = cla::parse_scheduled_events(res.body());
  BOOST_TEST_REQUIRE(doc.ok());
  BOOST_TEST(doc->incarnation == 2);
  BOOST_TEST_REQUIRE(doc->events.size() == 1u);
  const auto& e = doc->events[0];
  BOOST_TEST(e.id == id);
  BOOST_TEST(e.not_before_text == "Tue, 14 Nov 2023 22:28:20 GMT");
  BOOST_TEST(e.resource_type == "VirtualMachine");
  BOOST_TEST(e.source_text == "Platform");
  BOOST_TEST(e.duration_s == 5);
}

BOOST_FIXTURE_TEST_CASE(documented_bad_requests, Fixture) {
  auto no_header = call(request(http::verb::get, kEvents, false));
  BOOST_TEST(no_header.result_int() == 400u);
  BOOST_TEST(error_text(no_header) == "Bad request. Required metadata header not specified");
  auto wrong_header = request(http::verb::get, kEvents, false);
  wrong_header.set("Metadata", "false");
  BOOST_TEST(call(wrong_header).result_int() == 400u);
  auto upper = request(http::verb::get, kEvents, false);
  upper.set("metadata", "True");
  BOOST_TEST(call(upper).result_int() == 200u);

  for (const char* target : {"/metadata/scheduledevents", "/metadata/scheduledevents?api-version=2021-02-01",
                             "/metadata/scheduledevents?api-version=latest"}) {
    const auto res = call(request(http::verb::get, target));
    BOOST_TEST(res.result_int() == 400u, target);
    const auto body = boost::json::parse(res.body());
    BOOST_TEST(
        std::string(body.at("error").as_string()).find("api-version is invalid or was not specified") !=
        std::string::npos);
    BOOST_TEST(body.at("newest-versions").as_array().at(0).as_string() == "2020-07-01");
  }
  for (const char* v : {"2017-03-01", "2017-08-01", "2017-11-01", "2019-01-01", "2019-04-01", "2019-08-01"})
    BOOST_TEST(call(request(http::verb::get, std::string("/metadata/scheduledevents?api-version=") + v))
                   .result_int() == 200u);

  auto forwarded = request(http::verb::get, kEvents);
  forwarded.set("X-Forwarded-For", "10.0.0.1");
  BOOST_TEST(call(forwarded).result_int() == 400u);
  BOOST_TEST(call(request(http::verb::get, kEvents + "&api-version=2020-07-01")).result_int() == 400u);
  BOOST_TEST(call(request(http::verb::put, kEvents)).result_int() == 405u);
}

BOOST_FIXTURE_TEST_CASE(post_approves_known_events_and_rejects_the_rest, Fixture) {
  const std::string id = state.events.add(cla::default_event_spec("Reboot", {"vm0"}), t0);
  std::string lower = id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  BOOST_TEST(call(request(http::verb::post, kEvents, true, approve_body(lower))).result_int() == 200u);
  BOOST_TEST(call(request(http::verb::post, kEvents, true, approve_body(id))).result_int() == 200u);  // again
  BOOST_TEST_REQUIRE(state.approvals.size() == 2u);
  BOOST_TEST(state.approvals[0].event_id == id);
  BOOST_TEST(state.approvals[0].vm == "vm0");
  BOOST_TEST((state.events.events().at(0).status == cla::EventStatus::started));

  const auto unknown =
      call(request(http::verb::post, kEvents, true, approve_body("F020BA2E-3BC0-4C40-A10B-86575A9EABD5")));
  BOOST_TEST(unknown.result_int() == 400u);
  BOOST_TEST(error_text(unknown).find("not found") != std::string::npos);
  for (const char* body : {"", "{", "[]", R"({"StartRequests":[]})", R"({"StartRequests":[{"Id":"x"}]})",
                           R"({"StartRequests":{"EventId":"x"}})"})
    BOOST_TEST(call(request(http::verb::post, kEvents, true, body)).result_int() == 400u, body);
  BOOST_TEST(call(request(http::verb::post, kEvents, false, approve_body(id))).result_int() == 400u);
  BOOST_TEST(state.approvals.size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(compute_and_unknown_paths, Fixture) {
  const auto compute = call(request(http::verb::get, "/metadata/instance/compute?api-version=2021-02-01"), 1);
  BOOST_TEST(compute.result_int() == 200u);
  const auto body = boost::json::parse(compute.body());
  BOOST_TEST(body.at("name").as_string() == "vm1");
  BOOST_TEST(body.at("platformFaultDomain").as_string() == "1");
  BOOST_TEST(body.at("vmId").as_string().size() == 36u);
  BOOST_TEST(body.at("location").as_string() == "eastus2", "the default region: B3-03's location");
  BOOST_TEST(
      call(request(http::verb::get, "/metadata/instance/compute?api-version=2020-09-01")).result_int() ==
      200u);
  BOOST_TEST(
      call(request(http::verb::get, "/metadata/instance/compute?api-version=2019-13-01")).result_int() ==
      400u);
  BOOST_TEST(call(request(http::verb::get, "/metadata/instance/compute?api-version=2021-02-01", false))
                 .result_int() == 400u);
  const auto inside = call(request(http::verb::get, "/metadata/nothing?api-version=2021-02-01"));
  BOOST_TEST(inside.result_int() == 404u);
  BOOST_TEST(inside[http::field::content_type].starts_with("application/json"));
  const auto outside = call(request(http::verb::get, "/doesnotexist"));
  BOOST_TEST(outside.result_int() == 404u);
  BOOST_TEST(outside[http::field::content_type] == "text/html");
}

BOOST_FIXTURE_TEST_CASE(faults_hit_valid_scheduled_events_requests_only, Fixture) {
  state.fault.status = 500;
  state.fault.remaining = 2;
  BOOST_TEST(call(request(http::verb::get, kEvents, false)).result_int() == 400u);  // 400s stay visible
  BOOST_TEST(
      call(request(http::verb::get, "/metadata/instance/compute?api-version=2021-02-01")).result_int() ==
      200u);
  BOOST_TEST(call(request(http::verb::get, kEvents)).result_int() == 500u);
  BOOST_TEST(call(request(http::verb::get, kEvents), 1).result_int() == 500u);
  BOOST_TEST(!state.fault.active());
  BOOST_TEST(call(request(http::verb::get, kEvents)).result_int() == 200u);

  state.fault = cla::Fault{};
  state.fault.malformed = true;
  const auto bad = call(request(http::verb::get, kEvents));
  BOOST_TEST(bad.result_int() == 200u);
  BOOST_TEST(!cla::parse_scheduled_events(bad.body()).ok());

  state.fault = cla::Fault{};
  state.fault.body = R"({"DocumentIncarnation":"x","Events":[]})";
  BOOST_TEST(call(request(http::verb::get, kEvents)).body() == *state.fault.body);

  state.fault = cla::Fault{};
  state.fault.status = 307;
  const auto moved = call(request(http::verb::get, kEvents));
  BOOST_TEST(moved.result_int() == 307u);
  BOOST_TEST(!moved[http::field::location].empty());
}

BOOST_FIXTURE_TEST_CASE(delays_come_from_the_first_call_and_from_faults, Fixture) {
  cla::EmulatorState slow{{{"vm0", 0, {}, {}}, {"vm1", 1, {}, {}}}, 1500ms, 7};
  BOOST_TEST(cla::admit_vm_request(slow, 0, request(http::verb::get, kEvents, false)).delay.count() == 0);
  BOOST_TEST(cla::admit_vm_request(slow, 0, request(http::verb::post, kEvents)).delay.count() == 0);
  BOOST_TEST(cla::admit_vm_request(slow, 0, request(http::verb::get, kEvents)).delay.count() == 1500);
  BOOST_TEST(cla::admit_vm_request(slow, 0, request(http::verb::get, kEvents)).delay.count() == 0);
  BOOST_TEST(cla::admit_vm_request(slow, 1, request(http::verb::get, kEvents)).delay.count() == 1500);
  slow.fault.delay = 300ms;
  BOOST_TEST(cla::admit_vm_request(slow, 1, request(http::verb::get, kEvents)).delay.count() == 300);
}

BOOST_FIXTURE_TEST_CASE(every_request_is_logged_with_its_metadata_header, Fixture) {
  call(request(http::verb::get, kEvents, false), 1, t0 + 1500ms);
  call(request(http::verb::get, kEvents), 0, t0 + 2s);
  BOOST_TEST_REQUIRE(state.requests.size() == 2u);
  const auto& first = state.requests[0];
  BOOST_TEST(first.vm == "vm1");
  BOOST_TEST(first.method == "GET");
  BOOST_TEST(first.path == "/metadata/scheduledevents");
  BOOST_TEST(first.query == "api-version=2020-07-01");
  BOOST_TEST(first.status == 400);
  BOOST_TEST(!first.metadata_header);
  BOOST_TEST((first.t == t0 + 1500ms));
  BOOST_TEST(state.requests[1].metadata_header);
}

BOOST_FIXTURE_TEST_CASE(requests_advance_the_events, Fixture) {
  cla::EventSpec spec = cla::default_event_spec("Freeze", {"vm0"});
  spec.not_before_in_s = 10;
  state.events.add(spec, t0);
  const auto before = cla::parse_scheduled_events(call(request(http::verb::get, kEvents), 0, t0 + 9s).body());
  const auto after = cla::parse_scheduled_events(call(request(http::verb::get, kEvents), 0, t0 + 10s).body());
  BOOST_TEST_REQUIRE((before.ok() && after.ok()));
  BOOST_TEST((before->events.at(0).status == cla::EventStatus::scheduled));
  BOOST_TEST((after->events.at(0).status == cla::EventStatus::started));
  BOOST_TEST(after->events.at(0).not_before_text == "");
  BOOST_TEST(after->incarnation == before->incarnation + 1);
}

BOOST_AUTO_TEST_CASE(a_vm_sees_and_approves_only_its_regions_events) {
  cla::EmulatorState state{{{"vm0", 0, {}, {}, "east"}, {"vm0", 1, {}, {}, "west"}}, 0ms, 7};
  auto call = [&](const cla::HttpRequest& req, std::size_t vm) {
    return cla::handle_vm_request(state, vm, req, cla::admit_vm_request(state, vm, req), t0);
  };
  cla::EventSpec spec = cla::default_event_spec("Reboot", {"vm0"});
  spec.region = "east";
  const std::string id = state.events.add(spec, t0);

  const auto east = cla::parse_scheduled_events(call(request(http::verb::get, kEvents), 0).body());
  const auto west = cla::parse_scheduled_events(call(request(http::verb::get, kEvents), 1).body());
  BOOST_TEST_REQUIRE((east.ok() && west.ok()));
  BOOST_TEST_REQUIRE(east->events.size() == 1u);
  BOOST_TEST(east->events[0].id == id);
  BOOST_TEST(east->incarnation == 2);
  BOOST_TEST(west->events.empty());
  BOOST_TEST(west->incarnation == 1);

  const std::string approval = R"({"StartRequests":[{"EventId":")" + id + R"("}]})";
  const auto foreign = call(request(http::verb::post, kEvents, true, approval), 1);
  BOOST_TEST(foreign.result_int() == 400u);
  BOOST_TEST(std::string(boost::json::parse(foreign.body()).at("error").as_string()).find("not found") !=
             std::string::npos);
  BOOST_TEST(state.approvals.empty());
  BOOST_TEST((state.events.events().at(0).status == cla::EventStatus::scheduled));
  BOOST_TEST(call(request(http::verb::post, kEvents, true, approval), 0).result_int() == 200u);
  BOOST_TEST_REQUIRE(state.approvals.size() == 1u);
  BOOST_TEST(state.approvals[0].region == "east");
  BOOST_TEST((state.events.events().at(0).status == cla::EventStatus::started));

  const auto compute = call(request(http::verb::get, "/metadata/instance/compute?api-version=2021-02-01"), 1);
  BOOST_TEST(boost::json::parse(compute.body()).at("location").as_string() == "west");
  BOOST_TEST(state.requests.back().region == "west");
  BOOST_TEST(state.requests.back().vm == "vm0");
}

BOOST_AUTO_TEST_SUITE_END()
